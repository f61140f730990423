/* Allow-list: parsing of --allow SPEC and matching of destinations. Pure: no
 * side effects, no allocation except in sv_policy_add. Grammar in docs/design.md. */
#ifndef SV_POLICY_H
#define SV_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An IP address in network byte order; for AF_INET only bytes[0..3] count. */
struct sv_addr {
	int family; /* AF_INET or AF_INET6 */
	uint8_t bytes[16];
};

struct sv_rule {
	struct sv_addr net; /* host bits below prefix are zero */
	unsigned prefix;    /* 0..32 or 0..128 */
	uint16_t port_lo;   /* 0 with port_hi 65535 means "every port" */
	uint16_t port_hi;
};

struct sv_policy {
	struct sv_rule *rules;
	size_t n;
	size_t cap;
	bool loopback; /* 127.0.0.0/8 and ::1 allowed on every port */
	/* --deny-errno: what a denied call returns to the agent; 0 means the
	 * default, EACCES (sv_call_denial_errno reads it, so a policy built
	 * without it still denies). The report promises it (denial_errno). */
	int deny_errno;
};

/* The longest SPEC accepted; longer ones are rejected as overlong. */
#define SV_POLICY_SPEC_MAX 128

/* An err buffer this large never truncates a message (the spec is quoted with
 * control bytes escaped as \xHH, up to four bytes each). */
#define SV_POLICY_ERR_MAX 4096

/* Parses one SPEC into *out. Returns 0, or -EINVAL with a message naming what
 * is wrong written to err (NUL-terminated, truncated to errlen). */
int sv_policy_parse_spec(const char *spec, struct sv_rule *out, char *err, size_t errlen);

/* Appends a copy of *r. Returns 0 or -ENOMEM. The policy owns its rules. */
int sv_policy_add(struct sv_policy *p, const struct sv_rule *r);

/* True when the policy allows addr:port. An AF_INET6 address in
 * ::ffff:0:0/96 must already have been converted to AF_INET by the caller
 * (sv_sockaddr_decode does this). */
bool sv_policy_allows(const struct sv_policy *p, const struct sv_addr *addr, uint16_t port);

/* True for 127.0.0.0/8 and ::1 (an IPv4-mapped name is judged as IPv4). */
bool sv_addr_is_loopback(const struct sv_addr *a);

/* True for 0.0.0.0 and ::, the addresses the kernel never sends to. */
bool sv_addr_is_unspecified(const struct sv_addr *a);

/* Writes the canonical SPEC text of r ("192.0.2.0/24:443", "[2001:db8::1]:53").
 * Returns the length written (excluding NUL) or -ENOSPC. */
int sv_policy_format_rule(const struct sv_rule *r, char *buf, size_t len);

/* Frees the rules; the policy is empty afterwards. */
void sv_policy_free(struct sv_policy *p);

#endif
