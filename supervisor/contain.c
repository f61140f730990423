#include "contain.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fault.h"
#include "mountinfo.h"
#include "landlock.h"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

#define CAP_SYS_ADMIN_BIT 21

static int have_effective_cap(int cap)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) != 0)
		return 0;
	return (d[cap / 32].effective >> (cap % 32)) & 1;
}

int sv_contain_choose(enum sv_contain_mode *out)
{
#ifdef SV_MUTANT_ROOT_AGENT_OPEN
	/* MUTANT root-agent-open: the agent is a plain child, as before: a
	 * root agent owns /proc/sys and /sys. */
	*out = SV_CONTAIN_SUBREAPER;
	return 0;
#endif
#ifdef SV_MUTANT_OLD_DESCENDANT_KILL
	/* MUTANT old-descendant-kill: no namespace either, so nothing but the
	 * old kill loop stands between the agent's tree and the end. */
	*out = SV_CONTAIN_SUBREAPER;
	return 0;
#endif
	if (have_effective_cap(CAP_SYS_ADMIN_BIT)) {
		*out = SV_CONTAIN_PIDNS;
		return 0;
	}
	if (geteuid() == 0)
		return -EPERM;
	*out = SV_CONTAIN_SUBREAPER;
	return 0;
}

const char *sv_contain_name(enum sv_contain_mode m)
{
	if (m == SV_CONTAIN_PIDNS)
		return "pid-namespace";
	return sv_landlock_signal_scoped() ? "subreaper+landlock+signal-scope"
					   : "subreaper+landlock";
}

pid_t sv_contain_outer_ppid(void)
{
	char buf[512], *p;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC), ppid = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = 0;
	/* The command name may hold spaces and parentheses: skip past the last ')'. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return -EIO;
	return (pid_t)ppid;
}

/* A bind remount keeps the mount's other flags only if we pass them again. */
static int remount_ro(const char *path)
{
	struct statvfs sv;
	unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY;

	if (statvfs(path, &sv) != 0)
		return -errno;
	if (sv.f_flag & ST_NOSUID)
		flags |= MS_NOSUID;
	if (sv.f_flag & ST_NODEV)
		flags |= MS_NODEV;
	if (sv.f_flag & ST_NOEXEC)
		flags |= MS_NOEXEC;
	if (sv.f_flag & ST_NOATIME)
		flags |= MS_NOATIME;
	if (sv.f_flag & ST_NODIRATIME)
		flags |= MS_NODIRATIME;
	if (sv.f_flag & ST_RELATIME)
		flags |= MS_RELATIME;
	return mount(NULL, path, NULL, flags, NULL) == 0 ? 0 : -errno;
}

/* path is not a mount point of its own (a directory or file of /proc):
 * bind it onto itself first, then make that bind read-only. */
static int bind_ro(const char *path)
{
	if (mount(path, path, NULL, MS_BIND, NULL) != 0)
		return -errno;
	return remount_ro(path);
}

/* File systems through which uid 0 reaches the kernel's own knobs:
 * sysctls (kernel.core_pattern, kernel.modprobe), uevent_helper, cgroup
 * release agents, binfmt handlers, debug and trace controls, EFI variables.
 * Judged by type, not by where they are mounted: a second proc under a
 * chroot builder's tree, or the working directory the agent inherits inside
 * the old /proc, reach them as well as /proc/sys does. */
static const char *const kernel_fs[] = {"proc",       "sysfs",    "binfmt_misc", "cgroup",
					"cgroup2",    "configfs", "debugfs",     "tracefs",
					"securityfs", "efivarfs", "bpf",         "pstore"};

static int is_kernel_fs(const char *type)
{
	for (size_t i = 0; i < sizeof(kernel_fs) / sizeof(kernel_fs[0]); i++)
		if (strcmp(type, kernel_fs[i]) == 0)
			return 1;
	return 0;
}

/* Every mount of a kernel_fs type, read-only. A remount is per mount, so
 * each is its own step. */
static int kernel_fs_read_only(void)
{
	struct sv_mount *t;
	int n = sv_mountinfo_read(&t), rc = 0;

	if (n < 0)
		return n;
	for (int i = 0; rc == 0 && i < n; i++) {
		if (!is_kernel_fs(t[i].type))
			continue;
#ifdef SV_MUTANT_PROC_BY_PATH
		/* MUTANT proc-by-path: only the mounts at or under /sys, as
		 * before: the old /proc and any other proc or sysfs stay
		 * writable. */
		if (strcmp(t[i].mp, "/sys") != 0 && strncmp(t[i].mp, "/sys/", 5) != 0)
			continue;
#endif
		rc = remount_ro(t[i].mp);
		/* A mount hidden under a later one cannot be reached by path;
		 * the one on top is remounted on its own line. Any other
		 * failure leaves a kernel knob writable: the agent must not run. */
		if (rc == -ENOENT)
			rc = 0;
	}
	sv_mountinfo_free(t, n);
	return rc;
}

int sv_contain_mounts(void)
{
	char cwd[4096];
	int rc, have_cwd = getcwd(cwd, sizeof(cwd)) != NULL;

	/* Private first: the remounts below must not propagate to the host's
	 * namespace (a shared root would carry them). */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return -errno;
	/* Before the new proc covers the old one, so the old /proc (which a
	 * working directory inside it still reaches) is read-only too. */
	if ((rc = kernel_fs_read_only()) < 0)
		return rc;
	/* A proc of the new pid namespace over the old one: only the
	 * namespace's own processes are visible. The old mount and whatever
	 * was mounted under it are hidden, and unmounting needs CAP_SYS_ADMIN. */
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
		return -errno;
	/* The new proc's sysctls: writable by uid 0 through its file mode. */
	if ((rc = bind_ro("/proc/sys")) < 0)
		return rc;
	if (access("/proc/sysrq-trigger", F_OK) == 0 && (rc = bind_ro("/proc/sysrq-trigger")) < 0)
		return rc;
	/* The working directory by path again: it lands on the new mounts
	 * where it was under the old /proc. */
	if (have_cwd && chdir(cwd) != 0)
		return -errno;
	return 0;
}

int sv_contain_close_fds(int keep)
{
	DIR *d;
	struct dirent *e;
	int rc = 0;

#ifdef SV_MUTANT_NO_CLOSE_RANGE
	/* MUTANT no-close-range: the caller's descriptors reach the agent. */
	(void)keep;
	return 0;
#endif
	/* Seam: a kernel before 5.9 (ENOSYS) or a profile refusing the call. */
	if ((rc = sv_fault("close_range")) < 0) {
		errno = -rc;
		rc = 0;
	} else if (keep < 3) {
		if (syscall(SYS_close_range, 3u, ~0u, 0u) == 0)
			return 0;
	} else if ((keep == 3 || syscall(SYS_close_range, 3u, (unsigned)keep - 1, 0u) == 0) &&
		   syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0u) == 0)
		return 0;
	if (errno != ENOSYS)
		return -errno;
	/* Before 5.9: every entry of our own table, then check the directory
	 * descriptor itself is the last one left. */
	d = opendir("/proc/self/fd");
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		int fd;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		fd = atoi(e->d_name);
		if (fd < 3 || fd == keep || fd == dirfd(d))
			continue;
		if (close(fd) != 0 && errno != EBADF && rc == 0)
			rc = -errno;
	}
	closedir(d);
	return rc;
}

void sv_contain_reap(pid_t agent, int status_fd)
{
	int agent_status = -1;

	for (;;) {
		int status;
		pid_t w = waitpid(-1, &status, __WALL);

		if (w == agent)
			agent_status = status;
		if (w < 0 && errno == ECHILD)
			break;
	}
	if (write(status_fd, &agent_status, sizeof(agent_status)) < 0)
		_exit(1);
	_exit(0);
}
