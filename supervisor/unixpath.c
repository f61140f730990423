#include "unixpath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <linux/openat2.h>
#include <linux/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/un.h>
#include <unistd.h>

#include "act.h"
#include "fault.h"
#include "walkwatch.h"

#define CWD_UNNAMED SV_UNIXPATH_UNNAMED
/* open_below_cwd's answer for a name that leaves the directory. */
#define CWD_ESCAPES (SV_UNIXPATH_UNNAMED + 1)
#ifndef ST_NOSYMFOLLOW
#define ST_NOSYMFOLLOW 0x2000
#endif
#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif
#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif

/* The working directory's name (n bytes in name, from the top of the
 * mount namespace) made one in thread tid's root: its new length (under
 * PATH_MAX), CWD_UNNAMED when it is not below that root, or -errno. */
static ssize_t strip_root(pid_t tid, char *name, size_t n)
{
	char link[64], root[PATH_MAX];
	ssize_t r;

	snprintf(link, sizeof(link), "/proc/%d/root", (int)tid);
	r = readlink(link, root, sizeof(root) - 1);
	if (r < 0 && errno == ENAMETOOLONG)
		return CWD_UNNAMED;
	if (r < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	if (r == 1 && root[0] == '/')
		return (ssize_t)n;
	if (root[0] != '/' || (size_t)r > n || memcmp(name, root, (size_t)r) != 0 ||
	    ((size_t)r < n && name[r] != '/'))
		return CWD_UNNAMED;
	if ((size_t)r == n) {
		name[0] = '/';
		return 1;
	}
	memmove(name, name + r, n - (size_t)r);
	return (ssize_t)(n - (size_t)r);
}

/* The path the thread would look up, as seen from its own root: a relative
 * one under its working directory. Returns 0, a positive errno for the
 * lookup's own answer, CWD_UNNAMED for a working directory with no name in
 * that root, or -errno when /proc could not be read. */
static int agent_path(pid_t tid, const char *path, size_t plen, char *out, size_t outlen,
		      size_t *dirlen)
{
	char link[64];
	ssize_t n = 0;

	*dirlen = 0;
	if (path[0] != '/') {
		snprintf(link, sizeof(link), "/proc/%d/cwd", (int)tid);
		n = readlink(link, out, outlen - 1);
#ifndef SV_MUTANT_CWD_DEPTH_TRUSTED
		/* MUTANT cwd-depth-trusted: a name too long to read is a
		 * mechanism failure, the agent's choice of capability-error
		 * (review h-attack50): a directory that deep has no name that
		 * can show it is in the root. */
		if (n < 0 && errno == ENAMETOOLONG)
			return CWD_UNNAMED;
#endif
		if (n < 0)
			return errno == ENOENT ? -ESRCH : -errno;
		/* "(unreachable)" (outside the thread's root) or a deleted
		 * directory: no name in the root leads there. */
		if (out[0] != '/' || (size_t)n >= outlen - 2)
			return CWD_UNNAMED;
#ifndef SV_MUTANT_CHROOT_PREFIX_KEPT
		/* MUTANT chroot-prefix-kept: the name is taken as one in the
		 * thread's root. It is read from the top of the mount namespace,
		 * as is the root's own: in a chroot the root's name comes first
		 * and must go, or every relative name of a chrooted program is
		 * denied (review h-attack51 finding 2, a false red). One outside
		 * the root has no name in it; cwd_named proves what is left. */
		n = strip_root(tid, out, (size_t)n);
		if (n < 0 || n == CWD_UNNAMED)
			return (int)n;
#else
		(void)strip_root;
#endif
		*dirlen = (size_t)n;
		out[n++] = '/';
	}
	if ((size_t)n + plen >= outlen)
		return path[0] == '/' ? ENAMETOOLONG : CWD_UNNAMED;
	memcpy(out + n, path, plen);
	out[(size_t)n + plen] = '\0';
	return 0;
}

/* openat2(dirfd, path, how), asked again while a rename races a lookup
 * with ".." (RESOLVE_IN_ROOT and RESOLVE_BENEATH refuse it EAGAIN, as
 * openat2(2) says): a descriptor, or -errno. */
static int openat2_retried(int dirfd, const char *path, const struct open_how *how)
{
	int fd = sv_fault("openat2");

	/* A test build refuses every try as a race the agent keeps going
	 * would (review h-attack51's renames hit 4 of 10 runs under load). */
	if (fd < 0)
		return fd;
	for (int tries = 0; tries < 4; tries++) {
		fd = (int)syscall(SYS_openat2, dirfd, path, how, sizeof(*how));
		if (fd >= 0)
			return fd;
		if (errno != EAGAIN)
			break;
	}
	return -errno;
}

static int on_procfs(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) != 0 || sf.f_type == PROC_SUPER_MAGIC;
}

/* Whether descriptors a and b are one object: device, inode and mount (the
 * mount where statx gives its id, 5.8+). 1, 0, or -errno. */
static int same_object(int a, int b)
{
	struct statx x, y;

	if (syscall(SYS_statx, a, "", AT_EMPTY_PATH, STATX_INO | STATX_MNT_ID, &x) != 0 ||
	    syscall(SYS_statx, b, "", AT_EMPTY_PATH, STATX_INO | STATX_MNT_ID, &y) != 0)
		return -errno;
	return x.stx_ino == y.stx_ino && x.stx_dev_major == y.stx_dev_major &&
	       x.stx_dev_minor == y.stx_dev_minor &&
	       (!(x.stx_mask & y.stx_mask & STATX_MNT_ID) || x.stx_mnt_id == y.stx_mnt_id);
}

/* The thread's fsuid as our user namespace sees it, or -1. */
static long caller_fsuid(pid_t tid)
{
	struct sv_status_ids ids;

	return sv_act_status_ids(tid, &ids) == 0 ? ids.uid[3] : -1;
}

/* fs.protected_symlinks: 1, 0, or -1 unread. */
static int protected_symlinks(void)
{
	char c = 0;
	int fd = open("/proc/sys/fs/protected_symlinks", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == '0' ? 0 : c == '1' ? 1 : -1;
}

/* may_follow_link (fs/namei.c), for a follower of fsuid, of the trailing
 * symbolic link lnk in directory dir: 1 when the kernel follows it, 0 when
 * it refuses EACCES (fs.protected_symlinks: a link in a sticky
 * world-writable directory whose owner is neither the follower nor the
 * directory's), -1 unsure. No capability overrides it. */
static int may_follow(int dir, int lnk, long fsuid)
{
	int prot = protected_symlinks();
	struct stat d, l;

	if (prot == 0)
		return 1;
	if (prot < 0 || fsuid < 0 || fstat(dir, &d) != 0 || fstat(lnk, &l) != 0)
		return -1;
	if (l.st_uid == (uid_t)fsuid || (d.st_mode & (S_ISVTX | S_IWOTH)) != (S_ISVTX | S_IWOTH) ||
	    d.st_uid == l.st_uid)
		return 1;
	return 0;
}

/* Whether something is mounted on the thread's root (its fd root): the
 * kernel's own ".." there (openat2 RESOLVE_IN_ROOT) leads elsewhere than the
 * root. 1 when it does or cannot be told, 0 when not. */
static int root_overmounted(int root)
{
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	int fd = openat2_retried(root, "..", &how), same;

	if (fd < 0)
		return 1;
	same = same_object(fd, root);
	close(fd);
	return same != 1;
}

/* Whether fd is the root of its mount: 1 (or cannot be told), or 0. */
static int cur_is_mount_root(int fd)
{
	struct statx sx;

	if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &sx) != 0)
		return 1;
	if (!(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT))
		return 1;
	return (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0;
}

/* walk_as_kernel's answers. */
enum { WALK_TRUST, WALK_UNSURE, WALK_FOUND, WALK_MECH, WALK_GONE };

/* Our confined lookup of path from start (the thread's root or working
 * directory) failed with err: walks it again as the kernel walks it for
 * thread tid, one component at a time from descriptors (never a name
 * looked up twice, so no rename or mount between two lookups can make
 * them disagree: review h-attack52 finding 1), with ".." kept at the
 * thread's root, symbolic links read and followed by hand (40 at most),
 * and the trailing one followed as may_follow_link would for the thread.
 * WALK_TRUST: the walk ends where the kernel's would, with err (a missing
 * entry, a file that is no directory, a protected link, a loop): err is
 * the kernel's answer. WALK_FOUND: it reaches an object where ours was
 * refused EACCES (a protected link the thread may follow and we may not,
 * fsuid 0: review h-attack52 finding 2): *out holds it. WALK_UNSURE:
 * anything else, any step on a proc file system included ("self",
 * "thread-self" and the magic links lead the agent's lookup where ours
 * cannot follow: review h-attack51 finding 3), or a walk that now finds
 * what the first did not, or one while a directory it stood in changed
 * (walkwatch.h): to be denied. WALK_MECH: an answer the walk cannot vouch
 * for, its directories not watched (no inotify, CONFIG_INOTIFY_USER=n; uid
 * 0's allowance used up: *mech_err), a mechanism failure (denied, a root
 * agent that used up the allowance chose the bucket of every run of uid
 * 0's: review h-attack63); a denial needs no watch. Linear in the name
 * and its links (the prefix re-walk it replaced cost about a second a
 * connect: review h-attack52 finding 3). */
static int walk_as_kernel(pid_t tid, int start, const char *path, int err, int *out, int *mech_err)
{
	char bufs[2][PATH_MAX + 1], target[PATH_MAX], link[64];
	int root, cur, nxt, links = 0, which = 0, rc = WALK_UNSURE, wr;
	long fsuid;
	struct sv_walkwatch watch;
#ifdef SV_MUTANT_OVERMOUNT_ASKED_ONCE
	int overmounted = -1;
#endif
	const char *p;
	struct stat st;

	if (strlen(path) > PATH_MAX)
		return WALK_UNSURE;
	snprintf(link, sizeof(link), "/proc/%d/root", (int)tid);
	/* Without a watch the walk still runs: a denial needs none. Only an
	 * answer (TRUST, FOUND) it cannot vouch for is a mechanism failure. */
	if ((wr = sv_walkwatch_begin(&watch)) < 0)
		*mech_err = -wr;
	root = open(link, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0) {
		int gone = errno == ENOENT;

		sv_walkwatch_end(&watch);
		/* The thread died while the walk waited for an instance (four,
		 * a thread-rich agent's walks queue): its call is abandoned, as
		 * for any other /proc step of the lookup, not a name the walk
		 * could not vouch for, denied (review h-attack64: 60 of 64
		 * legitimate failing connects of an agent that exited denied
		 * unix-peer, the run failed). */
#ifdef SV_MUTANT_GONE_WALK_DENIED
		/* MUTANT gone-walk-denied: denied, as in 4521969. */
		gone = 0;
#endif
		return gone ? WALK_GONE : WALK_UNSURE;
	}
	/* Read once, while the thread waits in its call (its credentials
	 * cannot change there): a thread that dies during the walk leaves it
	 * nothing more to read (h-attack64: its trailing links were unsure,
	 * denied). */
	fsuid = caller_fsuid(tid);
	cur = fcntl(path[0] == '/' ? root : start, F_DUPFD_CLOEXEC, 0);
#ifndef SV_MUTANT_FOREIGN_ROOT_TRUSTED
	/* MUTANT foreign-root-trusted: a root or start on another mount
	 * namespace's tree is walked and trusted (h-attack62's xmnt). */
	if (cur >= 0 && !sv_walkwatch_mounts_in_ns(tid, root, start)) {
		close(cur);
		cur = -1;
	}
#endif
	strcpy(bufs[0], path);
	p = bufs[0];
	while (cur >= 0) {
		char comp[NAME_MAX + 1];
		size_t len;
		int must_dir;

		while (*p == '/')
			p++;
		if (*p == '\0') {
			/* The whole name found: where ours was refused EACCES,
			 * the thread's lookup gets here; any other failure of
			 * ours the walk does not share is a disagreement. */
#ifndef SV_MUTANT_PROTECTED_LINK_REFUSED
			/* MUTANT protected-link-refused: denied, a false red for
			 * a program's own socket through its own link in /tmp
			 * (h-attack52's protsym-own). */
			if (err == EACCES) {
				*out = cur;
				cur = -1;
				rc = WALK_FOUND;
			}
#else
			(void)out;
#endif
#ifdef SV_MUTANT_WALK_COMPLETE_TRUSTED
			/* MUTANT walk-complete-trusted: a walk that now finds the
			 * whole name trusts the failure of the first, as the
			 * prefix re-walk did (h-attack52's flip). */
			if (err != EACCES)
				rc = WALK_TRUST;
#endif
			break;
		}
		len = strcspn(p, "/");
		if (len > NAME_MAX)
			break;
		memcpy(comp, p, len);
		comp[len] = '\0';
		p += len;
		must_dir = *p == '/';
		if (on_procfs(cur))
			break;
		wr = *mech_err ? 0 : sv_walkwatch_dir(&watch, cur);
#ifdef SV_MUTANT_INOTIFY_REFUSAL_DENIED
		/* MUTANT inotify-refusal-denied: uid 0's watches used up deny
		 * the name (unix-peer), as in 8518c70. */
		if (wr < 0 || *mech_err)
			break;
#endif
		if (wr < 0)
			*mech_err = -wr;
		else if (wr)
			break;
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			int top = same_object(cur, root);

			if (top < 0)
				break;
#ifdef SV_MUTANT_ROOT_OVERMOUNT_IGNORED
			/* MUTANT root-overmount-ignored: ".." stays on the root. */
			(void)cur_is_mount_root;
			(void)root_overmounted;
#elif defined(SV_MUTANT_OVERMOUNT_ASKED_ONCE)
			/* MUTANT overmount-asked-once: the answer of the first
			 * ".." stands for the walk (h-attack59's xflip). */
			if (overmounted < 0)
				overmounted = root_overmounted(root);
			if (overmounted)
				break;
			(void)cur_is_mount_root;
#else
			/* The kernel's ".." at the root steps into what is mounted
			 * on it, and a walk from there need not be ours (the agent
			 * binds a directory of its own over "/": review
			 * h-attack55, a pass 3 of 3): no ".." is walked then. Asked
			 * again at every ".." from the root or a mount's root,
			 * never cached: a mount over the root made while we walk,
			 * in whatever mount namespace (the watch sees only the
			 * thread's: the agent's root in another namespace whose
			 * mounts a child flips, 13 of 30 runs passed, review
			 * h-attack59), is seen. */
			if ((top || cur_is_mount_root(cur)) && root_overmounted(root))
				break;
#endif
			if (top)
				continue;
			nxt = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
			close(cur);
			cur = nxt;
			continue;
		}
		nxt = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (nxt < 0) {
			if (errno == err && (err == ENOENT || err == ENOTDIR))
				rc = WALK_TRUST;
			break;
		}
		if (on_procfs(nxt) || fstat(nxt, &st) != 0) {
			close(nxt);
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			struct statvfs vfs;
			ssize_t n;
			int w, follow = 1;

			/* The kernel's ELOOP past MAXSYMLINKS, or on a mount
			 * that follows none (nosymfollow, 5.10+). */
			if (++links > 40 || fstatvfs(nxt, &vfs) != 0 ||
			    (vfs.f_flag & ST_NOSYMFOLLOW)) {
				close(nxt);
				rc = err == ELOOP ? WALK_TRUST : WALK_UNSURE;
				break;
			}
			if (*p == '\0')
				follow = may_follow(cur, nxt, fsuid);
			if (follow <= 0) {
				close(nxt);
				rc = follow == 0 && err == EACCES ? WALK_TRUST : WALK_UNSURE;
				break;
			}
			n = readlinkat(nxt, "", target, sizeof(target) - 1);
			close(nxt);
			if (n <= 0)
				break;
			target[n] = '\0';
			which ^= 1;
			w = snprintf(bufs[which], sizeof(bufs[which]), "%s%s", target, p);
			if (w < 0 || (size_t)w >= sizeof(bufs[which]))
				break;
			p = bufs[which];
			if (target[0] == '/') {
				close(cur);
				cur = fcntl(root, F_DUPFD_CLOEXEC, 0);
			}
			continue;
		}
		if (must_dir && !S_ISDIR(st.st_mode)) {
			close(nxt);
			rc = err == ENOTDIR ? WALK_TRUST : WALK_UNSURE;
			break;
		}
		close(cur);
		cur = nxt;
	}
	if (cur >= 0)
		close(cur);
	close(root);
	/* A directory the walk stood in changed while it walked (an entry
	 * made, removed or moved, or the directory itself moved): the walk
	 * mixes states no single lookup of the kernel's sees (review
	 * h-attack62: q exchanged with r while the walk looked x up in the old
	 * q). */
#ifndef SV_MUTANT_WALK_DIR_CHANGE_IGNORED
	/* MUTANT walk-dir-change-ignored: the walk's answer stands though a
	 * directory it stood in changed meanwhile (h-attack62's xchg). */
	if ((rc == WALK_TRUST || rc == WALK_FOUND) && !*mech_err && sv_walkwatch_changed(&watch)) {
		if (rc == WALK_FOUND) {
			close(*out);
			*out = -1;
		}
		rc = WALK_UNSURE;
	}
#endif
	if ((rc == WALK_TRUST || rc == WALK_FOUND) && *mech_err) {
		if (rc == WALK_FOUND) {
			close(*out);
			*out = -1;
		}
		rc = WALK_MECH;
	}
	sv_walkwatch_end(&watch);
	return rc;
}

/* The confined lookup of path from dirfd (thread tid's root or working
 * directory): 0 with *fd, a positive errno (the kernel's own answer),
 * CWD_UNNAMED (to be denied), or -errno when no confined lookup could be
 * made. */
static int open_confined(pid_t tid, int dirfd, const char *path, const struct open_how *how,
			 int *fd, const char **mech)
{
	int e, watch, walk, walk_err = 0;

	/* The mount table is watched from before our lookup to the end of the
	 * walk: walk_as_kernel asks once whether something is mounted on the
	 * root, and its steps see mounts as they are at each step. An agent
	 * that mounted over its root and unmounted again while we looked made
	 * the walk keep ".." on the root where the kernel's stepped into the
	 * mount, and a connect to a host's socket was answered ENOENT,
	 * recorded allowed (review h-attack56 finding 1, 61 of 200 connects).
	 * A failure or an object found while the table changed is denied. */
	*mech = "proc_mounts";
	watch = sv_walkwatch_mounts_open(tid);
	if (watch < 0)
		return watch;
	*mech = "openat2";
	*fd = openat2_retried(dirfd, path, how);
	if (*fd >= 0) {
		close(watch);
		return 0;
	}
	e = -*fd;
	*fd = -1;
	/* Without openat2 (before 5.6) no lookup confined to the agent's
	 * root or directory exists: a mechanism failure, never a lookup in
	 * ours. */
	if (e == ENOSYS || e == E2BIG || e == EPERM) {
		close(watch);
		return -e;
	}
	/* Our own descriptors or memory, never the kernel's answer to the
	 * agent (its lookup opens no file): a mechanism failure, not a walk
	 * whose own opens fail the same way and deny (review h-attack56: at
	 * the supervisor's descriptor limit the agent's own socket was denied
	 * unix-peer). */
#ifndef SV_MUTANT_LOOKUP_EMFILE_WALKED
	/* MUTANT lookup-emfile-walked: walked, and denied unix-peer. */
	if (e == EMFILE || e == ENFILE || e == ENOMEM) {
		close(watch);
		return -e;
	}
#endif
#ifndef SV_MUTANT_SCOPED_EAGAIN_ANSWERED
	/* MUTANT scoped-eagain-answered: a lookup still raced after the
	 * retries is answered EAGAIN, recorded allowed. The kernel's own
	 * lookup never refuses so: an agent that keeps renames going while its
	 * walk crosses a thousand stacked mounts made every try EAGAIN, and
	 * its connect to a host's socket a pass (review h-attack51 finding 1). */
	if (e == EAGAIN) {
		close(watch);
		return CWD_UNNAMED;
	}
#endif
#ifndef SV_MUTANT_PROCFS_ERRNO_ANSWERED
	/* MUTANT procfs-errno-answered: any failure of ours is the kernel's
	 * answer (ENOENT, ELOOP, EACCES recorded allowed) where the kernel
	 * followed "self", a magic link or a protected link of the agent's to
	 * a host's socket (reviews h-attack51 finding 3, h-attack52). */
	if (e != EXDEV && e != EAGAIN) {
		walk = walk_as_kernel(tid, dirfd, path, e, fd, &walk_err);
#ifndef SV_MUTANT_MOUNT_CHANGE_TRUSTED
		/* MUTANT mount-change-trusted: the walk's answer stands though
		 * the mount table changed while we looked (h-attack56's flip). */
		if ((walk == WALK_TRUST || walk == WALK_FOUND) &&
		    sv_walkwatch_mounts_changed(watch)) {
			if (walk == WALK_FOUND) {
				close(*fd);
				*fd = -1;
			}
			walk = WALK_UNSURE;
		}
#endif
		close(watch);
		switch (walk) {
		case WALK_TRUST:
			return e;
		case WALK_FOUND:
			return 0;
		case WALK_MECH:
			*mech = "inotify";
			return -walk_err;
		case WALK_GONE:
			*mech = "proc_root";
			return -ESRCH;
		default:
			return CWD_UNNAMED;
		}
	}
#else
	(void)walk_as_kernel;
	(void)walk;
	(void)walk_err;
	(void)tid;
#endif
	close(watch);
	return e;
}

/* Opens the object a path names for thread tid, resolved in its root: the
 * thread's root is the root of every absolute name and symbolic link, and
 * ".." never climbs above it. Returns 0 with *fd the O_PATH descriptor, a
 * positive errno (the lookup's answer), or -errno (*mech names the step). */
static int open_in_agent_root(pid_t tid, const char *path, int *fd, const char **mech)
{
	struct open_how how = {.flags = O_PATH | O_CLOEXEC,
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	char link[64];
	int root, rc;

	snprintf(link, sizeof(link), "/proc/%d/root", (int)tid);
	*mech = "proc_root";
	root = open(link, O_PATH | O_DIRECTORY | O_CLOEXEC);
	/* A root on failfs (Linux 7.3's fchroot(FD_FAILFS_ROOT)) refuses this
	 * open: a mechanism failure, never the lookup's own answer, since a
	 * relative name still resolves from a working directory outside that
	 * root (review h-attack48). fchroot is neutralized (filter.c), so the
	 * agent cannot get there. */
	if (root < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	rc = open_confined(tid, root, path, &how, fd, mech);
	close(root);
	return rc;
}

/* Whether the working directory's name, looked up in the thread's root,
 * is its working directory cwd: 1, 0 (another object, or none), or -errno.
 * Its name is what /proc/TID/cwd reads, which is the directory's path in
 * the thread's root only while the directory is below that root under it:
 * a chroot in a user namespace of the agent's own leaves it outside, a
 * detached mount renames it "/" (review h-attack49). Proven, it puts the
 * directory in the mounts of the agent's namespace, whose write access
 * rootfs.c read back: a directory received from elsewhere is not. */
static int cwd_named(pid_t tid, int cwd, char *full, size_t dirlen, const char **mech)
{
	char keep = full[dirlen];
	int fd = -1, rc;

	full[dirlen] = '\0';
	rc = open_in_agent_root(tid, dirlen ? full : "/", &fd, mech);
	full[dirlen] = keep;
	if (rc == 0) {
		*mech = "statx";
		rc = same_object(fd, cwd);
		close(fd);
	} else if (rc > 0) {
		rc = 0;
	}
	return rc;
}

/* The object a relative name names below the working directory cwd, found
 * from that directory itself as the kernel finds it. Returns 0 with *fd, a
 * positive errno (the kernel's own answer), -errno, or CWD_ESCAPES for a
 * name that leaves the directory (a ".." above it, an absolute symbolic link), which
 * only a lookup from the root can follow. */
static int open_below_cwd(pid_t tid, int cwd, const char *name, int *fd, const char **mech)
{
	struct open_how how = {.flags = O_PATH | O_CLOEXEC,
			       .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS};
	int rc = open_confined(tid, cwd, name, &how, fd, mech);

	return rc == EXDEV ? CWD_ESCAPES : rc;
}

/* Opens what a relative name (full: the working directory's name, '/' at
 * dirlen, the name) names for thread tid. Returns 0 with *fd, a positive
 * errno (the kernel's own answer), CWD_UNNAMED (to be denied), or -errno.
 * The directory is looked up by name once, to prove it is the agent's
 * (cwd_named); the name is then looked up from the directory itself, never
 * by the directory's name again: between two lookups of that name a
 * thread of the agent's mounted over it, and the second found nothing (or
 * its own tmpfs) where the kernel's lookup from the directory reached a
 * host's socket (review h-attack50 finding 3: ENOENT recorded allowed,
 * pass where unix-peer was due). */
static int open_relative(pid_t tid, char *full, size_t dirlen, int *fd, const char **mech)
{
	char link[64];
	int cwd, rc;

	snprintf(link, sizeof(link), "/proc/%d/cwd", (int)tid);
	*mech = "proc_cwd";
	cwd = open(link, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cwd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	rc = cwd_named(tid, cwd, full, dirlen, mech);
	if (rc >= 0)
		rc = rc ? 0 : CWD_UNNAMED;
	/* The window a test build widens between the directory's proof and
	 * the name's lookup, where an overmount lands every time: it ends
	 * when the name stops naming the directory (the mount landed), at
	 * most 3 s. A fixed 300 ms missed the agent's mount on a machine at
	 * load 6 (the proof came after it). */
	if (rc == 0 && sv_fault("cwd_window")) {
		const char *ignored = NULL;

		for (int i = 0; i < 300 && cwd_named(tid, cwd, full, dirlen, &ignored) == 1; i++)
			usleep(10 * 1000);
	}
#ifndef SV_MUTANT_CWD_WALK_BY_NAME
	/* MUTANT cwd-walk-by-name: the whole name is looked up from the root,
	 * through the directory's name, and its error is the kernel's answer
	 * (h-attack50 finding 3). */
	if (rc == 0)
		rc = open_below_cwd(tid, cwd, full + dirlen + 1, fd, mech);
	if (rc == CWD_ESCAPES) {
		rc = open_in_agent_root(tid, full, fd, mech);
#ifndef SV_MUTANT_CWD_ESCAPE_ERRNO_TRUSTED
		/* MUTANT cwd-escape-errno-trusted: the error of a lookup through
		 * the directory's name is the kernel's answer. It is none: the
		 * name may have led elsewhere since the proof (an overmount), and
		 * a failure recorded allowed hides an attempt at a host's socket.
		 * Found, the object is what is judged and connected to. */
		if (rc > 0)
			rc = CWD_UNNAMED;
#endif
	}
#else
	(void)open_below_cwd;
	if (rc == 0)
		rc = open_in_agent_root(tid, full, fd, mech);
#endif
	close(cwd);
	return rc;
}

int sv_unixpath_open(pid_t tid, const char *path, size_t plen, int *fd, const char **mech)
{
	char full[PATH_MAX + sizeof(((struct sockaddr_un *)0)->sun_path) + 2];
	size_t dirlen;
	int rc;

	*mech = "proc_cwd";
	rc = agent_path(tid, path, plen, full, sizeof(full), &dirlen);
#ifndef SV_MUTANT_CWD_NAME_TRUSTED
	/* MUTANT cwd-name-trusted: the working directory's name is taken for
	 * it, and a name that leads nowhere for the lookup's own answer. A
	 * relative name then reached a host's socket the supervisor never
	 * judged: the connect was answered ENOENT and recorded allowed, pass
	 * where unix-peer was due (reviews h-attack48, h-attack49). A working
	 * directory that no name in the root leads to is the agent's own doing
	 * (a chroot in its user namespace, a detached mount): denied, never a
	 * mechanism failure, whose bucket it could then choose. */
	if (rc == 0 && path[0] != '/')
		return open_relative(tid, full, dirlen, fd, mech);
#else
	(void)open_relative;
	if (rc == CWD_UNNAMED)
		rc = ENOENT;
#endif
	if (rc == 0)
		rc = open_in_agent_root(tid, full, fd, mech);
	return rc;
}
