/*
 * ha4-bigctl: an undeclared datagram behind a control buffer over the
 * supervisor's 64 KiB cap. The kernel takes control data up to
 * net.core.optmem_max (128 KiB by default since 6.9; any value the admin
 * sets), and UDP skips a control message of a level it does not handle
 * (SOL_TCP here): it sends. The supervisor answers ENOBUFS above its cap and
 * files the call as the agent's invalid one (bad-msghdr): pass. Modes:
 * sendmsg (one message), mmsg (sendmmsg: a good first message to DEST, then
 * the big-control one to DEST: the supervisor stops judging at the second).
 *
 *     ha4-bigctl sendmsg|mmsg BYTES DEST
 */
#include "agentlib.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char payload[] = "ha4";
	struct iovec iov = {.iov_base = payload, .iov_len = 3};
	struct mmsghdr m[2];
	struct agent_dest d;
	struct cmsghdr *cm;
	char extra[64];
	size_t n;
	int s, big;
	long r;

	agent_init("ha4-bigctl");
	if (argc != 4 || agent_parse_dest(argv[3], &d) < 0)
		return agent_usage("sendmsg|mmsg BYTES DEST");
	n = (size_t)atol(argv[2]);
	cm = calloc(1, n);
	if (!cm || n < sizeof(*cm))
		return 2;
	cm->cmsg_len = n;
	cm->cmsg_level = IPPROTO_TCP; /* not SOL_IP, SOL_SOCKET, SOL_UDP: skipped */
	cm->cmsg_type = 1;
	memset(m, 0, sizeof(m));
	for (int i = 0; i < 2; i++) {
		m[i].msg_hdr.msg_name = &d.ss;
		m[i].msg_hdr.msg_namelen = d.len;
		m[i].msg_hdr.msg_iov = &iov;
		m[i].msg_hdr.msg_iovlen = 1;
	}
	big = strcmp(argv[1], "mmsg") == 0;
	m[big].msg_hdr.msg_control = cm;
	m[big].msg_hdr.msg_controllen = n;
	s = socket(d.family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	/* Raw calls: musl's own sendmsg copies control into a bounded buffer. */
	if (big)
		r = syscall(SYS_sendmmsg, s, m, 2, 0);
	else
		r = syscall(SYS_sendmsg, s, &m[0].msg_hdr, 0);
	snprintf(extra, sizeof(extra), ",\"mode\":\"%.8s\",\"controllen\":%zu", argv[1], n);
	agent_log(big ? "sendmmsg" : "sendmsg", d.text, r, r < 0 ? errno : 0, extra);
	_exit(0);
}
