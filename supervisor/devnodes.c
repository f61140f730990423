#include "devnodes.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fault.h"

/* What a program may need from /dev. Everything else (block devices,
 * /dev/mem, /dev/port, the serial ports, the console, /dev/kmsg, loop
 * control) stays out of the agent's namespace. The guest's harness keeps
 * the same set for its own reasons (initramfs/guest/hide.c); it must not
 * depend on the supervisor it tests, so the two lists are kept apart. */
static const struct {
	const char *name;
	unsigned major, minor; /* minor ~0u: a misc device's, from /proc/misc */
} kept_nodes[] = {{"null", 1, 3},    {"zero", 1, 5}, {"full", 1, 7},          {"random", 1, 8},
		  {"urandom", 1, 9}, {"tty", 5, 0},  {"userfaultfd", 10, ~0u}};
#define NKEPT (sizeof(kept_nodes) / sizeof(kept_nodes[0]))

static const char *const dev_links[][2] = {{"fd", "/proc/self/fd"},
					   {"stdin", "/proc/self/fd/0"},
					   {"stdout", "/proc/self/fd/1"},
					   {"stderr", "/proc/self/fd/2"}};

/* Which kept nodes are bound mounts (sv_devnodes_bound). */
static int bound[NKEPT];

/* A misc device's minor by its name in /proc/misc ("%u name" lines), or
 * ~0u where it is not listed. Dynamic, so read, never assumed: any number
 * under major 10 let a caller's /dev/fuse pass for userfaultfd (review
 * h-attack74). */
static unsigned misc_minor(const char *name)
{
	FILE *f = fopen("/proc/misc", "re");
	char line[128], got[64];
	unsigned minor, found = ~0u;

	if (!f)
		return ~0u;
	while (found == ~0u && fgets(line, sizeof(line), f))
		if (sscanf(line, "%u %63s", &minor, got) == 2 && strcmp(got, name) == 0)
			found = minor;
	fclose(f);
	return found;
}

static int fail(int err, char *why, size_t len, const char *what, const char *path)
{
	snprintf(why, len, "%s %s", what, path);
	return err;
}

/* The caller's node src (an O_PATH descriptor) bound over an empty file at
 * path: what a user namespace may do where mknod of a device is refused
 * (only the initial namespace's CAP_MKNOD makes one). Read-only, nosuid and
 * noexec like the /dev under it (a device node on a read-only mount still
 * opens for writing); nodev it cannot be. */
static int bind_node(int src, const char *path, char *why, size_t len)
{
	char from[32];
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0)
		return fail(-errno, why, len, "making the mount point", path);
	close(fd);
	snprintf(from, sizeof(from), "/proc/self/fd/%d", src);
	if (mount(from, path, NULL, MS_BIND, NULL) != 0)
		return fail(-errno, why, len, "binding the caller's node to", path);
	if (mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NOEXEC,
		  NULL) != 0)
		return fail(-errno, why, len, "making read-only, nosuid and noexec", path);
	return 0;
}

/* One kept node at path, as the caller's (st, src): mknod, or its bind
 * where the namespace may not make devices. */
static int make_node(size_t i, const struct stat *st, int src, const char *path, char *why,
		     size_t len)
{
	int err = sv_fault("mknod");

	if (err == 0 && mknod(path, S_IFCHR | (st->st_mode & 0777), st->st_rdev) != 0)
		err = -errno;
#ifndef SV_MUTANT_MKNOD_ONLY
	/* MUTANT mknod-only: a namespace that may not make devices refuses
	 * the root agent (review h-attack72: every run of a rootless
	 * container's root was capability-error). */
	if (err == -EPERM && src >= 0) {
		int rc = bind_node(src, path, why, len);

		if (rc == 0)
			bound[i] = 1;
		return rc;
	}
#else
	(void)i;
	(void)src;
	(void)bind_node;
#endif
	if (err)
		return fail(err, why, len, "making (CAP_MKNOD)", path);
	/* mknod's mode is masked by our umask. */
	if (chmod(path, st->st_mode & 0777) != 0)
		return fail(-errno, why, len, "setting the mode of", path);
	return 0;
}

static int make_nodes(const struct stat *st, const int *src, char *why, size_t len)
{
	char path[64];
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < NKEPT; i++) {
		if (!st[i].st_mode)
			continue;
		snprintf(path, sizeof(path), "/dev/%s", kept_nodes[i].name);
		rc = make_node(i, &st[i], src[i], path, why, len);
	}
	for (size_t i = 0; rc == 0 && i < sizeof(dev_links) / sizeof(dev_links[0]); i++) {
		snprintf(path, sizeof(path), "/dev/%s", dev_links[i][0]);
		if (symlink(dev_links[i][1], path) != 0)
			rc = fail(-errno, why, len, "linking", path);
	}
	return rc;
}

static int make_shm_pts(int had_pts, int *pts, char *why, size_t len)
{
	if (mkdir("/dev/shm", 01777) != 0 || chmod("/dev/shm", 01777) != 0)
		return fail(-errno, why, len, "making", "/dev/shm");
	if (mount("egress-shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0)
		return fail(-errno, why, len, "mounting a tmpfs on", "/dev/shm");
	/* Ptys for a program that makes them (script, expect): a devpts of
	 * the namespace's own, so no pty of the host's is reachable by path. */
	if (!had_pts)
		return 0;
	if (mkdir("/dev/pts", 0755) != 0)
		return fail(-errno, why, len, "making", "/dev/pts");
	if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
		  "newinstance,ptmxmode=0666,mode=0620") != 0)
		return fail(-errno, why, len, "mounting a devpts (CONFIG_UNIX98_PTYS) on",
			    "/dev/pts");
	if (symlink("pts/ptmx", "/dev/ptmx") != 0)
		return fail(-errno, why, len, "linking", "/dev/ptmx");
	*pts = 1;
	return 0;
}

int sv_devnodes_make(int *pts, char *why, size_t len)
{
	struct stat st[NKEPT];
	char path[64];
	int src[NKEPT], rc, had_pts = access("/dev/pts/ptmx", F_OK) == 0;

	*pts = 0;
	/* The host's numbers, read before the new /dev covers them. Only a
	 * node with its usual numbers: a caller's /dev may hold another
	 * device under the name. Each is held open (O_PATH, which opens no
	 * device) for a bind where mknod is refused. */
	for (size_t i = 0; i < NKEPT; i++) {
		unsigned want = kept_nodes[i].minor;
		int any = 0;

		/* A misc device not listed keeps ~0u, which no node has. */
		if (want == ~0u)
			want = misc_minor(kept_nodes[i].name);
#ifdef SV_MUTANT_MISC_MINOR_ANY
		/* MUTANT misc-minor-any: any minor of major 10 passes for a
		 * misc device, as before review h-attack74. */
		any = kept_nodes[i].minor == ~0u;
#endif
		snprintf(path, sizeof(path), "/dev/%s", kept_nodes[i].name);
		src[i] = open(path, O_PATH | O_CLOEXEC);
		bound[i] = 0;
		if (src[i] < 0 || fstat(src[i], &st[i]) != 0 || !S_ISCHR(st[i].st_mode) ||
		    major(st[i].st_rdev) != kept_nodes[i].major ||
		    (!any && minor(st[i].st_rdev) != want))
			st[i].st_mode = 0;
	}
	if (mount("egress-dev", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,mode=0755") != 0)
		rc = fail(-errno, why, len, "mounting a tmpfs (CONFIG_TMPFS) on", "/dev");
	else if ((rc = make_nodes(st, src, why, len)) == 0 &&
		 (rc = make_shm_pts(had_pts, pts, why, len)) == 0 &&
		 mount(NULL, "/dev", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NOEXEC,
		       NULL) != 0)
		rc = fail(-errno, why, len, "making read-only", "/dev");
	for (size_t i = 0; i < NKEPT; i++)
		if (src[i] >= 0)
			close(src[i]);
	return rc;
}

int sv_devnodes_bound(const char *mp)
{
	char path[64];

	for (size_t i = 0; i < NKEPT; i++) {
		snprintf(path, sizeof(path), "/dev/%s", kept_nodes[i].name);
		if (bound[i] && strcmp(mp, path) == 0)
			return 1;
	}
	return 0;
}
