/*
 * bench-notify-floor: runs PROGRAM with connect() trapped to user
 * notification and answered by this process, in its parent, with CONTINUE
 * and nothing else: no read of the destination, no check, no action. That
 * is the least any supervisor built on seccomp user notification pays per
 * trapped call (two switches between processes, with the same
 * SYNC_WAKE_UP flag the supervisor sets), so `make bench` can read the
 * supervisor's connect figure against the floor of the mechanism on this
 * machine, measured in the same run. CONTINUE on connect is exactly what
 * the supervisor must never do (the agent can change the address after it
 * was read: mutant continue-connect); it is used here only as the floor.
 *
 *     bench-notify-floor PROGRAM [ARG]...
 *
 * Exit status: PROGRAM's, or 1 when the floor could not be set up.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../supervisor/seccomp_compat.h"

static void on_child(int sig)
{
	(void)sig;
}

static int die(const char *what)
{
	int err = errno;

	fprintf(stderr, "bench-notify-floor: %s: %s\n", what, strerror(err));
	return 1;
}

/* In the child: connect() notifies (x86_64 only; another ABI is killed, as
 * the supervisor's filter kills an unknown one), the listener goes to the
 * parent over sock, then PROGRAM runs. */
static void child(int sock, char **argv)
{
	struct sock_filter insns[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_connect, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(insns) / sizeof(insns[0]), .filter = insns};
	char cbuf[CMSG_SPACE(sizeof(int))] = {0};
	char byte = 0;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	int listener;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		_exit(die("PR_SET_NO_NEW_PRIVS"));
	listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (listener < 0)
		_exit(die("installing the filter (seccomp user notification, Linux >= 5.0)"));
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &listener, sizeof(int));
	if (sendmsg(sock, &mh, 0) != 1)
		_exit(die("passing the listener"));
	close(listener);
	close(sock);
	execv(argv[0], argv);
	_exit(die("exec"));
}

static int receive_listener(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	char byte;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &mh, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&mh);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

int main(int argc, char **argv)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	struct sigaction sa = {.sa_handler = on_child};
	int sv[2], listener, status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: bench-notify-floor PROGRAM [ARG]...\n");
		return 2;
	}
	/* The child's end interrupts a blocked receive (no SA_RESTART): older
	 * kernels do not answer ENOENT when no task uses the filter. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) != 0)
		return die("socketpair");
	pid = fork();
	if (pid < 0)
		return die("fork");
	if (pid == 0)
		child(sv[1], argv + 1);
	close(sv[1]);
	listener = receive_listener(sv[0]);
	if (listener < 0) {
		waitpid(pid, &status, 0);
		fprintf(stderr, "bench-notify-floor: the child passed no listener\n");
		return 1;
	}
	/* Linux 6.6; older kernels answer EINVAL and the floor is without it,
	 * as the supervisor is there. */
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	for (;;) {
		memset(&req, 0, sizeof(req));
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0) {
			/* EINTR (SIGCHLD) or ENOENT (withdrawn, or no task uses the
			 * filter any more): the child's exit decides. */
			if (waitpid(pid, &status, WNOHANG) == pid)
				break;
			continue;
		}
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
