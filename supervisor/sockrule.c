#include "sockrule.h"

#include <linux/netlink.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

/* socket()'s type: the kernel uses type & SOCK_TYPE_MASK; the flag bits
 * above (SOCK_NONBLOCK, SOCK_CLOEXEC) do not change the kind. */
#define TYPE_MASK 0xfu

static const char *inet_kind(uint32_t type, uint32_t protocol, const char **why)
{
	switch (type & TYPE_MASK) {
	case SOCK_STREAM:
		/* Protocol 0 on a stream is TCP; 132 (SCTP) and 262 (MPTCP)
		 * connect without a connect() the supervisor sees. */
		*why = "tcp";
		return protocol == 0 || protocol == IPPROTO_TCP ? NULL : "unsupported-socket";
	case SOCK_DGRAM:
		/* Protocol 0 on a datagram socket is UDP; UDP-Lite and ICMP ping
		 * are not mediated. */
		*why = "udp";
		return protocol == 0 || protocol == IPPROTO_UDP ? NULL : "unsupported-socket";
	case SOCK_RAW:
	case SOCK_PACKET:
		return "raw-socket";
	default:
		return "unsupported-socket";
	}
}

const char *sv_sockrule_socket(uint64_t family, uint64_t type, uint64_t protocol, const char **why)
{
	uint32_t fam = (uint32_t)family, ty = (uint32_t)type, proto = (uint32_t)protocol;

	*why = NULL;
	switch (fam) {
	case AF_UNIX:
		*why = "local";
		return NULL;
	case AF_INET:
	case AF_INET6:
		return inet_kind(ty, proto, why);
	case AF_PACKET:
		return "raw-socket";
	case AF_NETLINK:
		/* NETLINK_ROUTE is what resolvers (glibc's AI_ADDRCONFIG) and
		 * ip(8) read; changing routes or addresses needs CAP_NET_ADMIN,
		 * which the agent does not have. Other protocols (generic netlink
		 * and its many families, netfilter, xfrm, ...) are not needed by
		 * an egress client and are refused. */
		*why = "netlink-route";
		return proto == NETLINK_ROUTE ? NULL : "unsupported-socket";
	default:
		return "unsupported-socket";
	}
}

const char *sv_sockrule_listen(const struct sv_policy *pol, const struct sv_dest *bound,
			       int localnet_routed, const char **why)
{
	*why = NULL;
	switch (bound->kind) {
	case SV_DEST_UNIX:
	case SV_DEST_NETLINK:
		/* AF_UNIX peers are local processes; netlink has no listen
		 * (the kernel answers EOPNOTSUPP). */
		*why = "local";
		return NULL;
	case SV_DEST_INET:
		/* Only local processes reach a loopback address (the kernel
		 * drops martian 127/8 and ::1 arriving from outside). A wildcard
		 * or any other local address takes peers from anywhere, and an
		 * accepted peer is a destination nobody judged. But IPv4 drops
		 * 127/8 from outside only while route_localnet is 0 on the
		 * interface and on all (ip_route_input_slow; kube-proxy set it
		 * on every interface before CVE-2020-8558's fix, a DNAT to
		 * 127.0.0.1 needs it): then a neighbour connects in (review
		 * h-attack70, 3 of 3 passed). ::1 has no such switch. */
		*why = "loopback";
		if (!pol->loopback || !sv_addr_is_loopback(&bound->addr))
			return "inbound";
#ifndef SV_MUTANT_LOCALNET_LOOPBACK_TRUSTED
		/* MUTANT localnet-loopback-trusted: a loopback listener is
		 * local whatever route_localnet says. */
		if (bound->addr.family == AF_INET && localnet_routed)
			return "inbound-localnet";
#else
		(void)localnet_routed;
#endif
		return NULL;
	default:
		return "unsupported-socket";
	}
}
