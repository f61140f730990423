#include "rootfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "devnodes.h"
#include "fault.h"
#include "mountinfo.h"

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif
#ifndef AT_STATX_DONT_SYNC
#define AT_STATX_DONT_SYNC 0x4000
#endif

/* The read-back (sv_rootfs_check) came with each of these steps, and after
 * proc-by-path's: the mutants that put a step back have no read-back
 * either. */
#ifdef SV_MUTANT_ROOT_FILES_WRITABLE
#define NO_READBACK
#endif
#ifdef SV_MUTANT_HOST_DEV
#define NO_READBACK
#endif
#ifdef SV_MUTANT_WRITABLE_DEV
#define NO_READBACK
#endif
#ifdef SV_MUTANT_PROC_BY_PATH
#define NO_READBACK
#endif

/* Where a writable mount would reach the kernel's knobs or devices. */
static const char *const refused_roots[] = {"/proc", "/sys", "/dev"};

static struct {
	const char *const *paths;
	int n;
	char resolved[SV_ROOTFS_MAX_WRITABLE][PATH_MAX];
	int nresolved;
	int nsetid; /* programs bound read-only under them (bind_setid) */
	int pts;    /* this namespace has a devpts of its own at /dev/pts */
	/* Mounts we cover ourselves (the old /dev and /proc and what is under
	 * them), for a kernel whose statx has no mount id (before 5.8). */
	int self_covered[256];
	int nself_covered;
} D;

static int under(const char *path, const char *root)
{
	size_t n = strlen(root);

	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int sv_rootfs_check_declared(const char *path, char *why, size_t len)
{
	if (path[0] != '/') {
		snprintf(why, len, "--writable '%s': want an absolute path", path);
		return -EINVAL;
	}
	if (strspn(path, "/") == strlen(path)) {
		snprintf(why, len,
			 "--writable '%s': not the whole tree; name the directories the agent "
			 "writes",
			 path);
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(refused_roots) / sizeof(refused_roots[0]); i++)
		if (under(path, refused_roots[i])) {
			snprintf(why, len,
				 "--writable '%s': %s holds the kernel's knobs and devices, never "
				 "writable to a root agent",
				 path, refused_roots[i]);
			return -EINVAL;
		}
	return 0;
}

void sv_rootfs_declare(const char *const *paths, int n)
{
	D.paths = paths;
	D.n = n;
}

int sv_rootfs_declared(const char *const **paths)
{
	*paths = D.paths;
	return D.n;
}

const char *const sv_rootfs_proc_knobs[] = {"/proc/sys", "/proc/sysrq-trigger",
#ifndef SV_MUTANT_PROC_HARDWARE_WRITABLE
					    /* MUTANT proc-hardware-writable: only
					     * the sysctls and sysrq, as before review
					     * h-attack74 (a root agent wrote a PCI
					     * device's config space). Docker's
					     * read-only and masked /proc paths. */
					    "/proc/bus", "/proc/fs", "/proc/irq", "/proc/acpi",
					    "/proc/scsi", "/proc/driver", "/proc/asound",
					    "/proc/mtrr",
#endif
					    NULL};

static int say(int err, const char *what, const char *path)
{
	fprintf(stderr, "egress-supervisor: a root agent's files: %s %s: %s\n", what, path,
		strerror(-err));
	return err;
}

/* The id of the mount path resolves to (the one on top), or 0 where the
 * kernel cannot say (before 5.8: every mount is then taken as reachable,
 * so a covered one is checked too and the check fails closed). */
static unsigned long long reachable_mount(const char *path)
{
	struct statx sx;

	/* Seam: a kernel before 5.8, whose statx has no mount id. */
	if (sv_fault("statx_mnt_id") < 0)
		return 0;
	if (syscall(SYS_statx, AT_FDCWD, path,
		    AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC, STATX_MNT_ID,
		    &sx) != 0)
		return 0;
	return (sx.stx_mask & STATX_MNT_ID) ? sx.stx_mnt_id : 0;
}

/* A mount that another covers (the old /dev under the new, anything under
 * a covered mount) cannot be reached by path, so neither remounted nor
 * judged by it: the agent cannot reach it either (every descriptor of the
 * caller's is closed, and unmounting needs CAP_SYS_ADMIN). ENOENT: the
 * path is gone (a mount over a deleted directory). */
static int covered(const struct sv_mount *m)
{
	unsigned long long id;

	/* A mount stacked on the root is reached by ".." from any directory
	 * of the one under it, though "/" itself names the lower one
	 * (review h-attack18): never taken as covered. */
#ifndef SV_MUTANT_ROOT_STACK_COVERED
	/* MUTANT root-stack-covered: a mount stacked on the root is taken as
	 * covered when statx("/") names the one under it. */
	if (strcmp(m->mp, "/") == 0)
		return 0;
#endif
	id = reachable_mount(m->mp);
	if (id != 0)
		return id != (unsigned long long)m->id;
	for (int i = 0; i < D.nself_covered; i++)
		if (D.self_covered[i] == m->id)
			return 1;
	return access(m->mp, F_OK) != 0 && errno == ENOENT;
}

/* Before the new /dev and the new /proc (contain.c mounts it right after
 * sv_rootfs_confine) cover them: their mounts, for covered() on a kernel
 * without statx mount ids. Returns 0 or -errno. */
static int note_self_covered(void)
{
	struct sv_mount *t;
	int n = sv_mountinfo_read(&t);

	if (n < 0)
		return say(n, "reading", "/proc/self/mountinfo");
	D.nself_covered = 0;
	for (int i = 0; i < n; i++) {
		if (!under(t[i].mp, "/dev") && !under(t[i].mp, "/proc"))
			continue;
		/* Past the table's end a mount is not known as covered: judged
		 * by the read-back (fails closed before 5.8; unused after). */
		if (D.nself_covered < (int)(sizeof(D.self_covered) / sizeof(D.self_covered[0])))
			D.self_covered[D.nself_covered++] = t[i].id;
	}
	sv_mountinfo_free(t, n);
	return 0;
}

/* Every reachable host mount that is no kernel file system (those are
 * read-only by type already) and not under /dev (replaced below):
 * read-only and nodev. A read-only mount alone would not do: a device node
 * on it still opens for writing (only regular files, directories and links
 * are refused on a read-only mount). */
static int host_read_only(void)
{
	struct sv_mount *t;
	int n = sv_mountinfo_read(&t), rc = 0;

	if (n < 0)
		return say(n, "reading", "/proc/self/mountinfo");
	for (int i = 0; rc == 0 && i < n; i++) {
		unsigned long flags;

		/* An autofs mount point holds no file; what it would mount on
		 * demand is mounted in the host's namespace, not this private
		 * one, and a remount by its path would trigger it. */
		if (sv_mountinfo_is_kernel_fs(t[i].type) || strcmp(t[i].type, "autofs") == 0 ||
		    under(t[i].mp, "/dev") || covered(&t[i]))
			continue;
		flags = sv_mountinfo_flags(t[i].opts) | MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NODEV;
		if (mount(NULL, t[i].mp, NULL, flags, NULL) != 0)
			rc = say(-errno, "making read-only and nodev", t[i].mp);
	}
	sv_mountinfo_free(t, n);
	return rc;
}

/* A /dev of the namespace's own (devnodes.c). */
static int private_dev(void)
{
	char why[128];
	int rc = sv_devnodes_make(&D.pts, why, sizeof(why));

	if (rc < 0)
		fprintf(stderr, "egress-supervisor: a root agent's files: %s: %s\n", why,
			strerror(-rc));
	return rc;
}

int sv_rootfs_confine(void)
{
	int rc = 0;

#ifndef SV_MUTANT_ROOT_FILES_WRITABLE
	/* MUTANT root-files-writable: the host's files stay writable to a root
	 * agent, as before: it replaces a program the kernel runs as root.
	 * Seam: a remount that said it worked and did not take (only the
	 * read-back can tell). */
	if (sv_fault("rootfs") == 0)
		rc = host_read_only();
#else
	(void)host_read_only;
#endif
	if (rc < 0 || (rc = note_self_covered()) < 0)
		return rc;
#ifdef SV_MUTANT_HOST_DEV
	/* MUTANT host-dev: the host's /dev, writable and with every node: a
	 * block device opens for writing. */
	(void)private_dev;
	return 0;
#endif
	return private_dev();
}

/* The mount id of what fd (AT_EMPTY_PATH) or path is on, or 0 where the
 * kernel does not say. */
static unsigned long long mount_of(int fd, const char *path)
{
	struct statx sx;

	if (sv_fault("statx_mnt_id") < 0 ||
	    syscall(SYS_statx, fd, path, path[0] ? 0 : AT_EMPTY_PATH, STATX_MNT_ID, &sx) != 0)
		return 0;
	return (sx.stx_mask & STATX_MNT_ID) ? sx.stx_mnt_id : 0;
}

/* One walk of a declared path for programs that run with more than their
 * caller's ids (bind_setid). */
struct walk {
	char path[PATH_MAX]; /* the entry's, built as the walk goes */
	size_t len;
	/* The declared path's mount id; 0 where statx gives none (before
	 * 5.8): then the mount points below are told by their paths. */
	unsigned long long mnt;
	const char **mounts; /* the mount points under the declared path */
	int nmounts;
};

/* Whether a file may run with more than its caller's ids or capabilities,
 * now or after a mode change the filter does not see: any setuid or setgid
 * file (a setgid one without group execute gets it from an ACL, which
 * keeps S_ISGID), and any file with file capabilities, executable or not
 * (chmod keeps them): review h-attack24. Returns 1, 0, or -errno. */
static int privileged(const struct walk *w, unsigned mode)
{
	if (!S_ISREG(mode))
		return 0;
#ifdef SV_MUTANT_SETID_WALK_NARROW
	/* MUTANT setid-walk-narrow: setgid counts only with group execute,
	 * file capabilities only on an executable, as in 315075b. */
	if ((mode & S_ISUID) || (mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		return 1;
	if (!(mode & (S_IXUSR | S_IXGRP | S_IXOTH)))
		return 0;
	mode &= ~(unsigned)S_ISGID;
#endif
	if (mode & (S_ISUID | S_ISGID))
		return 1;
	if (lgetxattr(w->path, "security.capability", NULL, 0) >= 0)
		return 1;
	return errno == ENODATA || errno == ENOTSUP ? 0 : -errno;
}

static int is_mount_point(const struct walk *w)
{
	for (int i = 0; i < w->nmounts; i++)
		if (strcmp(w->mounts[i], w->path) == 0)
			return 1;
	return 0;
}

/* Binds the file at w->path onto itself read-only, nosuid and nodev,
 * keeping the flags a bind remount must be given again. */
static int bind_file_ro(struct walk *w)
{
	unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV;
	struct statvfs sv;

	if (++D.nsetid > SV_ROOTFS_MAX_SETID) {
		fprintf(stderr,
			"egress-supervisor: a root agent's files: more than %d setuid, setgid or "
			"capable programs under the --writable paths (at %s): %s\n",
			SV_ROOTFS_MAX_SETID, w->path, strerror(E2BIG));
		return -E2BIG;
	}
	if (mount(w->path, w->path, NULL, MS_BIND, NULL) != 0)
		return say(-errno, "binding a setuid, setgid or capable program", w->path);
	if (statvfs(w->path, &sv) != 0)
		return say(-errno, "reading the flags of", w->path);
	flags |= sv_mountinfo_statvfs_flags(sv.f_flag);
	/* Seam: a remount that said it worked and did not take: the read-back
	 * must refuse the writable bind. */
	if (sv_fault("setid_ro") < 0)
		return 0;
	if (mount(NULL, w->path, NULL, flags, NULL) != 0)
		return say(-errno, "making read-only the program", w->path);
	return 0;
}

/* Walks the directory open on fd (closed here), named w->path, without
 * following links or crossing a mount. Returns 0 or -errno, said. */
static int walk_dir(int fd, struct walk *w)
{
	DIR *d = fdopendir(fd);
	size_t len = w->len;
	struct dirent *e;
	int rc = 0;

	if (!d) {
		close(fd);
		return say(-errno, "listing", w->path);
	}
	while (rc == 0) {
		struct statx sx;
		size_t n;

		errno = 0;
		if (!(e = readdir(d))) {
			if (errno)
				rc = say(-errno, "listing", w->path);
			break;
		}
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    (e->d_type != DT_DIR && e->d_type != DT_REG && e->d_type != DT_UNKNOWN))
			continue;
		n = strlen(e->d_name);
		if (len + 1 + n >= sizeof(w->path)) {
			rc = say(-ENAMETOOLONG, "walking", w->path);
			break;
		}
		w->path[len] = '/';
		memcpy(w->path + len + 1, e->d_name, n + 1);
		w->len = len + 1 + n;
		/* The entry's type, mode and mount, its link not followed. */
		if (syscall(SYS_statx, dirfd(d), e->d_name, AT_SYMLINK_NOFOLLOW,
			    STATX_TYPE | STATX_MODE | STATX_MNT_ID, &sx) != 0) {
			rc = say(-errno, "reading", w->path);
			break;
		}
		/* Another mount (read-only: judged by the read-back), or a
		 * program bound already (under an earlier declared path). By
		 * mount id: a mount point's path in mountinfo may be covered
		 * by a later mount, its name here a plain directory (review
		 * h-attack24). */
#ifdef SV_MUTANT_SETID_WALK_NARROW
		/* MUTANT setid-walk-narrow: mount points told by their paths. */
		w->mnt = 0;
#endif
		if (w->mnt && (sx.stx_mask & STATX_MNT_ID) ? sx.stx_mnt_id != w->mnt
							   : is_mount_point(w))
			continue;
		if (S_ISDIR(sx.stx_mode)) {
			int sub = openat(dirfd(d), e->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			rc = sub < 0 ? say(-errno, "opening", w->path) : walk_dir(sub, w);
		} else if ((rc = privileged(w, sx.stx_mode)) < 0) {
			rc = say(rc, "reading the capabilities of", w->path);
		} else if (rc == 1) {
			rc = bind_file_ro(w);
		}
	}
	w->path[len] = '\0';
	w->len = len;
	closedir(d);
	return rc;
}

/* A setuid-root program already under a declared path (a root file system
 * being built there) would be rewritten by the agent through a shared
 * mapping, which keeps S_ISUID (only write(), truncate and fallocate clear
 * it; CAP_FSETID is dropped), and run by a user outside the run as root
 * (review h-attack21). Trapping mmap would race (the descriptor can be
 * swapped between the check and the answer), so each such program is
 * bound onto itself read-only instead: an open for writing gets EROFS,
 * link() EXDEV (its path's mount is its own bind), rename and unlink
 * EBUSY. The walk at the start covers the class: every hard link of the
 * inode has the bits, so each name under the path is found; the agent
 * cannot make a new one (the filter refuses S_ISUID and S_ISGID, and
 * CAP_SETFCAP is dropped), and a file cannot come in from another mount
 * (rename and link answer EXDEV; mounting needs CAP_SYS_ADMIN). A mount
 * under the path is read-only already (the read-back says so) and not
 * walked. Returns 0 or -errno, said on stderr. */
static int bind_setid(const char *r)
{
	struct walk walk, *w = &walk;
	struct sv_mount *t;
	struct stat st;
	int n = sv_mountinfo_read(&t), rc = 0, fd;

	if (n < 0)
		return say(n, "reading", "/proc/self/mountinfo");
	w->mounts = malloc(sizeof(*w->mounts) * (size_t)(n ? n : 1));
	if (!w->mounts) {
		sv_mountinfo_free(t, n);
		return say(-ENOMEM, "walking", r);
	}
	w->nmounts = 0;
	for (int i = 0; i < n; i++)
		if (under(t[i].mp, r) && strcmp(t[i].mp, r) != 0)
			w->mounts[w->nmounts++] = t[i].mp;
	snprintf(w->path, sizeof(w->path), "%s", r);
	w->len = strlen(w->path);
	w->mnt = mount_of(AT_FDCWD, r);
	if (lstat(r, &st) != 0)
		rc = say(-errno, "reading", r);
	else if (S_ISDIR(st.st_mode))
		rc = (fd = open(r, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0
			 ? say(-errno, "opening", r)
			 : walk_dir(fd, w);
	else if ((rc = privileged(w, st.st_mode)) < 0)
		rc = say(rc, "reading the capabilities of", r);
	else if (rc == 1)
		rc = bind_file_ro(w);
	free(w->mounts);
	sv_mountinfo_free(t, n);
	return rc < 0 ? rc : 0;
}

int sv_rootfs_open_declared(void)
{
	int rc;

	D.nsetid = 0;
	D.nresolved = 0;
	for (int i = 0; i < D.n; i++) {
		char *r = D.resolved[D.nresolved], why[PATH_MAX + 128];
		unsigned long flags = MS_REMOUNT | MS_BIND | MS_NOSUID;
		struct statvfs sv;

		char link[PATH_MAX], self[40];
		struct stat held, now;
		ssize_t len;
		int fd = sv_rootfs_open_nolinks(D.paths[i], link, sizeof(link)), again;

		/* A link on the way may be the system's own (/var/run) or a
		 * root agent's of an earlier run, left under its own declared
		 * path (review h-attack36): the caller gives the resolved
		 * path. */
#ifndef SV_MUTANT_DECLARED_LINK_FOLLOWED
		if (fd == -ELOOP) {
			fprintf(stderr,
				"egress-supervisor: --writable '%s': '%s' is a symbolic link (the "
				"system's own, or one an agent of an earlier run left): give the "
				"resolved path (realpath)\n",
				D.paths[i], link);
			return -ELOOP;
		}
		if (fd < 0)
			return say(fd, "opening --writable", D.paths[i]);
		/* From here on the directory checked is the one used, by its
		 * descriptor, never by its name again: a concurrent run's agent
		 * swapping a component for a link in between (review
		 * h-attack37's ha37-race.sh) made the name resolve to a host
		 * directory, bound writable and taken for declared. */
		snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
		len = readlink(self, r, PATH_MAX - 1);
		if (len <= 0 || fstat(fd, &held) != 0) {
			rc = -errno;
			close(fd);
			return say(rc ? rc : -EIO, "resolving --writable", D.paths[i]);
		}
		r[len] = '\0';
#else
		if (fd >= 0)
			close(fd);
		fd = -1;
		if (!realpath(D.paths[i], r))
			return say(-errno, "resolving --writable", D.paths[i]);
		snprintf(self, sizeof(self), "%s", r);
		(void)held;
		(void)len;
#endif
		if (sv_rootfs_check_declared(r, why, sizeof(why)) < 0) {
			fprintf(stderr, "egress-supervisor: %s (resolved from '%s')\n", why,
				D.paths[i]);
			if (fd >= 0)
				close(fd);
			return -EINVAL;
		}
		/* Recursive: what is mounted under the path stays in view, each
		 * copy as read-only as the pass above left it. */
		if (mount(self, self, NULL, MS_BIND | MS_REC, NULL) != 0) {
			rc = say(-errno, "binding --writable", r);
			if (fd >= 0)
				close(fd);
			return rc;
		}
		if (fd >= 0)
			close(fd);
		/* The name leads to the directory bound, with no link on the way
		 * (the remount below goes by name). */
		again = sv_rootfs_open_nolinks(r, link, sizeof(link));
		if (again < 0 || fstat(again, &now) != 0 ||
#ifndef SV_MUTANT_DECLARED_LINK_FOLLOWED
		    now.st_dev != held.st_dev || now.st_ino != held.st_ino ||
#endif
		    0) {
			if (again >= 0)
				close(again);
			return say(-EXDEV, "--writable changed during set-up:", r);
		}
		close(again);
		/* A bind remount clears what it is not given again: keep noexec
		 * and the atime flags the path had; only read-only goes. */
		if (statvfs(r, &sv) != 0)
			return say(-errno, "reading the flags of --writable", r);
		flags |= sv_mountinfo_statvfs_flags(sv.f_flag) & ~(unsigned long)MS_RDONLY;
		flags |= MS_NODEV;
#ifdef SV_MUTANT_WRITABLE_DEV
		/* MUTANT writable-dev: a declared path allows device nodes, as a
		 * chroot's /dev under a build directory holds them. */
		flags &= ~(unsigned long)MS_NODEV;
#endif
		if (mount(NULL, r, NULL, flags, NULL) != 0)
			return say(-errno, "making writable --writable", r);
		D.nresolved++;
#ifndef SV_MUTANT_ROOT_SETID_WRITABLE
		/* MUTANT root-setid-writable: a setuid program under a declared
		 * path stays writable: the agent rewrites it through a shared
		 * mapping and it stays setuid. */
		if ((rc = bind_setid(r)) < 0)
			return rc;
#else
		(void)bind_setid;
		(void)rc;
#endif
	}
	return 0;
}

/* Whether mp is one of the resolved declared paths. */
static int declared(const char *mp)
{
	for (int i = 0; i < D.nresolved; i++)
		if (strcmp(D.resolved[i], mp) == 0)
			return 1;
	return 0;
}

static int judge(const struct sv_mount *m)
{
	unsigned long f = sv_mountinfo_flags(m->opts);
	int kernel = sv_mountinfo_is_kernel_fs(m->type);
	int dev = strcmp(m->mp, "/dev") == 0;
	int pts = D.pts && strcmp(m->mp, "/dev/pts") == 0 && strcmp(m->type, "devpts") == 0;
	int proc = strcmp(m->mp, "/proc") == 0 && strcmp(m->type, "proc") == 0;
	int writable_ok =
	    proc || pts || strcmp(m->mp, "/dev/shm") == 0 || (declared(m->mp) && !kernel);

	/* Holds no file (host_read_only). */
	if (strcmp(m->type, "autofs") == 0)
		return 1;
	if (!(f & MS_RDONLY) && !writable_ok)
		return 0;
	/* Kernel file systems hold no device nodes; the namespace's /dev and
	 * devpts are the ones that must, and a node devnodes.c bound there. */
	if (!(f & MS_NODEV) && !kernel && !dev && !pts && !sv_devnodes_bound(m->mp))
		return 0;
	return 1;
}

static int read_only(const char *path)
{
	struct statvfs sv;

	return statvfs(path, &sv) == 0 && (sv.f_flag & ST_RDONLY);
}

/* The working directory's mount is one the read-back judged: reachable
 * by its path. Without statx mount ids, the chdir by path vouches. */
static int cwd_judged(const struct sv_mount *t, int n)
{
	unsigned long long id = reachable_mount(".");

#ifdef SV_MUTANT_CWD_UNNAMED_KEPT
	id = 0;
#endif
	if (id == 0)
		return 0;
	for (int i = 0; i < n; i++)
		if ((unsigned long long)t[i].id == id && !covered(&t[i]))
			return 0;
	return say(-ENOTRECOVERABLE, "the working directory is on a mount not judged:", ".");
}

int sv_rootfs_check(void)
{
	struct sv_mount *t;
	int n, rc = 0;

#ifdef NO_READBACK
	return 0;
#endif
	n = sv_mountinfo_read(&t);
	if (n < 0)
		return say(n, "reading", "/proc/self/mountinfo");
	for (int i = 0; rc == 0 && i < n; i++) {
		if (covered(&t[i]) || judge(&t[i]))
			continue;
		fprintf(stderr,
			"egress-supervisor: a root agent's files: %s (%s, %s) is still writable "
			"or allows device nodes\n",
			t[i].mp, t[i].type, t[i].opts ? t[i].opts : "?");
		rc = -ENOTRECOVERABLE;
	}
	if (rc == 0)
		rc = cwd_judged(t, n);
	sv_mountinfo_free(t, n);
	/* The new proc's own knobs, bound read-only by contain.c. */
	for (int i = 0; rc == 0 && sv_rootfs_proc_knobs[i]; i++)
		if (access(sv_rootfs_proc_knobs[i], F_OK) == 0 &&
		    !read_only(sv_rootfs_proc_knobs[i]))
			rc = say(-ENOTRECOVERABLE, "still writable:", sv_rootfs_proc_knobs[i]);
	return rc;
}

int sv_rootfs_open_nolinks(const char *path, char *link, size_t len)
{
	char copy[PATH_MAX], *save = NULL, *comp;
	int fd;

	if (snprintf(copy, sizeof(copy), "%s", path) >= (int)sizeof(copy))
		return -ENAMETOOLONG;
	fd = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* One component at a time, none followed: O_PATH | O_NOFOLLOW opens
	 * a link itself, which fstat then shows. */
	for (comp = strtok_r(copy, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		struct stat st;
		int next = openat(fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC), err;

		err = next < 0                ? errno
		      : fstat(next, &st) != 0 ? errno
		      : S_ISLNK(st.st_mode)   ? ELOOP
					      : 0;
		close(fd);
		if (err) {
			if (next >= 0)
				close(next);
			snprintf(link, len, "%.*s", (int)(comp - copy + strlen(comp)), path);
			return -err;
		}
		fd = next;
	}
	return fd;
}

int sv_rootfs_under_declared(const char *path)
{
	char real[PATH_MAX], decl[PATH_MAX];

	if (!realpath(path, real))
		return -errno;
	for (int i = 0; i < D.n; i++)
		if (realpath(D.paths[i], decl) && under(real, decl))
			return 1;
	return 0;
}

/* Whether the file open on fd, named path, is at or under a declared path
 * and on that path's own mount: a mount under a declared path is a
 * read-only copy in the agent's view, but fd is on the caller's writable
 * one (review h-attack19). Without mount ids, never. */
static int under_declared(int fd, const char *path)
{
	char real[PATH_MAX], decl[PATH_MAX];
	unsigned long long mnt = mount_of(fd, "");

	if (!mnt || !realpath(path, real))
		return 0;
	for (int i = 0; i < D.n; i++)
		if (realpath(D.paths[i], decl) && under(real, decl) &&
		    mount_of(AT_FDCWD, decl) == mnt)
			return 1;
	return 0;
}

int sv_rootfs_check_stdio(char *why, size_t len)
{
#ifdef SV_MUTANT_ROOT_STDIO_OPEN
	/* MUTANT root-stdio-open: whatever file, directory or device the caller
	 * left on 0-2 reaches a root agent, as before. */
	(void)why;
	(void)len;
	(void)under_declared;
	return 0;
#endif
	for (int fd = 0; fd < 3; fd++) {
		struct stat st;
		struct statvfs sv;
		char link[64], path[PATH_MAX];
		int fl = fcntl(fd, F_GETFL);
		ssize_t n;
		const char *what = NULL;

		if (fl < 0 || fstat(fd, &st) != 0 || S_ISSOCK(st.st_mode) || S_ISFIFO(st.st_mode))
			continue;
		if (fl & O_PATH)
			what = "an O_PATH descriptor (a way into the caller's mounts)";
		else if (S_ISDIR(st.st_mode))
			what = "a directory (openat from it reaches the caller's writable mounts)";
		else if (S_ISBLK(st.st_mode))
			what = "a block device (reopened through /proc/self/fd for writing)";
		else if (S_ISREG(st.st_mode) && (fl & O_ACCMODE) == O_RDONLY && st.st_nlink > 0 &&
			 (fstatvfs(fd, &sv) != 0 || !(sv.f_flag & ST_RDONLY))) {
			/* Given for reading, on a writable mount (or one whose
			 * flags cannot be read), with a name: reopened through
			 * /proc/self/fd/N the agent could write it, on the
			 * caller's mount, not its read-only copy. */
			snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
			n = readlink(link, path, sizeof(path) - 1);
			path[n > 0 ? n : 0] = '\0';
			if (n <= 0 || !under_declared(fd, path))
				what =
				    "a file given for reading on a writable mount outside the "
				    "--writable paths (reopened through /proc/self/fd for writing)";
		}
		if (!what)
			continue;
		snprintf(
		    why, len,
		    "descriptor %d is %s: a root agent would write the host's files through it; "
		    "give it a pipe, a terminal or /dev/null, or a file under a --writable path",
		    fd, what);
		return -EACCES;
	}
	return 0;
}
