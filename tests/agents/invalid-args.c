/*
 * invalid-args: calls the kernel itself would refuse, each on its own:
 * connect with an unmapped address (EFAULT), with an impossible length
 * (EINVAL), on a closed descriptor (EBADF), and sendmsg with more than
 * UIO_MAXIOV iovecs (EMSGSIZE). DEST is only used as the well-formed part.
 */
#include "agentlib.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

#define TOO_MANY_IOVECS 1025 /* UIO_MAXIOV + 1 */

int main(int argc, char **argv)
{
	static struct iovec iov[TOO_MANY_IOVECS];
	static char byte = 'x';
	struct msghdr mh = {0};
	struct agent_dest d;
	long r;
	int fd, i;

	agent_init("invalid-args");
	if (argc != 2 || agent_parse_dest(argv[1], &d) < 0)
		return agent_usage("DEST");

	fd = socket(d.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	/* An address in the never-mapped first page. */
	r = connect(fd, (const struct sockaddr *)(uintptr_t)8, d.len);
	agent_log("connect_unmapped", d.text, r, errno, NULL);
	r = connect(fd, (const struct sockaddr *)&d.ss, 1 << 20);
	agent_log("connect_huge_len", d.text, r, errno, NULL);
	close(fd);
	r = connect(fd, (const struct sockaddr *)&d.ss, d.len);
	agent_log("connect_closed_fd", d.text, r, errno, NULL);

	fd = socket(d.family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	for (i = 0; i < TOO_MANY_IOVECS; i++) {
		iov[i].iov_base = &byte;
		iov[i].iov_len = 1;
	}
	mh.msg_name = &d.ss;
	mh.msg_namelen = d.len;
	mh.msg_iov = iov;
	mh.msg_iovlen = TOO_MANY_IOVECS;
	r = sendmsg(fd, &mh, 0);
	agent_log("sendmsg_too_many_iovecs", d.text, r, errno, NULL);
	close(fd);
	return 0;
}
