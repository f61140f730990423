/* Judging a destination against the policy and the socket's family. */
#ifndef SV_JUDGE_H
#define SV_JUDGE_H

#include "policy.h"
#include "sockaddr.h"

/* The policy's decision on a name alone. Returns NULL when allowed (*why
 * says why), else the denial reason. Pure. */
const char *sv_judge_name(const struct sv_policy *pol, const struct sv_dest *d, int is_connect,
			  const char **why);

/* Whether a socket of this domain may take that name: the socket's own
 * family decides, so an AF_PACKET socket cannot pass as AF_UNIX by its name's
 * label. Returns NULL, "family-mismatch" or "unsupported-socket". Pure. */
const char *sv_judge_domain(int domain, const struct sv_dest *d, int is_connect);

/* 1 when an allowed send must carry its name to the kernel, 0 when it must
 * be performed without it: a netlink name (the kernel, the only netlink
 * destination allowed), so that the kernel judges the agent's socket's
 * credentials and not only ours. */
int sv_judge_sends_name(const struct sv_dest *d);

#endif
