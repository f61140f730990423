#include "contain.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <linux/nsfs.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fault.h"
#include "mountinfo.h"
#include "landlock.h"
#include "rootfs.h"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
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

/* The choice, made once (sv_contain_setup) for every child of the run: the
 * probe's canary must be contained exactly as the agent. */
static struct {
	int done, err, userns_err;
	int in_userns; /* entered our own user namespace: its CAP_SYS_ADMIN goes at settle */
	enum sv_contain_mode mode;
} C;

/* Writes one line to a /proc/self file of the id mapping. */
static int write_proc_self(const char *name, const char *text)
{
	char path[64];
	int fd, rc = 0;
	size_t len = strlen(text);

	snprintf(path, sizeof(path), "/proc/self/%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	{
		ssize_t n = write(fd, text, len);

		/* A short write sets no errno: without -EIO it read as 0. */
		if (n != (ssize_t)len)
			rc = n < 0 ? -errno : -EIO;
	}
	close(fd);
	return rc;
}

/* Whether /proc/self/NAME (an id map) holds a line already. */
static int map_written(const char *name)
{
	char path[64], buf[8];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n > 0;
}

/* Our own capability sets to exactly keep (a mask of bits 0..31), the
 * inheritable and ambient sets empty. With clear_bounding (which needs the
 * CAP_SETPCAP we have only on entering the namespace) the bounding set is
 * emptied too, so no exec could bring anything back. */
static int keep_only_caps(unsigned keep, int clear_bounding)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2] = {{0}};

	for (int cap = 0; clear_bounding && cap < 64; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL)
			return -errno;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
		return -errno;
	d[0].effective = d[0].permitted = keep;
	return syscall(SYS_capset, &h, d) == 0 ? 0 : -errno;
}

/* Into a user namespace of our own: unshare, our ids mapped to themselves,
 * only CAP_SYS_ADMIN kept (see enter_userns). *inside says whether the
 * unshare was done (and we are in the namespace for good). Returns 0 or the
 * -errno of the first step that failed. */
static int userns_steps(int *inside)
{
	char map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int rc;

	*inside = 0;
	if (unshare(CLONE_NEWUSER) != 0)
		return -errno;
	*inside = 1;
	/* A non-dumpable process's /proc/self files belong to root, so ours
	 * cannot be opened for writing: dumpable for the three writes, while
	 * no child of ours exists yet. */
	prctl(PR_SET_DUMPABLE, 1);
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	/* Seam: another process of our uid writes the map first. */
	if (sv_fault("map_taken") < 0)
		(void)write_proc_self("uid_map", map);
	rc = write_proc_self("uid_map", map);
	/* An unprivileged gid_map needs setgroups off first (user_namespaces(7)). */
	if (rc == 0)
		rc = write_proc_self("setgroups", "deny");
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	if (rc == 0)
		rc = write_proc_self("gid_map", map);
#ifndef SV_MUTANT_MAP_TAKEN_TRUSTED
	/* MUTANT map-taken-trusted: a map another process wrote reads as the
	 * host's refusal (EPERM), and the trial picks the subreaper. Dumpable
	 * for the writes, our maps can be written by any process of our uid
	 * (it owns the namespace): a map that refused us but holds a line was
	 * written by another, not refused by the host (review h-attack67:
	 * a parallel run's agent did it 20 of 20, the run passed weaker). */
	if (rc < 0 && (map_written("uid_map") || map_written("gid_map")))
		rc = -EBUSY;
#else
	(void)map_written;
#endif
	if (prctl(PR_SET_DUMPABLE, 0) != 0 && rc == 0)
		rc = -errno;
#ifdef SV_MUTANT_USERNS_KEEPS_PTRACE
	/* MUTANT userns-keeps-ptrace: every capability the new namespace gave
	 * us is kept, CAP_SYS_PTRACE over the agent among them: Yama 2 and a
	 * non-dumpable agent stop meaning what they mean. */
	return rc;
#endif
	if (rc == 0)
		rc = keep_only_caps(1u << CAP_SYS_ADMIN_BIT, 1);
	return rc;
}

/* The whole of it first in a child that dies with it, the pid and mount
 * namespaces the children need included: a host may let a user namespace
 * be made and refuse what it gives (Ubuntu's
 * apparmor_restrict_unprivileged_userns denies the capabilities inside, so
 * the uid_map write fails), and that must not be found out from inside our
 * own, where we would have to stay. The child's answer comes back whole in
 * shared memory, not as its exit status: that keeps 8 bits, and a seccomp
 * profile may answer with any errno up to 4095 (256 read as 0, "ok", would
 * send us into a namespace we then could not complete: review h-attack8).
 * Returns 0 or the -errno of the first step that failed. */
static int userns_trial(void)
{
	int status, inside, rc;
	int *res =
	    mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid;

	if (res == MAP_FAILED)
		return -errno;
	*res = -ECHILD;
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		munmap(res, sizeof(int));
		return rc;
	}
	if (pid == 0) {
		rc = userns_steps(&inside);
		if (rc == 0 && unshare(CLONE_NEWPID | CLONE_NEWNS) != 0)
			rc = -errno;
		*res = rc;
		_exit(rc == 0 ? 0 : 1);
	}
	while ((rc = (int)waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (rc < 0)
		rc = -errno;
	else if (!WIFEXITED(status))
		rc = -ECHILD;
#ifdef SV_MUTANT_TRIAL_EXIT_CODE
	/* MUTANT trial-exit-code: the answer read from the exit status's 8
	 * bits, as before: errno 256 is read as success. */
	else
		rc = *res == 0 ? 0 : -(-*res & 0xff);
#else
	else
		rc = WEXITSTATUS(status) == 0 && *res == 0 ? 0 : *res < 0 ? *res : -ECHILD;
#endif
	munmap(res, sizeof(int));
	return rc;
}

/* Whether the user namespace we were started in is owned by our own uid
 * (a rootless container's, an unshare -U sandbox), or cannot be told, read
 * once before ours exists (inside ours the owner is always us). There any
 * process of our uid holds every capability over it and over the mount
 * namespaces it owns: it may write its user.max_*_namespaces (review
 * h-attack68), mount over / (current_chrooted: unshare(CLONE_NEWUSER) is
 * EPERM) or over a file of /proc (mount_too_revealing: the children's proc
 * mount is EPERM; review h-attack69), so no refusal met there is the
 * host's. The initial namespace's owner reads as 0. Returns 1 (ours, or
 * unreadable), 0 (another uid's), or USERNS_ABSENT where the kernel's own
 * /proc/self/ns has no "user": a kernel built without CONFIG_USER_NS,
 * where no sandbox of ours can exist and the host's refusals are the
 * host's (Debian's patched source answers EPERM there, a vanilla one
 * EINVAL). Counted as ours, as f896633 did, every uid-1000 run on such a
 * kernel was refused (cwd-shut on min-6.1). The directory must be proven
 * the kernel's first (open_ns_dir): whoever may mount over /proc (a
 * process of the uid in a namespace it owns) can put a directory without
 * the entry on the way to it; a mount over the entry itself leaves a name
 * that opens. */
#define USERNS_ABSENT 2
static int ns_dir_is_procfs(int dir)
{
	struct statfs sfs;

#ifdef SV_MUTANT_USERNS_ABSENT_UNPROVEN
	/* MUTANT userns-absent-unproven: a /proc without "self/ns/user" is
	 * believed whatever file system it is on. */
	(void)dir;
	(void)sfs;
	return 1;
#endif
	/* Seam ns_dir: a directory another file system put over /proc. */
	return fstatfs(dir, &sfs) == 0 && sfs.f_type == PROC_SUPER_MAGIC && sv_fault("ns_dir") == 0;
}

/* /proc/self/ns, opened O_PATH. *proven says the directory is the kernel's
 * own: /proc is procfs, and self/ns was reached from it without crossing a
 * mount (openat2 RESOLVE_NO_XDEV, beneath /proc). The fstatfs of the
 * directory alone proves nothing (review h-attack72): a process of the uid
 * in a mount namespace it owns binds another procfs directory without
 * "user" over /proc/PID/ns (/proc/PID/fdinfo, /proc/sys/net), or covers
 * the /proc/self symlink itself with one leading to a directory of its own
 * whose ns is /proc/thread-self/fdinfo (no pid needed: every later
 * process of the namespace); all of it is procfs, and the run fell back
 * and passed, 3 of 3 each. Where the proof cannot be made (openat2 is
 * ENOSYS before 5.6, or a mount was in the way) the directory is still
 * opened by its name, for the owner it shows, but unproven. */
static int open_ns_dir(int *proven)
{
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			       .resolve =
				   RESOLVE_NO_XDEV | RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS};
	int proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC), dir = -1;

#ifdef SV_MUTANT_NS_DIR_THROUGH_MOUNTS
	/* MUTANT ns-dir-through-mounts: self/ns is looked up through
	 * whatever is mounted on the way, as 710f27f did: a procfs directory
	 * bound over it passes for the kernel's. */
	how.resolve = 0;
#endif
	*proven = 0;
	if (proc >= 0 && ns_dir_is_procfs(proc)) {
		dir = (int)syscall(SYS_openat2, proc, "self/ns", &how, sizeof(how));
		*proven = dir >= 0;
	}
	if (proc >= 0)
		close(proc);
	if (dir < 0)
		dir = open("/proc/self/ns", O_PATH | O_DIRECTORY | O_CLOEXEC);
	return dir;
}

static int started_in_our_userns(void)
{
	static int known = -1;
	uid_t owner;
	int dir, fd = -1, err = 0, proven;

	if (known >= 0)
		return known;
	dir = open_ns_dir(&proven);
	if (dir >= 0) {
		fd = openat(dir, "user", O_RDONLY | O_CLOEXEC);
		/* Seam ns_user: the entry missing, as without CONFIG_USER_NS. */
		err = fd < 0 ? errno : -sv_fault("ns_user");
		if (fd >= 0 && err) {
			close(fd);
			fd = -1;
		}
	}
	if (fd < 0 && err == ENOENT && proven) {
#ifndef SV_MUTANT_USERNS_ABSENT_OURS
		/* MUTANT userns-absent-ours: a kernel without user namespaces
		 * reads as a namespace our uid owns, and every uid-1000 run
		 * there is refused (f896633). */
		known = USERNS_ABSENT;
#endif
	}
	if (known < 0)
		known = fd < 0 || ioctl(fd, NS_GET_OWNER_UID, &owner) != 0 || owner == geteuid();
	if (fd >= 0)
		close(fd);
	if (dir >= 0)
		close(dir);
	return known;
}

/* Whether one of the host's user.max_*_namespaces limits is 0, read once
 * before our user namespace exists: inside it the files show that
 * namespace's own limits (INT_MAX), not the host's. Only asked outside a
 * namespace our uid owns (started_in_our_userns). */
static int host_limit_zero(void)
{
	static const char *const kinds[] = {"user", "pid", "mnt", "ipc"};
	static int known = -1;

	if (known >= 0)
		return known;
	known = 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && !known; i++) {
		char path[64], buf[32] = {0};
		int fd;
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/sys/user/max_%s_namespaces", kinds[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		known = n > 0 && atol(buf) == 0;
	}
	return known;
}

/* Into a user namespace of our own, with only CAP_SYS_ADMIN in it (for the
 * children's pid and mount namespaces). The namespace's owner rule gives
 * every capability in it only to a process of its parent namespace; from
 * inside, our own sets decide, and they no longer hold CAP_SYS_PTRACE: the
 * ptrace rules between us and the agent (Yama 2, non-dumpable, same uid,
 * the descendant rule) are those of the host, and commoncap's same-
 * namespace rule holds because the agent lives in this namespace too with
 * no capability at all. Returns 0, or -errno with nothing changed (the
 * trial or the unshare refused), or -EOWNERDEAD when we are inside but
 * could not map our ids or lower our capabilities although the trial
 * could: the run must not go on. */
static int enter_userns(void)
{
	int rc = sv_fault("userns"), inside;

#ifdef SV_MUTANT_NO_USERNS
	/* MUTANT no-userns: the old shape for uid 1000 (subreaper, Landlock):
	 * a supervisor the agent can signal (before 6.12) or have OOM-killed
	 * leaves the agent's descendants alive. */
	return -EPERM;
#endif
	if (rc < 0)
		return rc;
#ifdef SV_MUTANT_USERNS_UNTRIED
	/* MUTANT userns-untried: no trial; a namespace that gives nothing is
	 * found out from inside it. */
	(void)userns_trial;
#else
	/* The previous run's namespaces, freed after a grace period, may
	 * still count (review h-attack8): ENOSPC is asked again a while, as
	 * for the unshare below, before it is believed (review h-attack65:
	 * it is no longer a fall-back). */
	for (int tries = 0; (rc = userns_trial()) == -ENOSPC && !sv_contain_host_refuses(rc) &&
			    tries < SV_NS_ENOSPC_TRIES;
	     tries++)
		usleep(SV_NS_ENOSPC_WAIT_US);
	if (rc < 0)
		return rc;
#endif
	/* The trial's namespaces are freed after an RCU grace period and a
	 * work item, not when waitpid returns: until then they still count
	 * against user.max_user_namespaces, so a uid with one namespace left
	 * would have it taken by its own trial (review h-attack8). A refusal
	 * to unshare leaves nothing changed, so ENOSPC is tried again a while. */
	for (int tries = 0;; tries++) {
		rc = userns_steps(&inside);
#ifdef SV_MUTANT_TRIAL_HOLDS_SLOT
		/* MUTANT trial-holds-slot: no second try: the trial's own
		 * namespace, not yet freed, makes us fall back. */
		break;
#endif
		if (rc != -ENOSPC || inside || tries >= SV_NS_ENOSPC_TRIES)
			break;
		usleep(SV_NS_ENOSPC_WAIT_US);
	}
	return rc < 0 && inside ? -EOWNERDEAD : rc;
}

int sv_contain_setup(void)
{
	int rc;

	C.done = 1;
	C.userns_err = 0;
#ifdef SV_MUTANT_ROOT_AGENT_OPEN
	/* MUTANT root-agent-open: the agent is a plain child, as before: a
	 * root agent owns /proc/sys and /sys. */
	C.mode = SV_CONTAIN_SUBREAPER;
	return 0;
#endif
#ifdef SV_MUTANT_OLD_DESCENDANT_KILL
	/* MUTANT old-descendant-kill: no namespace either, so nothing but the
	 * old kill loop stands between the agent's tree and the end. */
	C.mode = SV_CONTAIN_SUBREAPER;
	return 0;
#endif
	if (have_effective_cap(CAP_SYS_ADMIN_BIT)) {
		C.mode = SV_CONTAIN_PIDNS;
		return 0;
	}
	if (geteuid() == 0) {
		C.err = -EPERM;
		return 0;
	}
	/* The host's limits, read where they are the host's. */
	(void)host_limit_zero();
	(void)started_in_our_userns();
	rc = enter_userns();
	if (rc == -EOWNERDEAD)
		return rc;
	/* Used up for the moment, not refused by the host: no weaker mode
	 * that another process of our uid chose for us. */
	if (rc < 0 && !sv_contain_host_refuses(rc)) {
		C.mode = SV_CONTAIN_SUBREAPER;
		C.err = rc;
		return 0;
	}
	C.in_userns = rc == 0;
	C.mode = rc == 0 ? SV_CONTAIN_USERNS : SV_CONTAIN_SUBREAPER;
	C.userns_err = rc;
	return 0;
}

int sv_contain_choose(enum sv_contain_mode *out)
{
	if (!C.done)
		return -EINVAL;
	*out = C.mode;
	return C.err;
}

/* The errnos a host refuses namespaces with (an allow-list, not the errnos
 * of what can be used up): one list for the fallback and for the hint of a
 * refusal in a namespace our uid owns. */
static int host_refusal_errno(int err)
{
	return err == -EPERM || err == -EACCES || err == -EINVAL || err == -ENOSYS ||
	       err == -EUSERS;
}

int sv_contain_host_refuses(int err)
{
#ifdef SV_MUTANT_FALLBACK_ANY_ERRNO
	/* MUTANT fallback-any-errno: every refusal is the host's, as before
	 * review h-attack65. */
	return 1;
#endif
#ifndef SV_MUTANT_OWN_USERNS_HOSTS
	/* MUTANT own-userns-hosts: a refusal in a user namespace our uid owns,
	 * its zero limits included, is the host's (reviews h-attack68 and
	 * h-attack69: each passed in the subreaper 3 of 3). */
	if (started_in_our_userns() == 1)
		return 0;
#endif
	/* An allow-list, not the errnos of what can be used up: an errno no
	 * one foresaw (another process's interference, a profile's errno 256)
	 * refuses the run with its name, never runs it weaker. EUSERS: nested
	 * 32 user namespaces deep, where the host put us. */
	if (host_refusal_errno(err))
		return 1;
	return err == -ENOSPC && host_limit_zero();
}

int sv_contain_refused_as_ours(int err)
{
	/* Root's refusals are its own (no CAP_SYS_ADMIN): it never falls back,
	 * and init's namespace, whose owner reads as 0, is no sandbox of its. */
	if (geteuid() == 0 || started_in_our_userns() != 1)
		return 0;
	return host_refusal_errno(err) || err == -ENOSPC;
}

void sv_contain_fall_back(int err)
{
	C.mode = SV_CONTAIN_SUBREAPER;
	C.userns_err = err;
}

int sv_contain_userns_err(void)
{
	return C.userns_err;
}

int sv_contain_settle(void)
{
#ifdef SV_MUTANT_USERNS_KEEPS_PTRACE
	return 0;
#endif
#ifdef SV_MUTANT_FALLBACK_KEEPS_ADMIN
	/* MUTANT fallback-keeps-admin: only user-namespace mode drops it, so a
	 * supervisor that fell back to the subreaper inside its namespace keeps
	 * CAP_SYS_ADMIN there for the whole run. */
	return C.mode == SV_CONTAIN_USERNS ? keep_only_caps(0, 0) : 0;
#endif
	/* In our namespace whatever the children got: after a fall-back
	 * (sv_contain_fall_back) the subreaper's agent lives in it too. */
	return C.in_userns ? keep_only_caps(0, 0) : 0;
}

const char *sv_contain_name(enum sv_contain_mode m)
{
	if (m == SV_CONTAIN_PIDNS)
		return "pid-namespace";
	if (m == SV_CONTAIN_USERNS)
		return "user-namespace+pid-namespace+landlock";
	return sv_landlock_signal_scoped() ? "subreaper+landlock+signal-scope"
					   : "subreaper+landlock";
}

int sv_contain_judges_names(enum sv_contain_mode m)
{
	return m == SV_CONTAIN_PIDNS;
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

	if (statvfs(path, &sv) != 0)
		return -errno;
	return mount(NULL, path, NULL,
		     MS_REMOUNT | MS_BIND | MS_RDONLY | sv_mountinfo_statvfs_flags(sv.f_flag),
		     NULL) == 0
		   ? 0
		   : -errno;
}

/* path is not a mount point of its own (a directory or file of /proc):
 * bind it onto itself first, then make that bind read-only. */
static int bind_ro(const char *path)
{
	if (mount(path, path, NULL, MS_BIND, NULL) != 0)
		return -errno;
	return remount_ro(path);
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
		if (!sv_mountinfo_is_kernel_fs(t[i].type))
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

int sv_contain_mounts(int knobs_ro, int *ns_step)
{
	char cwd[4096];
	int rc, have_cwd = getcwd(cwd, sizeof(cwd)) != NULL, cwd_err = errno;

	*ns_step = 1;

	/* Private first: the remounts below must not propagate to the host's
	 * namespace (a shared root would carry them). */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return -errno;
		/* A working directory that cannot be named (removed, or a longer path)
		 * would leave a root agent in the caller's mount, which none of what
		 * follows reaches (review h-attack18). */
#ifndef SV_MUTANT_CWD_UNNAMED_KEPT
	/* MUTANT cwd-unnamed-kept: an unnamed working directory is left as it
	 * is, in the caller's mounts (no read-back of it either). */
	if (knobs_ro && !have_cwd) {
		*ns_step = 0;
		rc = -cwd_err;
		fprintf(stderr,
			"egress-supervisor: a root agent's files: the working directory cannot be "
			"named (%s): it would stay in the caller's mounts; start the supervisor in "
			"a directory that exists\n",
			strerror(-rc));
		return rc;
	}
#else
	(void)cwd_err;
#endif
	/* Before the new proc covers the old one, so the old /proc (which a
	 * working directory inside it still reaches) is read-only too. */
	if (knobs_ro && (rc = kernel_fs_read_only()) < 0)
		return rc;
	/* The host's files and devices, while the old /proc still says what
	 * is mounted where (the new one would too, but the old /dev's nodes
	 * are read before the new /dev covers them). */
	if (knobs_ro && (rc = sv_rootfs_confine()) < 0)
		return rc;
	/* A proc of the new pid namespace over the old one: only the
	 * namespace's own processes are visible. The old mount and whatever
	 * was mounted under it are hidden, and unmounting needs CAP_SYS_ADMIN. */
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
		return -errno;
	/* The new proc's knobs: writable by uid 0 through their file modes
	 * (sv_rootfs_proc_knobs: the sysctls, sysrq, the hardware's). */
	for (int i = 0; knobs_ro && sv_rootfs_proc_knobs[i]; i++)
		if (access(sv_rootfs_proc_knobs[i], F_OK) == 0 &&
		    (rc = bind_ro(sv_rootfs_proc_knobs[i])) < 0)
			return rc;
	/* Last of the mounts, so that nothing above makes them read-only
	 * again. */
	if (knobs_ro && (rc = sv_rootfs_open_declared()) < 0)
		return rc;
	/* The working directory by path again: it lands on the new mounts
	 * where it was under the old /proc, and on a declared path's writable
	 * bind where it was under that path. */
	if (have_cwd && chdir(cwd) != 0) {
		rc = -errno;
#ifndef SV_MUTANT_CWD_REFUSAL_HOSTS
		/* MUTANT cwd-refusal-hosts: the directory's EACCES reads as the
		 * host refusing namespaces, and the run falls back. */
		*ns_step = 0;
#endif
		if (knobs_ro)
			fprintf(stderr,
				"egress-supervisor: a root agent's files: the working directory %s "
				"is not in the agent's namespace (%s): under /dev, /proc or a "
				"mount it cannot see; start the supervisor elsewhere\n",
				cwd, strerror(-rc));
		return rc;
	}
	/* Read back, whatever each step said it did. */
	return knobs_ro ? sv_rootfs_check() : 0;
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

		if (w == agent) {
			agent_status = status;
#ifndef SV_MUTANT_AGENT_STATUS_AT_END
			/* Said now, not when the namespace is empty: a run cut
			 * short while a process the agent left lives on (ssh's
			 * ControlPersist master) kills this reaper before it
			 * could say, and the agent that had exited 0 was
			 * reported killed (review h-realprog4). */
			if (write(status_fd, &status, sizeof(status)) < 0)
				_exit(1);
#endif
		}
		if (w < 0 && errno == ECHILD)
			break;
	}
#ifdef SV_MUTANT_AGENT_STATUS_AT_END
	/* MUTANT agent-status-at-end: said only once the namespace is empty. */
	if (write(status_fd, &agent_status, sizeof(agent_status)) < 0)
		_exit(1);
#else
	/* The agent never reaped (it never ran): -1 says so. */
	if (agent_status == -1 && write(status_fd, &agent_status, sizeof(agent_status)) < 0)
		_exit(1);
#endif
}
