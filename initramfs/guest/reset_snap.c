/*
 * egress-reset's snapshots (reset.h): the guest's state, one section at a
 * time, one line per item, sorted where the kernel's order means nothing.
 */
#include "reset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#define PF_KTHREAD 0x00200000 /* include/linux/sched.h */

const char *const rs_sect_names[RS_NSECT] = {
    "cgroups", "mounts", "tmp", "dev", "rootfs", "network", "xfrm",  "modules",
    "sysctl",  "taint",  "ipc", "bpf", "knobs",  "init",    "clock", "keys"};

/* Directories below the cgroup2 root, three levels deep. */
static void cgroup_walk(struct rs_buf *out, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_type != DT_DIR || strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0)
			continue;
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		rs_buf_printf(out, "%s\n", path);
		if (depth < 3)
			cgroup_walk(out, path, depth + 1);
	}
	closedir(d);
}

#define CGROUP_ROOT "/sys/fs/cgroup"

static const char *cell_cg;
static const struct rs_baseline *base;

static int snap_cgroups(struct rs_buf *out)
{
	if (*cell_cg)
		cgroup_walk(out, CGROUP_ROOT, 1);
	rs_lines_sort(out);
	return 0;
}

/* /proc/self/mounts as the kernel lists it (order is stacking order). */
static int snap_mounts(struct rs_buf *out)
{
	return rs_read_file("/proc/self/mounts", out);
}

/* DIR itself (mode, owner) and, after the boot, every name in it. */
static int snap_dir(struct rs_buf *out, const char *dir)
{
	struct stat st;
	DIR *d = opendir(dir);
	struct dirent *e;

	if (stat(dir, &st) < 0 || !d) {
		int err = -errno;

		if (d)
			closedir(d);
		return err;
	}
	rs_buf_printf(out, "%s %o %u:%u\n", dir, (unsigned)st.st_mode, (unsigned)st.st_uid,
		      (unsigned)st.st_gid);
	while (!!base && (e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			rs_buf_printf(out, "%s/%s\n", dir, e->d_name);
	closedir(d);
	return 0;
}

/* /tmp, the sink's own tmpfs (RS_SINK_DIR) and init's work directory
 * (RS_WORK_DIR), each itself and every name in it; at boot themselves only
 * ($SV is in /tmp and $W's files are made anew for every cell; the sink's
 * files are made by each cell with sink=). A guest without the sink's
 * directory (its mount failed at boot: no cell runs a sink then) says so,
 * as at boot. */
static int snap_tmp(struct rs_buf *out)
{
	int r = snap_dir(out, "/tmp");

	if (r < 0)
		return r;
	if ((r = snap_dir(out, RS_WORK_DIR)) < 0)
		return r;
	if (access(RS_SINK_DIR, F_OK) < 0)
		rs_buf_printf(out, "%s missing\n", RS_SINK_DIR);
	else if ((r = snap_dir(out, RS_SINK_DIR)) < 0)
		return r;
	rs_lines_sort(out);
	return 0;
}

/*
 * A directory's own state in place of its ctime: its inode flags
 * (FS_IOC_GETFLAGS: an immutable or append-only directory refuses later
 * cells' services) and a digest of its extended attributes, names and
 * values (a default ACL is one, and reaches every file made in it later).
 * A directory's ctime also moves when a name is made in it or removed,
 * which the reset undoes (extras removed) but cannot set back; everything
 * else that moves it (mode, owner, the names it holds, and each name's own
 * ctime for a rename) is compared line by line.
 */
static void dir_state(struct rs_buf *out, const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int flags = 0;
	char names[4096], val[4096];
	unsigned long long h = 1469598103934665603ULL; /* FNV-1a 64 */

	if (fd < 0) {
		rs_buf_printf(out, " dir unopened:%d", errno);
		return;
	}
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
		rs_buf_printf(out, " dir flags=e%d",
			      errno == ENOTTY || errno == EINVAL ? 0 : errno);
	else
		rs_buf_printf(out, " dir flags=%x", (unsigned)flags);
	ssize_t n = flistxattr(fd, names, sizeof(names));

	if (n < 0) {
		rs_buf_printf(out, " xattrs=e%d", errno == ENOTSUP ? 0 : errno);
		close(fd);
		return;
	}
	/* The kernel lists the names in its own order; each name and value
	 * folds into the digest after a separator, so the order it lists them
	 * in is the boot's as long as the set is (tmpfs keeps insertion
	 * order: a removed and re-added attribute reads as a change). */
	for (ssize_t i = 0; i < n;) {
		size_t len = strlen(names + i);
		ssize_t v = fgetxattr(fd, names + i, val, sizeof(val));

		for (size_t k = 0; k <= len; k++)
			h = (h ^ (unsigned char)names[i + (ssize_t)k]) * 1099511628211ULL;
		for (ssize_t k = 0; k < v; k++)
			h = (h ^ (unsigned char)val[k]) * 1099511628211ULL;
		h = (h ^ (unsigned long long)(v < 0 ? 0x100 + errno : 0x200)) * 1099511628211ULL;
		i += (ssize_t)len + 1;
	}
	rs_buf_printf(out, " xattrs=%zd:%016llx", n, h);
	close(fd);
}

/*
 * Every name under DIR on DIR's filesystem: "path size mode uid:gid ctime"
 * (the ctime, which no one can set back, unlike the mtime; for a directory
 * its state, dir_state, instead); with WHOLE false (/dev) only "path mode
 * uid:gid rdev". A directory of another filesystem (a mount point: /tmp,
 * /run, /proc, /sys, /dev) is left out.
 */
static void tree_walk(struct rs_buf *out, const char *dir, dev_t dev, bool whole)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d) {
		rs_buf_printf(out, "%s unreadable: %s\n", dir, strerror(errno));
		return;
	}
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", strcmp(dir, "/") ? dir : "", e->d_name);
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			rs_buf_printf(out, "%s gone while listed\n", path);
			continue;
		}
		if (st.st_dev != dev)
			continue;
		rs_buf_escape(out, path, strlen(path));
		if (whole && S_ISDIR(st.st_mode)) {
			rs_buf_printf(out, " %lld %o %u:%u", (long long)st.st_size,
				      (unsigned)st.st_mode, (unsigned)st.st_uid,
				      (unsigned)st.st_gid);
			dir_state(out, path);
			rs_buf_add(out, "\n", 1);
		} else if (whole)
			rs_buf_printf(out, " %lld %o %u:%u %lld.%09ld\n", (long long)st.st_size,
				      (unsigned)st.st_mode, (unsigned)st.st_uid,
				      (unsigned)st.st_gid, (long long)st.st_ctim.tv_sec,
				      st.st_ctim.tv_nsec);
		else
			rs_buf_printf(out, " %o %u:%u %llx\n", (unsigned)st.st_mode,
				      (unsigned)st.st_uid, (unsigned)st.st_gid,
				      (unsigned long long)st.st_rdev);
		if (S_ISDIR(st.st_mode))
			tree_walk(out, path, dev, whole);
	}
	closedir(d);
}

static int snap_tree(struct rs_buf *out, const char *top, bool whole)
{
	struct stat st;

	if (lstat(top, &st) < 0)
		return -errno;
	rs_buf_printf(out, "%s %o %u:%u", top, (unsigned)st.st_mode, (unsigned)st.st_uid,
		      (unsigned)st.st_gid);
	if (whole)
		dir_state(out, top);
	rs_buf_add(out, "\n", 1);
	tree_walk(out, top, st.st_dev, whole);
	rs_lines_sort(out);
	return 0;
}

static int snap_dev(struct rs_buf *out)
{
	return snap_tree(out, "/dev", false);
}

static int snap_rootfs(struct rs_buf *out)
{
	return snap_tree(out, "/", true);
}

/* Module names, newest first as /proc/modules lists them (the order rmmod
 * needs); compared as a set. No /proc/modules: no module support. */
int rs_module_names(struct rs_buf *out)
{
	struct rs_buf all = {0};
	int err = rs_read_file("/proc/modules", &all);

	for (size_t i = 0; !err && i < all.len;) {
		const char *nl = memchr(all.p + i, '\n', all.len - i);
		size_t end = nl ? (size_t)(nl - all.p) : all.len;
		size_t n = strcspn(all.p + i, " \n");

		rs_buf_add(out, all.p + i, n < end - i ? n : end - i);
		rs_buf_add(out, "\n", 1);
		i = end + 1;
	}
	rs_buf_free(&all);
	return err == -ENOENT ? 0 : err;
}

static int snap_modules(struct rs_buf *out)
{
	int err = rs_module_names(out);

	rs_lines_sort(out);
	return err;
}

/*
 * Writable sysctls (read-only ones no cell can change), "path\tvalue" with
 * the value escaped, or "path\t!errno" when it cannot be read (a
 * write-only knob, or stable_secret before it is set: a change of that is a
 * change too). Left out: what the kernel changes by itself.
 */
static const char *const sysctl_volatile[] = {
    "/proc/sys/kernel/ns_last_pid",
    "/proc/sys/kernel/tainted",
    "/proc/sys/kernel/hung_task_warnings",
    "/proc/sys/kernel/perf_event_max_sample_rate",
};

static bool sysctl_skip(const char *path)
{
	for (size_t i = 0; i < sizeof(sysctl_volatile) / sizeof(sysctl_volatile[0]); i++)
		if (strcmp(path, sysctl_volatile[i]) == 0)
			return true;
	return false;
}

/* "path\tvalue\n" for one sysctl. One read: a sysctl hands its whole value
 * to the first read that has room for it (proc_sys_call_handler), and under
 * TCG every system call counts. */
static void sysctl_line(struct rs_buf *out, const char *path)
{
	static char v[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, v, sizeof(v));
	int err = n < 0 ? errno : 0;

	if (fd >= 0)
		close(fd);
	rs_buf_printf(out, "%s\t", path);
	if (err)
		rs_buf_printf(out, "!%d", err);
	else
		rs_buf_escape(out, v, (size_t)n);
	rs_buf_add(out, "\n", 1);
}

static void sysctl_walk(struct rs_buf *out, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode))
			sysctl_walk(out, path);
		else if (S_ISREG(st.st_mode) && (st.st_mode & S_IWUSR) && !sysctl_skip(path))
			sysctl_line(out, path);
	}
	closedir(d);
}

/*
 * At boot the walk finds the writable sysctls; later the boot's list is read
 * again (the walk's stat of every file is what costs). No cell adds a
 * sysctl but by loading a module or making a link, which the modules and
 * network checks refuse.
 */
static int snap_sysctl(struct rs_buf *out)
{
	if (!base) {
		sysctl_walk(out, "/proc/sys");
	} else {
		const char *b = base->sect[RS_SYSCTL];
		size_t blen = base->len[RS_SYSCTL];

		for (size_t off = 0; off < blen;) {
			const char *nl = memchr(b + off, '\n', blen - off);
			size_t end = nl ? (size_t)(nl - b) : blen;
			char path[4096];

			snprintf(path, sizeof(path), "%.*s", (int)strcspn(b + off, "\t\n"),
				 b + off);
			sysctl_line(out, path);
			off = end + 1;
		}
	}
	rs_lines_sort(out);
	return 0;
}

/* System V shm, msg and sem objects (each file without its header). */
static int snap_ipc(struct rs_buf *out)
{
	static const char *const files[] = {"/proc/sysvipc/shm", "/proc/sysvipc/msg",
					    "/proc/sysvipc/sem"};

	for (size_t i = 0; i < 3; i++) {
		struct rs_buf b = {0};

		if (rs_read_file(files[i], &b) == 0 && b.len) {
			const char *nl = memchr(b.p, '\n', b.len);

			if (nl)
				rs_buf_add(out, nl + 1, b.len - (size_t)(nl + 1 - b.p));
		}
		rs_buf_free(&b);
	}
	return 0;
}

/* kernel.tainted, recorded (the kernel sets it by itself: info only). */
static int snap_taint(struct rs_buf *out)
{
	int err = rs_read_file("/proc/sys/kernel/tainted", out);

	if (err)
		rs_buf_add(out, "?\n", 2);
	return 0;
}

typedef int (*snap_fn)(struct rs_buf *);
static const snap_fn snaps[RS_NSECT] = {
    snap_cgroups,  snap_mounts,  snap_tmp,      snap_dev,     snap_rootfs, rs_net_snapshot,
    rs_snap_xfrm,  snap_modules, snap_sysctl,   snap_taint,   snap_ipc,    rs_snap_bpf,
    rs_snap_knobs, rs_snap_init, rs_snap_clock, rs_snap_keys,
};

size_t rs_user_procs(struct rs_buf *out, pid_t *pids, size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t n = 0;

	if (!d) {
		rs_buf_add(out, "/proc unreadable;", 17);
		return 1;
	}
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (*end || pid <= 1 || pid == getpid())
			continue;
		char path[64];
		struct rs_buf st = {0};

		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		if (rs_read_file(path, &st) < 0 || !st.len) {
			rs_buf_free(&st);
			continue; /* gone meanwhile */
		}
		const char *open = strchr(st.p, '(');
		const char *close = strrchr(st.p, ')');
		char state = '?';
		unsigned long flags = 0;

		if (open && close && close > open &&
		    sscanf(close + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) == 2 &&
		    (flags & PF_KTHREAD)) {
			rs_buf_free(&st);
			continue;
		}
		rs_buf_printf(out, "%ld %c %.*s;", pid, state,
			      open && close > open ? (int)(close - open - 1) : 1,
			      open && close > open ? open + 1 : "?");
		if (n < max)
			pids[n] = (pid_t)pid;
		n++;
		rs_buf_free(&st);
	}
	closedir(d);
	return n;
}

int rs_snap(int s, const char *cgroup, const struct rs_baseline *boot, struct rs_buf *out)
{
	if (s < 0 || s >= RS_NSECT)
		return -EINVAL;
	cell_cg = cgroup;
	base = boot;
	return snaps[s](out);
}
