/* wildcard-relay: a service (root, in a guest cell) that stands for another
 * host on a link. It listens on 0.0.0.0:PORT, UDP and TCP, and sends every
 * datagram and every connection's bytes it gets, prefixed with the address
 * they were sent to, as one UDP datagram to RELAY, where the cell's sink is.
 *
 *   wildcard-relay PORT RELAY:PORT
 *
 * The guest's only link is lo: a packet the agent sends out of lo to an
 * address no route leads to (pick-interface) is delivered to this host's
 * own wildcard listener, which is this one; the sink then shows that it
 * left by a link the routes did not choose. */
#include "agentlib.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void relay(int out, const struct agent_dest *to, const struct in_addr *dst, unsigned port,
		  const char *proto, const char *data, size_t n)
{
	char msg[1200], a[INET_ADDRSTRLEN];
	int len;

	inet_ntop(AF_INET, dst, a, sizeof(a));
	len = snprintf(msg, sizeof(msg), "%s to %s:%u: %.*s", proto, a, port, (int)n, data);
	if (len > (int)sizeof(msg) - 1)
		len = (int)sizeof(msg) - 1;
	sendto(out, msg, (size_t)len, 0, (const struct sockaddr *)&to->ss, to->len);
}

int main(int argc, char **argv)
{
	struct sockaddr_in any = {.sin_family = AF_INET};
	struct agent_dest to;
	long port;
	int u, t, out, one = 1;

	agent_init("wildcard-relay");
	port = argc == 3 ? agent_parse_count(argv[1]) : -1;
	if (port < 1 || port > 65535 || agent_parse_dest(argv[2], &to) < 0 || to.family != AF_INET)
		return agent_usage("PORT RELAY:PORT");
	any.sin_port = htons((unsigned short)port);
	u = socket(AF_INET, SOCK_DGRAM, 0);
	t = socket(AF_INET, SOCK_STREAM, 0);
	out = socket(AF_INET, SOCK_DGRAM, 0);
	setsockopt(u, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
	setsockopt(t, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (u < 0 || t < 0 || out < 0 || bind(u, (struct sockaddr *)&any, sizeof(any)) != 0 ||
	    bind(t, (struct sockaddr *)&any, sizeof(any)) != 0 || listen(t, 8) != 0) {
		perror("wildcard-relay");
		return 1;
	}
	printf("wildcard-relay: 0.0.0.0:%ld -> %s\n", port, to.text);
	fflush(stdout);
	for (;;) {
		struct pollfd p[2] = {{.fd = u, .events = POLLIN}, {.fd = t, .events = POLLIN}};
		char buf[1024];

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			return 1;
		if (p[0].revents & POLLIN) {
			union {
				char b[CMSG_SPACE(sizeof(struct in_pktinfo))];
				struct cmsghdr align;
			} c;
			struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
			struct msghdr mh = {.msg_iov = &iov,
					    .msg_iovlen = 1,
					    .msg_control = c.b,
					    .msg_controllen = sizeof(c.b)};
			ssize_t n = recvmsg(u, &mh, 0);
			struct in_addr dst = {0};

			for (struct cmsghdr *m = CMSG_FIRSTHDR(&mh); n >= 0 && m;
			     m = CMSG_NXTHDR(&mh, m))
				if (m->cmsg_level == IPPROTO_IP && m->cmsg_type == IP_PKTINFO)
					dst = ((struct in_pktinfo *)(void *)CMSG_DATA(m))->ipi_addr;
			if (n >= 0)
				relay(out, &to, &dst, (unsigned)port, "udp", buf, (size_t)n);
		}
		if (p[1].revents & POLLIN) {
			struct sockaddr_in local;
			socklen_t l = sizeof(local);
			int c = accept(t, NULL, NULL);
			ssize_t n;

			if (c < 0)
				continue;
			getsockname(c, (struct sockaddr *)&local, &l);
			/* One read: the agent writes one short message. */
			struct pollfd q = {.fd = c, .events = POLLIN};
			n = poll(&q, 1, 2000) == 1 ? read(c, buf, sizeof(buf)) : 0;
			relay(out, &to, &local.sin_addr, (unsigned)port, "tcp", buf,
			      n > 0 ? (size_t)n : 0);
			close(c);
		}
	}
}
