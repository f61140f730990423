/*
 * cross-process: reaches into a process outside its own tree, the one
 * PIDFILE names ("PID FD", written by fd-holder), and tries to take its
 * connected socket: pidfd_getfd on a pidfd of it (then writes LINE to the
 * socket it got), process_vm_readv and process_vm_writev of its memory,
 * ptrace(PTRACE_ATTACH) and kcmp. Each call is the raw syscall, logged.
 * Exits 0 when every one of them was refused (any errno: a denial is judged
 * by what happened; the errno is logged, and the host checks it against the
 * report's promise, docs/supervisor-contract.md), 1 otherwise.
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

static int denied(const char *call, const char *what, long r)
{
	agent_log(call, what, r, errno, NULL);
	return r < 0 ? 0 : 1;
}

static int read_pidfile(const char *path, int *pid, int *fd)
{
	const struct timespec step = {.tv_nsec = 20 * 1000 * 1000};
	char buf[64];

	for (int i = 0; i < 500; i++) {
		int f = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = f >= 0 ? read(f, buf, sizeof(buf) - 1) : -1;

		if (f >= 0)
			close(f);
		if (n > 0) {
			buf[n] = '\0';
			if (sscanf(buf, "%d %d", pid, fd) == 2)
				return 0;
		}
		nanosleep(&step, NULL);
	}
	return -1;
}

int main(int argc, char **argv)
{
	char what[32], word[8] = "x";
	struct iovec local = {.iov_base = word, .iov_len = 1}, remote;
	int pid, fd, bad = 0;
	long pidfd, r;

	agent_init("cross-process");
	if (argc != 3)
		return agent_usage("PIDFILE LINE");
	if (read_pidfile(argv[1], &pid, &fd) != 0) {
		agent_log("pidfile", argv[1], -1, ENOENT, NULL);
		return 1;
	}
	snprintf(what, sizeof(what), "pid=%d fd=%d", pid, fd);
	/* pidfd_open itself is allowed: a pidfd only signals and waits. */
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	agent_log("pidfd_open", what, pidfd, errno, NULL);
	if (pidfd >= 0) {
		r = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
		bad |= denied("pidfd_getfd", what, r);
		if (r >= 0) {
			/* The outsider's socket: its peer was never judged here. */
			long w = write((int)r, argv[2], strlen(argv[2]));

			agent_log("write", what, w, errno, NULL);
			close((int)r);
		}
	}
	/* Any address will do: the call is refused before memory is looked at. */
	remote.iov_base = (void *)&what;
	remote.iov_len = 1;
	bad |= denied("process_vm_readv", what,
		      syscall(SYS_process_vm_readv, pid, &local, 1, &remote, 1, 0));
	bad |= denied("process_vm_writev", what,
		      syscall(SYS_process_vm_writev, pid, &local, 1, &remote, 1, 0));
	r = syscall(SYS_ptrace, PTRACE_ATTACH, pid, 0, 0);
	bad |= denied("ptrace", what, r);
	if (r == 0)
		syscall(SYS_ptrace, PTRACE_DETACH, pid, 0, 0);
	bad |= denied("kcmp", what, syscall(SYS_kcmp, getpid(), pid, 0, 0, fd));
	return bad;
}
