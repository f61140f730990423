/* The agent's joins of namespaces that exist already (setns): a run may
 * enter only namespaces the run made. Where uid 0 or the agent's uid owns
 * a user namespace outside the run (a container's: LXC's, rootless
 * podman's, one systemd's PrivateUsers= made), the agent holds every
 * capability in it by the owner rule (a root agent for any uid's, with
 * CAP_SETUID) and could enter it, then its network namespace, whose
 * loopback is not the run's declared loopback, or its mount namespace,
 * where the host's files are not read-only. docs/design.md, "Joining a
 * namespace". */
#ifndef SV_NSJOIN_H
#define SV_NSJOIN_H

#include <linux/types.h>

#include "call.h"

/* Whether joins are judged (a run with a pid namespace: root, or uid 1000
 * in its user namespace) or all refused (a subreaper run, whose agent can
 * make no namespace of its own to join, and any call before the spawn).
 * Set once the agent's namespaces are made. */
void sv_nsjoin_set_judged(int judged);

/* setns(fd, nstype), a[0] and a[1], on any ABI. The namespace fd names
 * (an nsfs file) or the process a pidfd names is looked at through the
 * calling thread's own descriptor. Allowed (CONTINUE) only when it is the
 * run's: a namespace a process of the run is in, or one owned by a user
 * namespace below ours that a process of the run is in (the run made it,
 * or entered it by a judged join); a pidfd of a process of the run. And
 * only when no other task can replace the descriptor between this look
 * and the kernel's: the caller is the only thread of its process and no
 * process of the run shares a descriptor table (sv_nsjoin_table_shared).
 * Otherwise denied as "foreign-namespace", or neutralized as
 * "shared-table" (EPERM). Finishes the call. */
void sv_nsjoin_mediate(struct sv_call *c, const __u64 *a);

/* clone() with CLONE_FILES but not CLONE_THREAD (the filter traps only
 * that, and a root agent's CLONE_NEWCGROUP: sv_nsjoin_new_cgroup): another
 * process now shares a descriptor table, so from here on no setns of the
 * run can be judged without a race. Allowed; recorded. */
void sv_nsjoin_table_shared(struct sv_call *c, const __u64 *a);

/* A root agent's unshare or clone with CLONE_NEWCGROUP (the filter traps
 * only those): a cgroup namespace of its own lets it mount cgroup2 over the
 * supervisor's cgroup and kill or freeze everything in it, its caller too
 * (review h-attack34). Neutralized, "cgroup-namespace", EPERM (one without
 * the flag goes on). Finishes the call. */
void sv_nsjoin_new_cgroup(struct sv_call *c, const __u64 *a);

#endif
