/*
 * peer-pid: what a receiver in the run learns of its sender (review
 * h-realprog2; docs/design.md, Known limits). A child sends one message with
 * sendmsg (no control data) to its parent over an AF_UNIX SOCK_SEQPACKET
 * socketpair; the parent has SO_PASSCRED and compares the SCM_CREDENTIALS
 * pid with the child's pid as fork gave it. The supervisor performs that
 * sendmsg: it must name the caller (a root supervisor does), or the parent
 * reads pid 0 in the run's pid namespace.
 *
 *   peer-pid     exit 0 when the pid matches, 1 when it does not
 *
 * Logged: "sendmsg" (the child's result) and "passcred" with dest
 * "pid=N want=M".
 */
#include "agentlib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char byte = 'x', cbuf[CMSG_SPACE(sizeof(struct ucred))], what[64];
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	struct ucred got = {.pid = -1};
	int sv[2], on = 1, status;
	pid_t child;
	long r;

	(void)argv;
	agent_init("peer-pid");
	if (argc != 1)
		return agent_usage("(no arguments)");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0 ||
	    setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) != 0) {
		agent_log("socketpair", NULL, -1, errno, NULL);
		return 1;
	}
	child = fork();
	if (child == 0) {
		r = sendmsg(sv[0], &mh, 0);
		agent_log("sendmsg", NULL, r, errno, NULL);
		_exit(r == 1 ? 0 : 1);
	}
	/* The child's end is its alone: a send that never comes (refused, a
	 * mechanism failure) ends the wait at its exit instead of hanging. */
	close(sv[0]);
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof(cbuf);
	r = recvmsg(sv[1], &mh, 0);
	for (struct cmsghdr *c = r == 1 ? CMSG_FIRSTHDR(&mh) : NULL; c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS)
			memcpy(&got, CMSG_DATA(c), sizeof(got));
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	snprintf(what, sizeof(what), "pid=%d want=%d", (int)got.pid, (int)child);
	agent_log("passcred", what, r, errno, NULL);
	return got.pid == child ? 0 : 1;
}
