/* The capability probe: proves, before the agent runs, that every mechanism
 * the run depends on works against a forked canary that has the agent's
 * credentials and relationship to the supervisor. Never against the
 * supervisor itself: the kernel exempts a process's own thread group from
 * every ptrace access check, so a self-probe proves nothing. */
#ifndef SV_PROBE_H
#define SV_PROBE_H

#include "report.h"

/* Runs the probe and fills *out (each field 0 or the errno of the failed
 * step, -1 when not reached). Returns 0 when every needed capability works,
 * -EPERM-like -errno of the first failure otherwise. */
int sv_probe_run(struct sv_probe_result *out);

/* Prints one line per capability ("pidfd_getfd: EPERM") to stdout. */
void sv_probe_print(const struct sv_probe_result *r);
/* The hint for a containment errno (positive; the probe's containment
 * answer, or the agent's own contain_err), naming the setting or kernel
 * option; NULL for 0. */
const char *sv_probe_containment_hint(int err);

#endif
