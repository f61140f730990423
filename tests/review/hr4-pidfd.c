/* What Go 1.22+'s os/exec does with pidfds, for a Go 1.19 toolchain (review
 * h-realprog4): checkPidfd's probes (pidfd_open of itself,
 * pidfd_send_signal 0, waitid(P_PIDFD) expecting ECHILD), then a child made
 * by clone(CLONE_VFORK | CLONE_VM | CLONE_PIDFD) as Go 1.23's forkExec does,
 * which execs ARGV, and waitid(P_PIDFD) on the returned pidfd; then a
 * clone3 with CLONE_PIDFD, which may answer ENOSYS (Go does not use it).
 * Exit: the child's exit status, 90+ on a probe failure.
 *
 *     hr4-pidfd PROGRAM [ARG]...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char **child_argv;
static char stack[65536];

static int child(void *arg)
{
	(void)arg;
	execvp(child_argv[0], child_argv);
	_exit(127);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	child_argv = argv + 1;
	int self = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (self < 0) {
		fprintf(stderr, "hr4-pidfd: pidfd_open(self): %s\n", strerror(errno));
		return 91;
	}
	if (syscall(SYS_pidfd_send_signal, self, 0, NULL, 0) < 0) {
		fprintf(stderr, "hr4-pidfd: pidfd_send_signal 0: %s\n", strerror(errno));
		return 92;
	}
	siginfo_t si;
	if (waitid(P_PIDFD, (id_t)self, &si, WEXITED | WNOHANG) == 0 || errno != ECHILD) {
		fprintf(stderr, "hr4-pidfd: waitid(P_PIDFD, self): %s (want ECHILD)\n",
			strerror(errno));
		return 93;
	}
	int pidfd = -1;
	pid_t pid = clone(child, stack + sizeof stack,
			  CLONE_VFORK | CLONE_VM | CLONE_PIDFD | SIGCHLD, NULL, &pidfd);
	if (pid < 0) {
		fprintf(stderr, "hr4-pidfd: clone(CLONE_PIDFD): %s\n", strerror(errno));
		return 94;
	}
	memset(&si, 0, sizeof si);
	if (waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED) < 0) {
		fprintf(stderr, "hr4-pidfd: waitid(P_PIDFD, child): %s\n", strerror(errno));
		return 95;
	}
	struct clone_args ca = {
	    .flags = CLONE_PIDFD, .pidfd = (__u64)(unsigned long)&pidfd, .exit_signal = SIGCHLD};
	long r = syscall(SYS_clone3, &ca, sizeof ca);
	if (r == 0)
		_exit(0);
	fprintf(stderr, "hr4-pidfd: clone3(CLONE_PIDFD): %s\n", r < 0 ? strerror(errno) : "ok");
	if (r > 0)
		waitpid((pid_t)r, NULL, 0);
	return si.si_code == CLD_EXITED ? si.si_status : 96;
}
