/*
 * big-control: a datagram to DEST with a control buffer of BYTES (one
 * message of level SOL_TCP, which UDP skips). The kernel takes control data
 * up to net.core.optmem_max (128 KiB by default since 6.9) and sends. Over
 * the supervisor's 64 KiB cap it was filed as the agent's ENOBUFS (invalid):
 * an undeclared datagram behind a pass (review h-attack4); it is a refused
 * control message now (denied). Modes: sendmsg (one message), mmsg
 * (sendmmsg: a plain first message to DEST, then the big-control one).
 *
 *     big-control sendmsg|mmsg BYTES DEST
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

	agent_init("big-control");
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
