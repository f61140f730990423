/*
 * The run's mount namespace (hide.h). Why each piece: the issue 12 reviews
 * found a root agent planting a forged report in init's work directory (now
 * covered), replacing the name /dev/ttyS1 in the shared devtmpfs (now not
 * in the run's /dev at all), and, with CAP_DAC_OVERRIDE, simply opening the
 * result port and writing a forged frame while garbling init's with OLCUC: a
 * read-only mount stops neither writes to a device node nor a node the agent
 * makes itself (CAP_MKNOD) on a writable mount, so those are nodev.
 */
#include "hide.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "names.h"

/* What a program may need from /dev; everything else (the serial ports,
 * the console, /dev/kmsg, /dev/mem, block devices) stays init's. */
static const char *const kept_nodes[] = {"null",    "zero", "full",       "random",
					 "urandom", "tty",  "userfaultfd"};
#define NKEPT (sizeof(kept_nodes) / sizeof(kept_nodes[0]))

static const char *const links[][2] = {{"fd", "/proc/self/fd"},
				       {"stdin", "/proc/self/fd/0"},
				       {"stdout", "/proc/self/fd/1"},
				       {"stderr", "/proc/self/fd/2"}};

/* Nodes ev_hide_check refuses to find (the ones a forged frame or a fake
 * splat would go through). */
static const char *const refused_nodes[] = {"/dev/ttyS0", "/dev/ttyS1", "/dev/console",
					    "/dev/kmsg",  "/dev/mem",   "/dev/port"};

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

/* The per-mount flags of mountinfo's field 6 that a bind remount would
 * otherwise clear. */
static unsigned long mount_flags(const char *opts)
{
	static const struct {
		const char *name;
		unsigned long flag;
	} table[] = {{"ro", MS_RDONLY},        {"nosuid", MS_NOSUID},
		     {"nodev", MS_NODEV},      {"noexec", MS_NOEXEC},
		     {"noatime", MS_NOATIME},  {"nodiratime", MS_NODIRATIME},
		     {"relatime", MS_RELATIME}};
	char buf[256], *save = NULL, *tok;
	unsigned long flags = 0;

	snprintf(buf, sizeof(buf), "%s", opts);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
			if (strcmp(tok, table[i].name) == 0)
				flags |= table[i].flag;
	return flags;
}

static int under_dev(const char *mp)
{
	return strcmp(mp, "/dev") == 0 || strncmp(mp, "/dev/", 5) == 0;
}

#define MAX_MOUNTS 256

struct mount_entry {
	char mp[512];
	unsigned long flags;
};

static struct mount_entry mounts[MAX_MOUNTS];

/* Whether a mount on ABOVE hides everything at or below MP. */
static int covers(const char *above, const char *mp)
{
	size_t n = strlen(above);

	if (strcmp(above, "/") == 0)
		return 1;
	return strncmp(mp, above, n) == 0 && (mp[n] == '\0' || mp[n] == '/');
}

/*
 * Calls FN(mount point, flags, arg) for every mount of this namespace that a
 * path can still reach: mountinfo lists mounts in the order they were made,
 * so one is shadowed when a later one sits on its mount point or above it
 * (the shared devtmpfs under the run's own /dev). Returns FN's first
 * non-zero result, or 0.
 */
static int each_mount(int (*fn)(const char *, unsigned long, void *), void *arg, char *err,
		      size_t errlen)
{
	char line[4096];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int n = 0, i, j, r = 0;

	if (!f)
		return ev_fail(err, errlen, errno, "/proc/self/mountinfo");
	while (fgets(line, sizeof(line), f)) {
		char opts[256];

		if (n == MAX_MOUNTS) {
			fclose(f);
			return ev_fail(err, errlen, E2BIG, "more than %d mounts", MAX_MOUNTS);
		}
		/* id parent major:minor root mountpoint options ... */
		if (sscanf(line, "%*s %*s %*s %*s %511s %255s", mounts[n].mp, opts) != 2)
			continue;
		unescape(mounts[n].mp);
		mounts[n].flags = mount_flags(opts);
		n++;
	}
	fclose(f);
	for (i = 0; i < n && r == 0; i++) {
		int shadowed = 0;

		for (j = i + 1; j < n && !shadowed; j++)
			shadowed = covers(mounts[j].mp, mounts[i].mp);
		if (!shadowed)
			r = fn(mounts[i].mp, mounts[i].flags, arg);
	}
	return r;
}

struct nodev_ctx {
	char *err;
	size_t errlen;
};

static int make_nodev(const char *mp, unsigned long flags, void *arg)
{
	struct nodev_ctx *c = arg;

	/* /dev is replaced below; what is mounted under it goes with it. */
	if (under_dev(mp) || (flags & (MS_RDONLY | MS_NODEV)))
		return 0;
	if (mount(NULL, mp, NULL, MS_REMOUNT | MS_BIND | flags | MS_NODEV, NULL) != 0)
		return ev_fail(c->err, c->errlen, errno, "making %s nodev", mp);
	return 0;
}

static int private_dev(char *err, size_t errlen)
{
	struct stat st[NKEPT];
	int have[NKEPT];
	char path[64];
	size_t i;

	/* Stat before covering: the originals are unreachable afterwards. */
	for (i = 0; i < NKEPT; i++) {
		snprintf(path, sizeof(path), "/dev/%s", kept_nodes[i]);
		have[i] = stat(path, &st[i]) == 0 && S_ISCHR(st[i].st_mode);
	}
	if (mount("egress-dev", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "size=4k,mode=0755") != 0)
		return ev_fail(err, errlen, errno, "mounting the run's own /dev (CONFIG_TMPFS)");
	for (i = 0; i < NKEPT; i++) {
		if (!have[i])
			continue;
		snprintf(path, sizeof(path), "/dev/%s", kept_nodes[i]);
		if (mknod(path, S_IFCHR | (st[i].st_mode & 07777), st[i].st_rdev) != 0)
			return ev_fail(err, errlen, errno, "mknod %s", path);
		/* mknod applies the umask: the original mode, exactly. */
		if (chmod(path, st[i].st_mode & 07777) != 0 ||
		    chown(path, st[i].st_uid, st[i].st_gid) != 0)
			return ev_fail(err, errlen, errno, "chmod/chown %s", path);
	}
	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		snprintf(path, sizeof(path), "/dev/%s", links[i][0]);
		if (symlink(links[i][1], path) != 0)
			return ev_fail(err, errlen, errno, "symlink %s", path);
	}
	if (mount(NULL, "/dev", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NOEXEC,
		  NULL) != 0)
		return ev_fail(err, errlen, errno, "making the run's /dev read-only");
	return 0;
}

int ev_hide_enter(char *err, size_t errlen)
{
	struct nodev_ctx c = {err, errlen};
	int r;

	if (unshare(CLONE_NEWNS) != 0)
		return ev_fail(err, errlen, errno, "unshare(CLONE_NEWNS) (CONFIG_NAMESPACES)");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return ev_fail(err, errlen, errno, "making / private");
	/* A per-mount flag: init's view stays writable. */
	if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) != 0)
		return ev_fail(err, errlen, errno, "/ read-only");
#ifdef GUEST_MUTANT_SHARED_DEV
	/* MUTANT shared-dev: the shared devtmpfs, only read-only, and
	 * writable mounts that allow device nodes (before the third review). */
	(void)c;
	(void)r;
	(void)private_dev;
	(void)make_nodev;
	if (mount(NULL, "/dev", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) != 0)
		return ev_fail(err, errlen, errno, "/dev read-only");
	return 0;
#else
	r = each_mount(make_nodev, &c, err, errlen);
	if (r)
		return r;
	return private_dev(err, errlen);
#endif
}

int ev_hide_cover(const char *dir, char *err, size_t errlen)
{
	if (mount("egress-hidden", dir, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "size=4k,mode=0555") != 0)
		return ev_fail(err, errlen, errno, "covering %s", dir);
	return 0;
}

struct check_ctx {
	char *detail;
	size_t len;
};

static int writable_dev_mount(const char *mp, unsigned long flags, void *arg)
{
	struct check_ctx *c = arg;

	if (flags & (MS_RDONLY | MS_NODEV))
		return 0;
	snprintf(c->detail, c->len, "%s is writable and allows device nodes", mp);
	return -EEXIST;
}

int ev_hide_check(char *detail, size_t len)
{
	struct check_ctx c = {detail, len};
	struct stat st;
	size_t i;
	int r;

#ifdef GUEST_MUTANT_SHARED_DEV
	/* MUTANT shared-dev: nothing read back. */
	(void)c;
	(void)st;
	(void)i;
	(void)r;
	(void)writable_dev_mount;
	snprintf(detail, len, "not checked (mutant shared-dev)");
	return 0;
#endif

	for (i = 0; i < sizeof(refused_nodes) / sizeof(refused_nodes[0]); i++) {
		if (stat(refused_nodes[i], &st) == 0) {
			snprintf(detail, len, "%s is reachable", refused_nodes[i]);
			return -EEXIST;
		}
		if (errno != ENOENT)
			return ev_fail(detail, len, errno, "stat %s", refused_nodes[i]);
	}
	r = each_mount(writable_dev_mount, &c, detail, len);
	if (r)
		return r;
	snprintf(detail, len,
		 "/dev holds no serial port, console or kernel log; every writable mount is nodev");
	return 0;
}
