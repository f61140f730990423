/* Decoding of a destination copied out of the agent. Pure. */
#ifndef SV_SOCKADDR_H
#define SV_SOCKADDR_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"

/* The largest name the kernel copies in (sizeof(struct sockaddr_storage)). */
#define SV_SOCKADDR_MAX 128

enum sv_dest_kind {
	SV_DEST_NONE,        /* no name at all (NULL pointer) */
	SV_DEST_INET,        /* AF_INET or AF_INET6, judged by policy */
	SV_DEST_UNSPEC,      /* AF_UNSPEC: connect() disconnects */
	SV_DEST_UNIX,        /* AF_UNIX: local IPC, allowed and recorded */
	SV_DEST_NETLINK,     /* AF_NETLINK: kernel IPC, allowed and recorded */
	SV_DEST_UNSUPPORTED, /* any other family: denied */
	SV_DEST_MALFORMED,   /* shorter than its family needs: denied */
};

struct sv_dest {
	enum sv_dest_kind kind;
	int family;          /* sa_family as read, -1 when len < 2 */
	struct sv_addr addr; /* SV_DEST_INET: AF_INET, or AF_INET6 if not mapped */
	uint16_t port;       /* host byte order */
	int mapped;          /* 1 when an IPv4-mapped IPv6 name was judged as IPv4 */
	uint32_t scope_id;   /* AF_INET6 names of 28 bytes or more: sin6_scope_id */
	int netlink_peer;    /* SV_DEST_NETLINK: 1 when nl_pid or nl_groups is set
				(another socket or a multicast group, not the kernel) */
};

/* Decodes len bytes of a sockaddr. buf may be NULL only with len 0 and
 * none_if_null set (a NULL name): then the result is SV_DEST_NONE. len must be
 * <= SV_SOCKADDR_MAX (callers answer EINVAL for larger ones as the kernel does).
 * Always fills *out; returns 0. */
int sv_sockaddr_decode(const void *buf, size_t len, int none_if_null, struct sv_dest *out);

/* Writes a printable destination: "192.0.2.1:443", "[2001:db8::1]:53",
 * "unix:/path", "unix:@abstract", "unix:unnamed", "netlink:pid=0", "unspec",
 * "family=17", "malformed(len=3)"; "none" for SV_DEST_NONE. Bytes of a unix
 * path or abstract name outside printable ASCII, and the backslash, are
 * written as \xHH. Returns the length or -ENOSPC (-EINVAL for an
 * SV_DEST_NETLINK without its 12 bytes or an unknown kind). */
int sv_dest_format(const struct sv_dest *d, const void *buf, size_t len, char *out, size_t outlen);

/* Short name of the family for the report: "inet", "inet6", "unix", "unspec",
 * "netlink", or the number as text. Returns a pointer to static storage or
 * into num (at least 12 bytes). Never NULL: "" when no family was read
 * (family -1: a NULL name or one under 2 bytes), "unknown" when num is too
 * short for the number. */
const char *sv_dest_family_name(const struct sv_dest *d, char *num, size_t numlen);

#endif
