/*
 * thread-files: a thread made with CLONE_THREAD but without CLONE_FILES has
 * its own descriptor table. The thread puts its socket at descriptor 100 of
 * its table, the leader puts another socket at 100 of its own, and the
 * thread connects its 100 to DEST. Afterwards both sockets are asked for
 * their peer: a supervisor that acted on the leader's table would have
 * connected the leader's socket and told the thread it succeeded.
 *
 * Logs one "connect" line (the thread's result) with "thread_peer" and
 * "leader_peer" (ok or the getpeername errno). Exit 0 when what the thread
 * was told is what happened to its own socket and the leader's socket was
 * left alone; 1 otherwise (the lie is logged as "table_mismatch").
 *
 *   thread-files --closed DEST
 *       the thread has no descriptor 100 of its own (only the leader has
 *       one) and connects 100 to DEST: the kernel answers EBADF, and the
 *       leader's socket must stay unconnected.
 *
 *   thread-files --rights
 *       the same two tables, but the thread's 100 is a UDP socket and the
 *       leader's a TCP one, and the thread passes its 100 with SCM_RIGHTS
 *       over an AF_UNIX datagram pair made before the thread (so the pair is
 *       the same in both tables). Logs one "sendmsg" line with "received":
 *       what the leader then finds at the pair's other end (none, thread,
 *       leader). Exit 0 when the thread's own socket arrived and it was told
 *       so, or nothing arrived and it was told the send failed.
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SLOT 100

static struct agent_dest dest;
static atomic_int leader_ready, thread_done;
static long thread_result;
static int thread_err, thread_peer_err, thread_setup_err;
static int rights, closed, pair[2];

/* The thread's descriptor SLOT over pair[0], by raw syscall. */
static long send_slot(void)
{
	static char byte = 'x';
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl.buf,
			    .msg_controllen = sizeof(ctl.buf)};
	int slot = SLOT;

	memset(&ctl, 0, sizeof(ctl));
	ctl.h.cmsg_level = SOL_SOCKET;
	ctl.h.cmsg_type = SCM_RIGHTS;
	ctl.h.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&ctl.h), &slot, sizeof(int));
	return syscall(SYS_sendmsg, pair[0], &mh, 0);
}

/* Which socket arrived at pair[1]: "none", "thread" (UDP), "leader" (TCP). */
static const char *received(void)
{
	char byte;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl.buf,
			    .msg_controllen = sizeof(ctl.buf)};
	socklen_t len = sizeof(int);
	int fd, type = 0;

	if (recvmsg(pair[1], &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) < 0 ||
	    mh.msg_controllen < CMSG_LEN(sizeof(int)) || ctl.h.cmsg_type != SCM_RIGHTS)
		return "none";
	memcpy(&fd, CMSG_DATA(&ctl.h), sizeof(int));
	getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len);
	close(fd);
	return type == SOCK_DGRAM ? "thread" : type == SOCK_STREAM ? "leader" : "other";
}

static int peer_err(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	return syscall(SYS_getpeername, fd, &ss, &len) == 0 ? 0 : errno;
}

/* Runs on its own stack with its own table; raw syscalls only (it shares
 * the leader's TLS, so libc state is the leader's). */
static int thread_main(void *arg)
{
	int type = (rights ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC;
	long s = closed ? -1 : syscall(SYS_socket, dest.family, type, 0);
	const struct timespec ms = {.tv_nsec = 1000 * 1000};

	(void)arg;
	if (!closed && (s < 0 || syscall(SYS_dup3, (int)s, SLOT, O_CLOEXEC) < 0)) {
		thread_setup_err = errno;
		atomic_store(&thread_done, 1);
		return 0;
	}
	if (!closed)
		syscall(SYS_close, (int)s);
	while (!atomic_load(&leader_ready))
		syscall(SYS_nanosleep, &ms, NULL);
	thread_result = rights ? send_slot() : syscall(SYS_connect, SLOT, &dest.ss, dest.len);
	thread_err = thread_result < 0 ? errno : 0;
	thread_peer_err = peer_err(SLOT);
	atomic_store(&thread_done, 1);
	return 0;
}

static const char *err_text(int err)
{
	return err ? agent_errno_name(err) : "ok";
}

int main(int argc, char **argv)
{
	static const char usage[] = "DEST | --closed DEST | --rights";
	size_t stack_size = 256 * 1024;
	char *stack;
	char extra[200];
	int l, leader_peer, told_ok, ok;

	agent_init("thread-files");
	rights = argc == 2 && strcmp(argv[1], "--rights") == 0;
	closed = argc == 3 && strcmp(argv[1], "--closed") == 0;
	if (closed) {
		argc = 2;
		argv++;
	}
	if (rights)
		dest.family = AF_INET;
	if (argc != 2 || (!rights && agent_parse_dest(argv[1], &dest) < 0))
		return agent_usage(usage);
	if (rights && socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, pair) < 0) {
		agent_log("socketpair", NULL, -1, errno, NULL);
		return 1;
	}
	stack = malloc(stack_size);
	if (!stack) {
		agent_log("clone", NULL, -1, ENOMEM, NULL);
		return 1;
	}
	/* No CLONE_FILES: the thread's table is a copy of ours from here on. */
	if (clone(thread_main, stack + stack_size,
		  CLONE_VM | CLONE_FS | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM, NULL) < 0) {
		agent_log("clone", NULL, -1, errno, NULL);
		return 1;
	}
	l = socket(dest.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || dup3(l, SLOT, O_CLOEXEC) < 0) {
		agent_log("socket", NULL, -1, errno, NULL);
		return 1;
	}
	close(l);
	atomic_store(&leader_ready, 1);
	for (int i = 0; i < 20000 && !atomic_load(&thread_done); i++)
		usleep(1000);
	if (!atomic_load(&thread_done) || thread_setup_err) {
		agent_log("thread", NULL, -1, thread_setup_err ? thread_setup_err : ETIMEDOUT,
			  NULL);
		return 1;
	}
	if (rights) {
		const char *got = received();

		told_ok = thread_result == 1;
		ok = told_ok ? strcmp(got, "thread") == 0 : strcmp(got, "none") == 0;
		snprintf(extra, sizeof(extra), ",\"received\":\"%s\"", got);
		agent_log("sendmsg", NULL, thread_result, thread_err, extra);
		if (!ok)
			agent_log("table_mismatch", NULL, -1, 0, extra);
		return ok ? 0 : 1;
	}
	leader_peer = peer_err(SLOT);
	told_ok = thread_result == 0 || thread_err == EINPROGRESS;
	/* Told it connected: its own socket must have a peer; told it failed:
	 * it must not. The leader's socket is never the one to connect. */
	ok = (told_ok ? thread_peer_err == 0 : thread_peer_err != 0) && leader_peer != 0;
	snprintf(extra, sizeof(extra), ",\"thread_peer\":\"%s\",\"leader_peer\":\"%s\"",
		 err_text(thread_peer_err), err_text(leader_peer));
	agent_log("connect", dest.text, thread_result, thread_err, extra);
	if (!ok)
		agent_log("table_mismatch", dest.text, -1, 0, extra);
	return ok ? 0 : 1;
}
