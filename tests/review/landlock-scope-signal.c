/* Shows the smallest fix proposed for the survivor found by the hostile
 * review: a process in a Landlock domain scoped for signals (ABI 6, Linux
 * 6.12+) cannot signal its supervisor, which is outside the domain.
 * Prints the Landlock ABI and what kill(getppid(), SIGKILL) answered. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/landlock.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif

struct attr6 {
	__u64 handled_access_fs, handled_access_net, scoped;
};

int main(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	printf("landlock abi %ld\n", abi);
	fflush(stdout);
	pid_t c = fork();
	if (c == 0) {
		struct attr6 a = {LANDLOCK_ACCESS_FS_MAKE_BLOCK, 0, LANDLOCK_SCOPE_SIGNAL};
		long fd = syscall(SYS_landlock_create_ruleset, &a, sizeof(a), 0);
		if (fd < 0) {
			printf("create_ruleset: %s\n", strerror(errno));
			_exit(2);
		}
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		if (syscall(SYS_landlock_restrict_self, fd, 0) != 0) {
			printf("restrict_self: %s\n", strerror(errno));
			_exit(2);
		}
		int r = kill(getppid(), SIGKILL);
		printf("child in a signal-scoped domain: kill(parent, SIGKILL) = %d (%s)\n", r,
		       r ? strerror(errno) : "ok");
		fflush(stdout);
		_exit(0);
	}
	int st;
	waitpid(c, &st, 0);
	printf("parent still alive after the child's attempt\n");
	return 0;
}
