/*
 * pid-chain: issue 12's survivor. Builds a chain of N processes, each the
 * child of the one before, with decreasing pids where clone3's set_tid is
 * allowed (CAP_CHECKPOINT_RESTORE), else with plain fork. The last one
 * SIGTERMs the agent's parent (the supervisor, when the agent is its direct
 * child) and logs the answer. A kill of direct children in pid order, one
 * generation per pass and a bounded number of passes, leaves the rest of
 * such a chain alive after the supervisor is gone: each process that sees
 * its supervisor gone logs a "survivor" line and stays a few seconds, for
 * the guest to find. When the parent cannot be signalled at all (1, a pid
 * namespace's reaper, which ignores the signal; or outside a Landlock
 * domain scoped for signals, 6.12+, where even signal 0 is EPERM), every
 * process exits about 2 s after it was made.
 *
 *     pid-chain N
 */
#include "agentlib.h"

#include <errno.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif

#define FIRST_PID 30000

static pid_t sv;
static int sv_signalable; /* kill(sv, 0) is not EPERM */
static int use_set_tid = 1;

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* Forks the next link; its pid is want when set_tid is allowed. */
static pid_t next_link(pid_t want)
{
	if (use_set_tid) {
		pid_t tid[1] = {want};
		struct clone_args ca;
		long pid;

		memset(&ca, 0, sizeof(ca));
		ca.exit_signal = SIGCHLD;
		ca.set_tid = (uint64_t)(uintptr_t)tid;
		ca.set_tid_size = 1;
		pid = syscall(SYS_clone3, &ca, sizeof(ca));
		if (pid >= 0 || (errno != EPERM && errno != ENOSYS && errno != EINVAL))
			return (pid_t)pid;
		agent_log("clone3_set_tid", NULL, pid, errno, NULL);
		use_set_tid = 0;
	}
	return fork();
}

/* Every link: stays until the supervisor is gone (then logs and stays 5 s),
 * at most 20 minutes; 2 s when there is no supervisor to see. Polls twice a
 * second only: a thousand processes polling fast would starve an emulated
 * guest. */
static void linger(void)
{
	for (int i = 0; i < 2400; i++) {
		if (!sv_signalable && i >= 4)
			_exit(0);
		if (sv_signalable && kill(sv, 0) != 0 && errno == ESRCH) {
			char extra[64];

			snprintf(extra, sizeof(extra), ",\"ppid\":%d", (int)getppid());
			agent_log("survivor", NULL, getpid(), 0, extra);
			sleep_ms(5000);
			_exit(3);
		}
		sleep_ms(500);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	long n;
	pid_t want = FIRST_PID;

	agent_init("pid-chain");
	if (argc != 2 || (n = agent_parse_count(argv[1])) < 1 || n > 5000)
		return agent_usage("N (1..5000)");
	sv = getppid();
	sv_signalable = sv != 1 && !(kill(sv, 0) != 0 && errno == EPERM);
	for (long i = 0; i < n; i++, want--) {
		pid_t pid = next_link(want);

		if (pid < 0) {
			agent_log("fork", NULL, pid, errno, NULL);
			break;
		}
		if (pid > 0)
			linger(); /* we are a link with a child: stay */
	}
	/* The tail. */
	{
		char extra[64];
		long r = kill(sv, SIGTERM);

		snprintf(extra, sizeof(extra), ",\"links\":%ld,\"set_tid\":%d", n, use_set_tid);
		agent_log("kill_supervisor", NULL, r, errno, extra);
	}
	linger();
	return 0;
}
