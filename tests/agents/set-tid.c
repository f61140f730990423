/*
 * set-tid: asks clone3 for a chosen pid (set_tid), which needs
 * CAP_CHECKPOINT_RESTORE in the user namespace that owns the pid namespace.
 * Exits 0 when that is refused with EPERM, 1 when the child got the pid
 * (the capability was kept), 2 on any other answer.
 */
#include "agentlib.h"

#include <errno.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif

int main(int argc, char **argv)
{
	pid_t want = 30001, tid[1] = {30001};
	struct clone_args ca;
	long pid;

	(void)argv;
	agent_init("set-tid");
	if (argc != 1)
		return agent_usage("(no arguments)");
	memset(&ca, 0, sizeof(ca));
	ca.exit_signal = SIGCHLD;
	ca.set_tid = (uint64_t)(uintptr_t)tid;
	ca.set_tid_size = 1;
	pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid == 0)
		_exit(0);
	agent_log("clone3_set_tid", NULL, pid, errno, NULL);
	if (pid > 0) {
		waitpid((pid_t)pid, NULL, 0);
		return pid == want ? 1 : 2;
	}
	return errno == EPERM ? 0 : 2;
}
