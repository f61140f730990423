/* Starting a supervised child: the agent, or the probe's canary. */
#ifndef SV_SPAWN_H
#define SV_SPAWN_H

#include <sys/types.h>

#include "contain.h"

struct sv_child {
	pid_t pid;       /* our child: the agent, or (pid-namespace) its reaper */
	int listener;    /* in the supervisor's fd table; -1 when install failed */
	int install_err; /* -errno from sv_filter_install, or 0 */
	int unshare_err; /* -errno of the child's unshare(CLONE_FILES), or 0 */
	int by_getfd;    /* the listener was taken with pidfd_getfd (sv_spawn_handover) */
	int contain_err; /* -errno of sv_contain_choose or the namespaces' set-up, or 0 */
	enum sv_contain_mode mode;
	int status_fd; /* pid-namespace: the reaper writes the agent's wait status here; else -1 */
	int said;      /* the reaper's word read (sv_spawn_agent_poll): said_status holds it */
	int said_status;
};

/* Forks a child that shares the supervisor's fd table just long enough to
 * install the filter (so the listener lands in our table without any
 * ptrace-level access), then unshares it and runs fn(arg) (which must not
 * return to us: exec or _exit). The child gets PR_SET_PDEATHSIG(SIGKILL) and
 * an empty signal mask. If the install fails the child exits 127 and
 * install_err says why. If the unshare is refused (a seccomp profile
 * refusing unshare: Docker's default without CAP_SYS_ADMIN), that child
 * exits 127 and a second one is started with a table of its own from the
 * clone; its listener is taken with pidfd_getfd, and so for every later
 * call in this process (sv_spawn_handover). When that fails, the child
 * exits 127 without running fn, and install_err says why (by_getfd set)
 * (unshare_err is then 0; it is set only when no second child was tried).
 *
 * Containment (contain.h): in pid-namespace mode our child is init of a new
 * pid and mount namespace and runs fn in a grandchild under it
 * (sv_contain_reap); contain_err says when that could not be set up (then
 * nothing ran fn). Before fn every descriptor above 2 is closed except
 * keep_fd (the caller's close-on-exec exec-error pipe; -1 for none); when
 * that fails the child writes the errno as an int to keep_fd (the exec-error protocol) and exits
 * 127 without running fn. With sentinels set, a pid-namespace reaper makes
 * sv_notify_sentinel_call() before it forks fn's process and once the
 * namespace is empty (the supervisor must be receiving by then: the first
 * call waits for its answer before fn runs). Returns 0 (and fills *out) or
 * -errno when no child could be started. */
int sv_spawn(struct sv_child *out, void (*fn)(void *arg), void *arg, int keep_fd, int sentinels);

/* How the listener reaches us: 0 through the shared table, 1 with
 * pidfd_getfd from the child's own table since an unshare(CLONE_FILES) was
 * refused (*refusal: its errno; 0 while it was not). */
int sv_spawn_handover(int *refusal);

/* The wait status to record for the agent, given our child's wait status:
 * in pid-namespace mode the agent's own status from the reaper (our child's
 * when the reaper was killed before it could say), otherwise unchanged.
 * Closes status_fd. */
int sv_spawn_agent_status(struct sv_child *ch, int child_status);

/* Pid-namespace mode, while the run goes on: whether the reaper has said
 * the agent's wait status (it does as soon as it reaps the agent, whatever
 * the agent left running). Never blocks. Returns 1 with *status set (and
 * kept for sv_spawn_agent_status), 0 when not yet said or not that mode. */
int sv_spawn_agent_poll(struct sv_child *ch, int *status);

#endif
