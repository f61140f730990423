/*
 * ha26-nodump (hostile review h-attack26): a false red. A child of the run
 * makes a user and a network namespace, hands their files to its parent
 * (SCM_RIGHTS), then makes itself non-dumpable (PR_SET_DUMPABLE 0, as a
 * sandbox or a key agent does). The parent enters both: the run's own
 * namespaces. A uid-1000 supervisor (in its user namespace, without
 * CAP_SYS_PTRACE) cannot read the child's /proc/PID/ns links, so it finds
 * no process of the run there and denies both joins as foreign-namespace.
 *   ha26-nodump [x]     (x: the child makes itself non-dumpable)
 * Prints what the joins returned; exits 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int sv[2];
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	pid_t h = fork();
	if (h == 0) {
		unshare(CLONE_NEWUSER | CLONE_NEWNET);
		int fds[2] = {open("/proc/self/ns/user", O_RDONLY),
			      open("/proc/self/ns/net", O_RDONLY)};
		char buf[CMSG_SPACE(sizeof fds)];
		struct iovec io = {"x", 1};
		struct msghdr m = {.msg_iov = &io,
				   .msg_iovlen = 1,
				   .msg_control = buf,
				   .msg_controllen = sizeof buf};
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof fds);
		memcpy(CMSG_DATA(c), fds, sizeof fds);
		sendmsg(sv[0], &m, 0);
		if (argc > 1)
			prctl(PR_SET_DUMPABLE, 0);
		write(sv[0], "y", 1);
		pause();
		_exit(0);
	}
	int fds[2];
	char buf[CMSG_SPACE(sizeof fds)], x;
	struct iovec io = {&x, 1};
	struct msghdr m = {
	    .msg_iov = &io, .msg_iovlen = 1, .msg_control = buf, .msg_controllen = sizeof buf};
	recvmsg(sv[1], &m, 0);
	read(sv[1], &x, 1);
	memcpy(fds, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof fds);
	long r1 = syscall(SYS_setns, fds[0], CLONE_NEWUSER);
	int e1 = errno;
	long r2 = syscall(SYS_setns, fds[1], CLONE_NEWNET);
	int e2 = errno;
	printf("dumpable=%d user join %ld %s, net join %ld %s\n", argc == 1, r1, strerror(e1), r2,
	       strerror(e2));
	kill(h, SIGKILL);
	return 0;
}
