/*
 * limit-supervisor: the hostile re-run's survivor without a signal. The
 * agent has its supervisor's uid, so the kernel lets it lower the
 * supervisor's RLIMIT_CPU with prlimit64; a second of supervisor CPU later
 * the kernel kills it, and in subreaper mode what the agent left outlives
 * the run. This agent only sets the limit on its parent (the supervisor
 * for a uid-1000 agent, the pid namespace's reaper for a root one) and on
 * itself (pid 0, which must keep working), and logs both answers; it never
 * burns the CPU. Exit status 1 when the limit on the parent was set.
 * As init of a pid namespace (a supervisor of another design makes the
 * agent that) its parent is outside the namespace and getppid() is 0,
 * which prlimit reads as itself: there is no parent to name, so it logs
 * prlimit_parent_none and makes no call (review h-foreign3 finding 8).
 *
 *     limit-supervisor
 */
#include "agentlib.h"

#include <errno.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rlimit one = {1, 1}, mine = {RLIM_INFINITY, RLIM_INFINITY};
	pid_t parent = getppid();
	int r;

	(void)argv;
	agent_init("limit-supervisor");
	if (argc != 1)
		return agent_usage("(no arguments)");
	r = prlimit(0, RLIMIT_CPU, NULL, &mine);
	agent_log("prlimit_self", NULL, r, r ? errno : 0, NULL);
	if (parent == 0) {
		agent_log("prlimit_parent_none", NULL, 0, 0, NULL);
		return 0;
	}
	r = prlimit(parent, RLIMIT_CPU, &one, NULL);
	agent_log("prlimit_parent", NULL, r, r ? errno : 0, NULL);
	return r == 0 ? 1 : 0;
}
