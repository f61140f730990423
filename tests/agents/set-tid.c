/*
 * set-tid: asks clone3 for a chosen pid (set_tid), which needs
 * CAP_CHECKPOINT_RESTORE in the user namespace that owns the pid namespace.
 * Exits 0 when that is refused with EPERM, or when clone3 itself is
 * answered ENOSYS (the supervisor traps clone3 and answers so, and set_tid
 * has no other way in), 1 when the child got the pid (the capability was
 * kept), 2 on any other answer. The pid asked for is
 * below kernel.pid_max: the kernel checks the range (EINVAL) before the
 * capability, and a small kernel (CONFIG_BASE_SMALL: pid_max 4096) would
 * answer EINVAL to 30001 whatever the capabilities.
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
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

/* kernel.pid_max, or 32768 (the default) when it cannot be read. */
static long pid_max(void)
{
	char buf[32] = "";
	int fd = open("/proc/sys/kernel/pid_max", O_RDONLY | O_CLOEXEC);
	long v;

	if (fd < 0)
		return 32768;
	v = read(fd, buf, sizeof(buf) - 1) > 0 ? agent_parse_count(strtok(buf, "\n")) : -1;
	close(fd);
	return v > 2 ? v : 32768;
}

int main(int argc, char **argv)
{
	pid_t want, tid[1];
	struct clone_args ca;
	long pid, max;

	(void)argv;
	agent_init("set-tid");
	if (argc != 1)
		return agent_usage("(no arguments)");
	max = pid_max();
	want = (pid_t)(max - 1 < 30001 ? max - 1 : 30001);
	tid[0] = want;
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
	return errno == EPERM || errno == ENOSYS ? 0 : 2;
}
