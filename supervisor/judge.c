/* What a destination is allowed to be: the policy's answer for a name and
 * the kinds of name a socket's family may carry. No process is read here:
 * the name is already ours (call.c reads it). */
#include "judge.h"

#include <sys/socket.h>

/* The kernel never sends to the unspecified address. IPv6's :: goes to ::1,
 * or to 127.0.0.1 when the socket is bound to a v4-mapped address
 * (tcp_v6_connect, ip6_datagram_connect, udpv6_sendmsg): allowed only when
 * both are. IPv4's 0.0.0.0 (::ffff:0.0.0.0 too) goes to the socket's bound
 * address, else 127.0.0.1 (ip_route_output_key_hash_rcu), and the agent can
 * bind the socket to any address of this host between our judgement and our
 * act: refused. Judged as written, a rule covering 0.0.0.0 or :: let the
 * agent's data reach an undeclared loopback listener (review h-attack9). */
#ifndef SV_MUTANT_UNSPECIFIED_AS_WRITTEN
static const char *judge_unspecified(const struct sv_policy *pol, const struct sv_dest *d)
{
	struct sv_addr v6 = {.family = AF_INET6}, v4 = {.family = AF_INET};

	if (d->addr.family != AF_INET6)
		return "unspecified-address";
	v6.bytes[15] = 1;
	v4.bytes[0] = 127;
	v4.bytes[3] = 1;
	return sv_policy_allows(pol, &v6, d->port) && sv_policy_allows(pol, &v4, d->port)
		   ? NULL
		   : "unspecified-address";
}
#endif

const char *sv_judge_name(const struct sv_policy *pol, const struct sv_dest *d, int is_connect,
			  const char **why)
{
	switch (d->kind) {
	case SV_DEST_NONE:
		*why = "connected-peer";
		return NULL;
	case SV_DEST_INET:
		*why = "policy";
#ifndef SV_MUTANT_UNSPECIFIED_AS_WRITTEN
		if (sv_addr_is_unspecified(&d->addr))
			return judge_unspecified(pol, d);
#endif
		return sv_policy_allows(pol, &d->addr, d->port) ? NULL : "policy";
	case SV_DEST_UNSPEC:
		/* connect(AF_UNSPEC) disconnects. A send with an AF_UNSPEC name is
		 * not harmless: UDP reads it as an AF_INET address. */
		*why = "disconnect";
		return is_connect ? NULL : "unsupported-family";
	case SV_DEST_UNIX:
		*why = "local";
		return NULL;
	case SV_DEST_NETLINK:
		/* The kernel is local IPC. Another socket or a multicast group
		 * is not: the kernel checks the right to name one
		 * (NL_CFG_F_NONROOT_SEND, else CAP_NET_ADMIN) against the task
		 * that sends, which would be us, not the agent. */
		*why = "local";
		return d->netlink_peer ? "netlink-peer" : NULL;
	case SV_DEST_UNSUPPORTED:
		return "unsupported-family";
	case SV_DEST_MALFORMED:
		return "malformed";
	}
	return "malformed";
}

const char *sv_judge_domain(int domain, const struct sv_dest *d, int is_connect)
{
	int ok;

	switch (domain) {
	case AF_INET:
	case AF_INET6:
		ok = d->kind == SV_DEST_INET || d->kind == SV_DEST_NONE ||
		     (is_connect && d->kind == SV_DEST_UNSPEC);
		break;
	case AF_UNIX:
		ok = d->kind == SV_DEST_UNIX || d->kind == SV_DEST_NONE ||
		     (is_connect && d->kind == SV_DEST_UNSPEC);
		break;
	case AF_NETLINK:
		ok = d->kind == SV_DEST_NETLINK || d->kind == SV_DEST_NONE;
		break;
	default:
		/* Packet, vsock, bluetooth, ...: not mediated, so not allowed. */
		return "unsupported-socket";
	}
	return ok ? NULL : "family-mismatch";
}

int sv_judge_sends_name(const struct sv_dest *d)
{
	/* A named netlink send is marked NETLINK_SKB_DST, and then only the
	 * sending task's capabilities are checked (__netlink_ns_capable), which
	 * would be ours: a root agent without CAP_NET_ADMIN would change routes,
	 * tunnels and tc through us. Unnamed, it goes to the socket's default
	 * destination, the kernel (a netlink connect to anything else is
	 * refused above), and the kernel also checks the credentials the
	 * agent's socket was opened with. */
#ifdef SV_MUTANT_NETLINK_DEPUTY
	/* MUTANT netlink-deputy: every name is sent, with our capabilities. */
	return 1;
#endif
	return d->kind != SV_DEST_NETLINK;
}
