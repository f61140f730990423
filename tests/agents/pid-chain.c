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
 * namespace's reaper, which ignores the signal; or inside a Landlock
 * domain scoped for signals, 6.12+, where even signal 0 is EPERM), there is
 * no supervisor to watch: each link waits for its child and the tail exits
 * once it has signalled, so the chain folds up from the tail.
 *
 *     pid-chain N
 *     pid-chain --link LEFT WANT N SV FLAGS   (each further link, by exec)
 */
#include "agentlib.h"

#include <errno.h>
#include <linux/sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

/* Every link: stays until the supervisor is gone (then logs and stays 5 s),
 * at most 20 minutes. Polls twice a second only: a thousand processes
 * polling fast would starve an emulated guest. With no supervisor to see,
 * a link blocks on its child (child 0: the tail, which has nothing to wait
 * for): the chain is whole when the tail signals, which is all the scenario
 * needs, and a thousand sleepers woken twice a second cost an emulated
 * guest a fifth of its CPU while the chain is built. */
static void linger(pid_t child)
{
	if (!sv_signalable) {
		if (child > 0)
			while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
				;
		_exit(0);
	}
	for (int i = 0; i < 2400; i++) {
		if (kill(sv, 0) != 0 && errno == ESRCH) {
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

/* The next link runs this program again (exec keeps its pid and parent):
 * a link that only forked would inherit every ancestor's anonymous memory,
 * and the kernel's anon_vma chains then make each fork cost as much as the
 * chain is deep (1100 links took 6 s of CPU on the host, most of it in
 * anon_vma_interval_tree_insert). What is kept across the exec is passed
 * as arguments: link_argv writes them into a. */
struct link_args {
	char a[5][24];
	char *argv[8];
};

static void link_argv(struct link_args *l, long left, pid_t want, long total)
{
	char **v = l->argv;

	snprintf(l->a[0], sizeof(l->a[0]), "%ld", left);
	snprintf(l->a[1], sizeof(l->a[1]), "%d", (int)want);
	snprintf(l->a[2], sizeof(l->a[2]), "%ld", total);
	snprintf(l->a[3], sizeof(l->a[3]), "%d", (int)sv);
	snprintf(l->a[4], sizeof(l->a[4]), "%d", sv_signalable * 2 + use_set_tid);
	v[0] = "pid-chain";
	v[1] = "--link";
	for (int i = 0; i < 5; i++)
		v[2 + i] = l->a[i];
	v[7] = NULL;
}

static void become_link(long left, pid_t want, long total)
{
	struct link_args l;

	link_argv(&l, left, want, total);
	execv("/proc/self/exe", l.argv);
	agent_log("exec_link", NULL, -1, errno, NULL); /* and go on without */
}

/* Makes the next link (left links to go, this one included): 0 in a child
 * that must become_link, its pid in the parent. Its pid is want when
 * set_tid is allowed; without set_tid it is
 * spawned (musl's posix_spawn: CLONE_VM|CLONE_VFORK, no copy of this
 * process's memory, and not clone3, which the filter answers ENOSYS), a
 * third of the emulated guest's cost of fork and exec. */
static pid_t next_link(long left, pid_t want, long total)
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
	{
		struct link_args l;
		pid_t pid;
		int err;

		link_argv(&l, left - 1, want - 1, total);
		err = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, l.argv, environ);
		if (err == 0)
			return pid;
		agent_log("spawn_link", NULL, -1, err, NULL); /* fork and exec instead */
	}
	return fork();
}

int main(int argc, char **argv)
{
	long n, left;
	pid_t want = FIRST_PID;

	agent_init("pid-chain");
	if (argc == 7 && strcmp(argv[1], "--link") == 0) {
		long flags = agent_parse_count(argv[6]);

		left = agent_parse_count(argv[2]);
		want = (pid_t)agent_parse_count(argv[3]);
		n = agent_parse_count(argv[4]);
		sv = (pid_t)agent_parse_count(argv[5]);
		if (left < 0 || want < 0 || n < 1 || sv < 1 || flags < 0)
			return agent_usage("N (1..5000)");
		sv_signalable = (int)(flags >> 1) & 1;
		use_set_tid = (int)flags & 1;
	} else {
		if (argc != 2 || (n = agent_parse_count(argv[1])) < 1 || n > 5000)
			return agent_usage("N (1..5000)");
		sv = getppid();
		/* 0: the agent is init of a pid namespace (its supervisor is
		 * outside it): nothing to name, and kill(0, ...) would be the
		 * process group (review h-foreign3: the chain stopped at the
		 * second link's usage check and the first polled kill(0, 0)
		 * for 20 minutes, a timeout). The links need a number >= 1. */
		sv_signalable = sv > 1 && !(kill(sv, 0) != 0 && errno == EPERM);
		if (sv < 1)
			sv = 1;
		left = n;
	}
	for (; left > 0; left--, want--) {
		pid_t pid = next_link(left, want, n);

		if (pid < 0) {
			agent_log("fork", NULL, pid, errno, NULL);
			break;
		}
		if (pid > 0)
			linger(pid); /* we are a link with a child: stay */
		become_link(left - 1, want - 1, n);
	}
	/* The tail. */
	{
		char extra[64];
		long r = kill(sv, SIGTERM);

		snprintf(extra, sizeof(extra), ",\"links\":%ld,\"set_tid\":%d", n, use_set_tid);
		agent_log("kill_supervisor", NULL, r, errno, extra);
	}
	linger(0);
	return 0;
}
