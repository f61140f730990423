/* Starting a supervised child: the agent, or the probe's canary. */
#ifndef SV_SPAWN_H
#define SV_SPAWN_H

#include <sys/types.h>

struct sv_child {
	pid_t pid;
	int listener;    /* in the supervisor's fd table; -1 when install failed */
	int install_err; /* -errno from sv_filter_install, or 0 */
};

/* Forks a child that shares the supervisor's fd table just long enough to
 * install the filter (so the listener lands in our table without any
 * ptrace-level access), then unshares it and runs fn(arg) (which must not
 * return to us: exec or _exit). The child gets PR_SET_PDEATHSIG(SIGKILL) and
 * an empty signal mask. If the install fails the child exits 127 and
 * install_err says why. Returns 0 (and fills *out) or -errno when no child
 * could be started. */
int sv_spawn(struct sv_child *out, void (*fn)(void *arg), void *arg);

#endif
