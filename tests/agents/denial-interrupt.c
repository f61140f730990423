/*
 * denial-interrupt: makes the supervisor decide on a connect whose
 * notification has already died, deterministically. The sockaddr lies in a
 * page registered with userfaultfd and not yet present, so the supervisor's
 * copy of it (process_vm_readv) waits on our fault handler. The handler then
 * interrupts the connecting thread (SIGUSR1, no SA_RESTART: the call ends
 * with EINTR and its notification is withdrawn), waits until the connect
 * has returned, and only then supplies the page. The supervisor's copy
 * completes with DEST, its decision is made on it, and the notification is
 * dead by the time it checks ID_VALID: a decided denial must still be
 * recorded as one.
 *
 * With --mmsg GOOD it makes one UDP sendmmsg of [GOOD, DEST] instead, the
 * first message's payload in that page: the supervisor judges both names,
 * decides DEST denied, and its copy of the payload (to send GOOD's message)
 * is what waits while the call is interrupted (review h-attack10: the
 * decided denial was filed abandoned). Logs "sendmmsg" instead of "connect".
 *
 * Needs userfaultfd without CAP_SYS_PTRACE (the supervisor drops it):
 * vm.unprivileged_userfaultfd=1, or (6.1+) a /dev/userfaultfd it may open. Logs "connect" (its
 * result: EINTR when the sequence happened as planned) with "fault_seen" (whether the supervisor's
 * copy reached the handler). Exit 0 when the sequence happened as planned (or when the copy
 * never reached the handler and the connect was refused: no retry on the /proc/PID/mem route),
 * 1 when it did not
 * (logged as "sequence"), 2 on bad arguments, 3 when userfaultfd is not available (logged as
 * "userfaultfd").
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct agent_dest dest, good;
static int mmsg;
static int uffd;
static long page;
static unsigned char *region;
static pid_t connector;
static atomic_int connect_returned, fault_seen;

static void on_usr1(int sig)
{
	(void)sig;
}

/* The fault handler: one fault expected (the supervisor's copy). */
static void *handler(void *arg)
{
	static unsigned char src[65536];

	(void)arg;
	if (!agent_uffd_wait_fault(uffd, 10000))
		return NULL;
	atomic_store(&fault_seen, 1);
	/* Withdraw the notification while the supervisor's copy waits. */
	syscall(SYS_tgkill, getpid(), connector, SIGUSR1);
	for (int i = 0; i < 10000 && !atomic_load(&connect_returned); i++)
		usleep(1000);
	if (mmsg)
		memcpy(src, "msg 0", 5);
	else
		memcpy(src, &dest.ss, dest.len);
	agent_uffd_supply(uffd, region, src, page);
	return NULL;
}

int main(int argc, char **argv)
{
	void *mapped;
	static const char usage[] = "[--mmsg GOOD] DEST";
	struct sigaction sa = {.sa_handler = on_usr1}; /* no SA_RESTART */
	char extra[64];
	pthread_t t;
	int fd, err, planned;
	long r;

	agent_init("denial-interrupt");
	if (argc == 4 && strcmp(argv[1], "--mmsg") == 0) {
		if (agent_parse_dest(argv[2], &good) < 0)
			return agent_usage(usage);
		mmsg = 1;
		argv += 2;
		argc -= 2;
	}
	if (argc != 2 || agent_parse_dest(argv[1], &dest) < 0 ||
	    (mmsg && good.family != dest.family))
		return agent_usage(usage);
	uffd = agent_uffd_page(&mapped, &page);
	if (uffd < 0)
		return 3;
	region = mapped;
	sigaction(SIGUSR1, &sa, NULL);
	connector = (pid_t)syscall(SYS_gettid);
	if (pthread_create(&t, NULL, handler, NULL) != 0) {
		agent_log("pthread_create", NULL, -1, EAGAIN, NULL);
		return 1;
	}
	if (mmsg) {
		static char other[] = "msg 1";
		struct iovec iov[2] = {{.iov_base = region, .iov_len = 5},
				       {.iov_base = other, .iov_len = 5}};
		struct mmsghdr mm[2];

		memset(mm, 0, sizeof(mm));
		mm[0].msg_hdr.msg_name = &good.ss;
		mm[0].msg_hdr.msg_namelen = good.len;
		mm[0].msg_hdr.msg_iov = &iov[0];
		mm[0].msg_hdr.msg_iovlen = 1;
		mm[1].msg_hdr.msg_name = &dest.ss;
		mm[1].msg_hdr.msg_namelen = dest.len;
		mm[1].msg_hdr.msg_iov = &iov[1];
		mm[1].msg_hdr.msg_iovlen = 1;
		fd = socket(dest.family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		/* The payload is read only by the supervisor (as the name below):
		 * the raw call, musl's sendmmsg being a loop of sendmsg. */
		r = syscall(SYS_sendmmsg, fd, mm, 2u, 0);
	} else {
		fd = socket(dest.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		/* The name is read only by the supervisor: seccomp stops the call
		 * before the kernel copies it, and we never touch the page. */
		r = connect(fd, (const struct sockaddr *)region, dest.len);
	}
	err = errno;
	atomic_store(&connect_returned, 1);
	pthread_join(t, NULL);
	/* Also as planned: the copy never reached the page and the call was
	 * refused. /proc/PID/mem (kernels without CONFIG_CROSS_MEMORY_ATTACH)
	 * gets no retry on a missing userfaultfd page, so no notification was
	 * outlived; the verdict (a mechanism failure there) says the rest. */
	planned = r < 0 && (atomic_load(&fault_seen) ? err == EINTR : err != EINTR);
	snprintf(extra, sizeof(extra), ",\"fault_seen\":%s",
		 atomic_load(&fault_seen) ? "true" : "false");
	agent_log(mmsg ? "sendmmsg" : "connect", dest.text, r, err, extra);
	if (!planned)
		agent_log("sequence", dest.text, -1, 0, extra);
	close(fd);
	return planned ? 0 : 1;
}
