/*
 * rx-options: asks an IPv6 UDP socket for the ancillary data of what it
 * receives, by every RFC 2292 and RFC 3542 receive flag (IPV6_2292RTHDR,
 * IPV6_2292HOPOPTS, IPV6_2292DSTOPTS, IPV6_2292PKTINFO, IPV6_2292HOPLIMIT,
 * IPV6_RECVRTHDR, IPV6_RECVHOPOPTS, IPV6_RECVDSTOPTS, IPV6_RECVPKTINFO), then
 * sends one datagram (PAYLOAD) to DEST from it. In Linux each flag is an int
 * that only sets what recvmsg reports (do_ipv6_setsockopt's rxopt bits):
 * none of them puts a header on what is sent (review h-attack66: 2292RTHDR,
 * whose number is also a send-side control message, was denied as a source
 * route). Each call logged; exits 0 when every flag and the send succeeded.
 */
#include "agentlib.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static const struct {
		int name;
		const char *what;
	} flags[] = {{5, "ipv6_2292rthdr"},    {3, "ipv6_2292hopopts"},  {4, "ipv6_2292dstopts"},
		     {2, "ipv6_2292pktinfo"},  {8, "ipv6_2292hoplimit"}, {56, "ipv6_recvrthdr"},
		     {53, "ipv6_recvhopopts"}, {58, "ipv6_recvdstopts"}, {49, "ipv6_recvpktinfo"}};
	struct agent_dest d;
	const char *payload = argc > 2 ? argv[2] : "rx";
	int fd, one = 1, bad = 0;
	long r;

	agent_init("rx-options");
	if (argc < 2 || argc > 3 || agent_parse_dest(argv[1], &d) != 0 || d.family != AF_INET6)
		return agent_usage("DEST6 [PAYLOAD]");
	fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		agent_log("socket", d.text, fd, errno, NULL);
		return 1;
	}
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		char extra[64];

		r = setsockopt(fd, IPPROTO_IPV6, flags[i].name, &one, sizeof(one));
		snprintf(extra, sizeof(extra), ",\"option\":\"%s\"", flags[i].what);
		agent_log("setsockopt", NULL, r, errno, extra);
		bad |= r != 0;
	}
	r = sendto(fd, payload, strlen(payload), 0, (const struct sockaddr *)&d.ss, d.len);
	agent_log("sendto", d.text, r, errno, NULL);
	close(fd);
	return bad || r < 0;
}
