/*
 * ring-giver: creates an io_uring ring (no SQPOLL) outside the supervised
 * tree and gets it to the agent, one of two ways:
 *   ring-giver PATH     serves it to whoever connects to the AF_UNIX socket
 *                       PATH: one message per connection, the ring's
 *                       io_uring_params as data and the ring as SCM_RIGHTS
 *                       (kernels with the 2023 fix refuse to pass a ring:
 *                       EINVAL, logged). Makes PATH's missing parent
 *                       directories first (a scenario puts the socket
 *                       under a path it declares writable, where a root
 *                       agent's peers may be). Binds a UDP socket on
 *                       127.0.0.1 first (the guest's readiness signal for
 *                       a service). Serves until killed.
 *   ring-giver --exec PARAMS PROG ARG...
 *                       leaves the ring open as fd 100 (not close-on-exec),
 *                       writes its io_uring_params to the file PARAMS and
 *                       execs PROG: what a careless caller of the supervisor
 *                       hands down.
 */
#include "agentlib.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#endif

static long new_ring(struct io_uring_params *p)
{
	long ring;

	memset(p, 0, sizeof(*p));
	ring = syscall(SYS_io_uring_setup, 4, p);
	agent_log("io_uring_setup", NULL, ring, errno, NULL);
	return ring;
}

static int exec_with_ring(char **argv)
{
	struct io_uring_params p;
	long ring = new_ring(&p);
	int out;

	/* dup2 clears close-on-exec on the new number. */
	if (ring < 0 || dup2((int)ring, 100) != 100)
		return 1;
	out = open(argv[0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0 || write(out, &p, sizeof(p)) != (ssize_t)sizeof(p) || close(out) != 0)
		return 1;
	execv(argv[1], argv + 1);
	agent_log("execv", argv[1], -1, errno, NULL);
	return 127;
}

int main(int argc, char **argv)
{
	struct sockaddr_in lo = {.sin_family = AF_INET};
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	struct io_uring_params p;
	long ring;
	int u, s, rc;

	agent_init("ring-giver");
	if (argc >= 4 && strcmp(argv[1], "--exec") == 0)
		return exec_with_ring(argv + 2);
	if (argc != 2 || strlen(argv[1]) >= sizeof(un.sun_path))
		return agent_usage("PATH | --exec PARAMS PROG ARG...");
	ring = new_ring(&p);
	if (ring < 0)
		return 1;
	strcpy(un.sun_path, argv[1]);
	if ((rc = agent_make_parent(argv[1])) < 0)
		agent_log("mkdir", argv[1], -1, -rc, NULL);
	unlink(argv[1]);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&un, sizeof(un)) != 0 || listen(s, 4) != 0)
		return 1;
	lo.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	u = socket(AF_INET, SOCK_DGRAM, 0);
	if (u < 0 || bind(u, (struct sockaddr *)&lo, sizeof(lo)) != 0)
		return 1;
	for (;;) {
		union {
			struct cmsghdr h;
			char buf[CMSG_SPACE(sizeof(int))];
		} ctl;
		struct iovec iov = {.iov_base = &p, .iov_len = sizeof(p)};
		struct msghdr mh = {.msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = ctl.buf,
				    .msg_controllen = sizeof(ctl.buf)};
		int c = accept(s, NULL, NULL), rfd = (int)ring;
		long r;

		if (c < 0)
			continue;
		memset(ctl.buf, 0, sizeof(ctl.buf));
		ctl.h.cmsg_level = SOL_SOCKET;
		ctl.h.cmsg_type = SCM_RIGHTS;
		ctl.h.cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(&ctl.h), &rfd, sizeof(int));
		r = sendmsg(c, &mh, 0);
		agent_log("sendmsg", argv[1], r, errno, NULL);
		close(c);
	}
}
