#include "runprocs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

static _Atomic pid_t reaper;

void sv_runprocs_set_reaper(pid_t pid)
{
	atomic_store(&reaper, pid);
}

pid_t sv_runprocs_reaper(void)
{
	return atomic_load(&reaper);
}

/* Whether pid namespace nsfd (consumed) is the run's, or one below it. */
static int ns_in_run(int nsfd, const struct stat *run)
{
	/* Pid namespaces nest at most 32 deep; the parent of one above ours
	 * is not ours to see (EPERM), which ends the walk. */
	for (int depth = 0; depth < 33 && nsfd >= 0; depth++) {
		struct stat st;
		int parent;

		if (fstat(nsfd, &st) == 0 && st.st_dev == run->st_dev && st.st_ino == run->st_ino) {
			close(nsfd);
			return 1;
		}
		parent = ioctl(nsfd, NS_GET_PARENT);
		close(nsfd);
		nsfd = parent;
	}
	if (nsfd >= 0)
		close(nsfd);
	return 0;
}

static int run_ns(pid_t tid, struct stat *run)
{
	char link[64];
	pid_t r = sv_runprocs_reaper();

	snprintf(link, sizeof(link), "/proc/%d/ns/pid", (int)(r > 0 ? r : tid));
	if (stat(link, run) != 0)
		return errno == ENOENT ? -ESRCH : -errno;
	return 0;
}

/* Whether /proc/PID is of the run. Our /proc is one the agent cannot
 * mount over, and a process outside the run is never in its namespace. */
static int named_in_run(const char *pid, const struct stat *run)
{
	char link[48];
	int ns;

	snprintf(link, sizeof(link), "/proc/%.16s/ns/pid", pid);
	ns = open(link, O_RDONLY | O_CLOEXEC);
	return ns >= 0 && ns_in_run(ns, run);
}

static int alive(int pidfd)
{
#ifdef SV_MUTANT_HOLDER_UNPINNED
	(void)pidfd;
	return 1;
#else
	return syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
#endif
}

int sv_runprocs_each(pid_t tid, int (*fn)(int pidfd, const char *pid, void *arg), void *arg)
{
	struct stat run;
	struct dirent *e;
	DIR *proc;
	int found = 0, rc = run_ns(tid, &run);

	if (rc < 0)
		return rc;
	proc = opendir("/proc");
	if (!proc)
		return -errno;
	while (found == 0 && (e = readdir(proc))) {
		int pidfd;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		pidfd = (int)syscall(SYS_pidfd_open, atoi(e->d_name), 0);
		if (pidfd < 0)
			continue;
		found = named_in_run(e->d_name, &run) ? fn(pidfd, e->d_name, arg) : 0;
		if (found == 1 && !alive(pidfd))
			found = 0;
		close(pidfd);
	}
	closedir(proc);
	return found;
}

int sv_runprocs_has(pid_t tid, int pidfd, pid_t pid)
{
	struct stat run;
	char name[16];
	int rc = run_ns(tid, &run);

	if (rc < 0)
		return rc;
	snprintf(name, sizeof(name), "%d", (int)pid);
	return named_in_run(name, &run) && alive(pidfd);
}
