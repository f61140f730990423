/* Which sockets may be created, and which may listen: the decisions behind
 * the socket() allow-list and listen() mediation. Pure. */
#ifndef SV_SOCKRULE_H
#define SV_SOCKRULE_H

#include <stdint.h>

#include "policy.h"
#include "sockaddr.h"

/* socket(family, type, protocol) from the raw registers: each is an int, so
 * only its low 32 bits count (as in the kernel's SYSCALL_DEFINE3). Returns
 * NULL when the socket may be created (*why: "local", "tcp", "udp",
 * "netlink-route"), else the denial reason: "raw-socket" (SOCK_RAW,
 * SOCK_PACKET, AF_PACKET: they write their own headers) or
 * "unsupported-socket" (every other kind: SCTP, MPTCP, DCCP, UDP-Lite, ICMP
 * ping, other netlink protocols, every other family). */
const char *sv_sockrule_socket(uint64_t family, uint64_t type, uint64_t protocol, const char **why);

/* listen() on a socket bound to *bound (its getsockname, decoded). Returns
 * NULL when it may listen (*why: "local" for AF_UNIX and AF_NETLINK,
 * "loopback" for an inet socket bound to a loopback address while the
 * policy allows loopback), else "inbound" (an inet socket any other peer
 * could reach: a wildcard, a local non-loopback address, or unbound),
 * "inbound-localnet" (an IPv4 loopback address while localnet_routed: some
 * interface of the socket's network namespace takes 127/8 from outside,
 * net.ipv4.conf.*.route_localnet=1) or "unsupported-socket". */
const char *sv_sockrule_listen(const struct sv_policy *pol, const struct sv_dest *bound,
			       int localnet_routed, const char **why);

#endif
