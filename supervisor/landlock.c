#include "landlock.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fault.h"
#include "mountinfo.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

/* landlock_ruleset_attr as of Landlock ABI 6 (6.12), wider than older
 * headers' struct: the kernel takes the prefix it knows and requires the
 * rest to be zero. */
struct sv_landlock_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI 4 */
	uint64_t scoped;             /* ABI 6 */
};
#define SV_LANDLOCK_SCOPE_SIGNAL (1ull << 1)
#define SV_LANDLOCK_CREATE_RULESET_VERSION (1u << 0)

#define MAX_DEPTH 64

/* A directory a cgroup file's path passes through on its way up to "/":
 * the dentries Landlock visits when it looks for a rule (its walk goes up
 * each mount to the mount's root, then to the mount point in the parent
 * mount), named by file system and path within it. A rule on any of them,
 * reached by whatever path, would grant the write. */
struct walk {
	char dev[32];
	char *path;
};

static struct {
	struct sv_mount *m;
	int nm;
	struct walk *w;
	int nw;
} T;

int sv_landlock_signal_scoped(void)
{
#ifdef SV_MUTANT_NO_SIGNAL_SCOPE
	/* MUTANT no-signal-scope: the agent may signal its supervisor. */
	return 0;
#endif
	long abi =
	    syscall(SYS_landlock_create_ruleset, NULL, 0u, SV_LANDLOCK_CREATE_RULESET_VERSION);

	return abi >= 6;
}

static int is_cgroup(const struct sv_mount *m)
{
	return strcmp(m->type, "cgroup") == 0 || strcmp(m->type, "cgroup2") == 0;
}

/* root joined with rel ("" or "/x/y"): a path within one file system. */
static int join(char *out, const char *root, const char *rel)
{
	int n = snprintf(out, PATH_MAX, "%s%s", strcmp(root, "/") == 0 && *rel ? "" : root, rel);

	return n > 0 && n < PATH_MAX ? 0 : -ENAMETOOLONG;
}

/* path relative to mount point mp ("" when equal, else "/..."); NULL when
 * path is not at or below mp. */
static const char *below(const char *path, const char *mp)
{
	size_t n = strlen(mp);

	if (strcmp(mp, "/") == 0)
		return strcmp(path, "/") == 0 ? "" : path;
	if (strncmp(path, mp, n) != 0 || (path[n] != '\0' && path[n] != '/'))
		return NULL;
	return path + n;
}

static int add_walk(const char *dev, const char *path)
{
	struct walk *n = realloc(T.w, (size_t)(T.nw + 1) * sizeof(*T.w));

	if (!n)
		return -ENOMEM;
	T.w = n;
	memcpy(T.w[T.nw].dev, dev, sizeof(T.w[0].dev));
	T.w[T.nw].path = strdup(path);
	return T.w[T.nw].path ? (T.nw++, 0) : -ENOMEM;
}

static const struct sv_mount *by_id(int id)
{
	for (int i = 0; i < T.nm; i++)
		if (T.m[i].id == id)
			return &T.m[i];
	return NULL;
}

/* The walk set: from every cgroup mount point up through each parent
 * mount to the top of our mount table. */
static int build_walk(void)
{
	int rc = 0;

	for (int i = 0; rc == 0 && i < T.nm; i++) {
		const struct sv_mount *cur = &T.m[i], *up;
		int hops = 0;

		if (!is_cgroup(&T.m[i]))
			continue;
		while (rc == 0 && (up = by_id(cur->parent)) && up != cur && hops++ < T.nm) {
			const char *rel = below(cur->mp, up->mp);
			char p[PATH_MAX];

			if (!rel || (rc = join(p, up->root, rel)) < 0)
				break;
			/* p and each directory above it, up to the mount's root. */
			for (;;) {
				char *slash;

				if ((rc = add_walk(up->dev, p)) < 0 || strcmp(p, up->root) == 0 ||
				    strcmp(p, "/") == 0)
					break;
				slash = strrchr(p, '/');
				if (slash == p)
					p[1] = '\0';
				else
					*slash = '\0';
			}
			cur = up;
		}
	}
	return rc;
}

/* 1 when a mount of file system dev whose root is r shows a dentry of
 * the walk set: one at r or below it. */
static int exposes(const char *dev, const char *r)
{
	size_t n = strlen(r);

	for (int i = 0; i < T.nw; i++) {
		const char *w = T.w[i].path;

		if (strcmp(T.w[i].dev, dev) == 0 &&
		    (strcmp(r, "/") == 0 ||
		     (strncmp(w, r, n) == 0 && (w[n] == '\0' || w[n] == '/'))))
			return 1;
	}
	return 0;
}

/* 1 when another mount is stacked on m (at its mount point, with m as its
 * parent): mountinfo lists mounts in the order they were made, not by
 * stacking (mount --move, MOVE_MOUNT_BENEATH), so the top of a stack is
 * told by parent ids. */
static int covered(const struct sv_mount *m)
{
	for (int i = 0; i < T.nm; i++)
		if (T.m[i].parent == m->id && &T.m[i] != m && strcmp(T.m[i].mp, m->mp) == 0)
			return 1;
	return 0;
}

/* The mount that path is in: of the mounts whose mount point is the
 * longest prefix of path, the one at the top of their stack. */
static const struct sv_mount *containing(const char *path)
{
	const struct sv_mount *best = NULL;

	for (int i = 0; i < T.nm; i++) {
		const struct sv_mount *m = &T.m[i];

		if (!below(path, m->mp) || covered(m))
			continue;
		if (!best || strlen(m->mp) > strlen(best->mp))
			best = m;
	}
	return best;
}

/* 1 when a rule on path would reach a cgroup file: a cgroup mount at or
 * below it, or a dentry of the walk set seen through it (its own mount, a
 * bind or a second mount of the same file system, at it or below it). A
 * path whose mount cannot be told is treated as such. */
static int reaches_cgroup(const char *path)
{
	const struct sv_mount *c = containing(path);
	char within[PATH_MAX];

	if (!c || join(within, c->root, below(path, c->mp)) < 0 || is_cgroup(c) ||
	    exposes(c->dev, within))
		return 1;
	for (int i = 0; i < T.nm; i++) {
		const char *rel = below(T.m[i].mp, path);

		if (rel && *rel && (is_cgroup(&T.m[i]) || exposes(T.m[i].dev, T.m[i].root)))
			return 1;
	}
	return 0;
}

/* 1 when path is a cgroup mount point (the top of its stack). */
static int is_cgroup_mount(const char *path)
{
	const struct sv_mount *c = containing(path);

	return c && is_cgroup(c) && strcmp(c->mp, path) == 0;
}

static int add_rule(int ruleset, int fd)
{
	struct landlock_path_beneath_attr pb = {
	    .allowed_access = LANDLOCK_ACCESS_FS_WRITE_FILE,
	    .parent_fd = fd,
	};

	return syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0u) == 0
		   ? 0
		   : -errno;
}

static int add_rule_path(int ruleset, const char *path)
{
	int fd = open(path, O_PATH | O_CLOEXEC), rc;

	if (fd < 0)
		return -errno;
	rc = add_rule(ruleset, fd);
	close(fd);
	return rc;
}

/* dir is a directory a rule on which would reach a cgroup file: every
 * entry of it that would not gets write access beneath it; those that
 * would are split the same way one level down, cgroup mounts themselves
 * never. Symbolic links get no rule (what they point to gets its own, or
 * none). An entry that cannot be opened gets no rule: it stays unwritable
 * to the agent (a false red at worst, never a way to a cgroup file). */
static int grant_beside(int ruleset, const char *dir, int depth)
{
	DIR *d;
	struct dirent *e;
	int rc = 0;

	if (depth > MAX_DEPTH)
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while (rc == 0 && (e = readdir(d))) {
		char child[PATH_MAX];
		struct stat st;
		int fd;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if ((size_t)snprintf(child, sizeof(child), "%s/%s", strcmp(dir, "/") ? dir : "",
				     e->d_name) >= sizeof(child))
			continue;
		fd = openat(dirfd(d), e->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) != 0 || S_ISLNK(st.st_mode) || is_cgroup_mount(child))
			;
		else if (!reaches_cgroup(child))
			rc = add_rule(ruleset, fd);
		else if (S_ISDIR(st.st_mode))
			rc = grant_beside(ruleset, child, depth + 1);
		close(fd);
	}
	closedir(d);
	return rc;
}

/* What the domain is proven on: for each cgroup mount, the first cgroup
 * file its uid may open for writing by its mode, looked for from the
 * supervisor's own cgroup in that mount upwards. Every file of a mount is
 * reached through the mount's root, so a rule that reaches one of them
 * reaches all: one file proves its mount. */
static char **proofs;
static int nproofs;

/* The first writable cgroup file in dir or a cgroup above it, up to the
 * mount point mp: a malloc'ed path, or NULL when there is none. */
static char *writable_file_above(char *dir, const char *mp)
{
	static const char *const names[] = {"cgroup.procs", "cgroup.freeze", "cgroup.kill", "tasks",
					    "freezer.state"};
	char f[PATH_MAX];

	for (;;) {
		char *slash = strrchr(dir, '/');

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if ((size_t)snprintf(f, sizeof(f), "%s/%s", dir, names[i]) < sizeof(f) &&
			    access(f, W_OK) == 0)
				return strdup(f);
		if (strcmp(dir, mp) == 0 || !slash || slash == dir ||
		    (size_t)(slash - dir) < strlen(mp))
			return NULL;
		*slash = '\0';
	}
}

/* Before the domain: the files above, found by /proc/self/cgroup (every
 * line tried under every cgroup mount: one under the wrong hierarchy names
 * no directory, or another cgroup file of that mount, just as good).
 * Returns 0, or -errno when what must be proven cannot be listed. */
static int find_proofs(void)
{
	FILE *f = NULL;
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;

	for (int i = 0; rc == 0 && i < T.nm; i++) {
		int found = 0;

		if (!is_cgroup(&T.m[i]))
			continue;
		if (!f && !(f = fopen("/proc/self/cgroup", "re"))) {
			rc = -errno;
			break;
		}
		rewind(f);
		while (!found && rc == 0 && getline(&line, &cap, f) > 0) {
			char *path = strchr(line, ':'), dir[PATH_MAX], *file, **n;
			const char *rel;

			path = path ? strchr(path + 1, ':') : NULL;
			if (!path)
				continue;
			path++;
			path[strcspn(path, "\n")] = '\0';
			rel = below(path, T.m[i].root);
			if (!rel || (size_t)snprintf(dir, sizeof(dir), "%s%s",
						     strcmp(T.m[i].mp, "/") ? T.m[i].mp : "",
						     rel) >= sizeof(dir))
				continue;
			if (!(file = writable_file_above(dir, T.m[i].mp)))
				continue;
			if (!(n = realloc(proofs, (size_t)(nproofs + 1) * sizeof(*proofs)))) {
				free(file);
				rc = -ENOMEM;
				break;
			}
			proofs = n;
			proofs[nproofs++] = file;
			found = 1;
		}
	}
	free(line);
	if (f)
		fclose(f);
	return rc;
}

/* Inside the domain: every file find_proofs found must now be refused.
 * One that opens (closed at once, nothing written) means some rule
 * reaches it on this host's mount layout (one this code does not see: a
 * supervisor in a chroot, whose mountinfo leaves out what Landlock walks
 * through): -EXDEV, and the agent must not run. */
static int prove_refused(void)
{
#ifdef SV_MUTANT_NO_CGROUP_PROOF
	/* MUTANT no-cgroup-proof: the domain is trusted as built. */
	return 0;
#endif
	for (int i = 0; i < nproofs; i++) {
		int fd = open(proofs[i], O_WRONLY | O_CLOEXEC | O_NOCTTY);

		if (fd >= 0) {
			close(fd);
			return -EXDEV;
		}
	}
	return 0;
}

/* The domain's signal scope, proven by doing it: signal 0 to our parent
 * (the supervisor, or init once it is gone: outside the domain either way)
 * must be refused. Sent, the scope is not there: -EPROTO, and the agent
 * must not run under a report that says it is. */
static int prove_signal_scope(void)
{
	if (kill(getppid(), 0) == 0)
		return -EPROTO;
	return errno == EPERM ? 0 : -errno;
}

int sv_landlock_restrict(int signal_scope)
{
	struct sv_landlock_attr attr;
	int fd, writes, scoped = signal_scope, rc = 0;

#ifdef SV_MUTANT_NO_LANDLOCK
	/* MUTANT no-landlock: a uid-1000 agent can reach other processes of its uid. */
	return 0;
#endif
	/* Seam: Landlock built but not in the lsm= list (EOPNOTSUPP), or absent. */
	if ((rc = sv_fault("landlock")) < 0)
		return rc;
	memset(&attr, 0, sizeof(attr));
	/* MAKE_BLOCK, with no rule: mknod of a block device, which the agent
	 * cannot do anyway without CAP_MKNOD. WRITE_FILE, granted everywhere
	 * but on cgroup file systems (see landlock.h). */
	attr.handled_access_fs = LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_WRITE_FILE;
#ifdef SV_MUTANT_CGROUP_WRITABLE
	/* MUTANT cgroup-writable: WRITE_FILE is not handled, so a uid-1000
	 * agent writes its supervisor's cgroup.kill and cgroup.freeze where
	 * the cgroup is delegated to its uid. */
	attr.handled_access_fs = LANDLOCK_ACCESS_FS_MAKE_BLOCK;
#endif
	if (scoped) {
		attr.scoped = SV_LANDLOCK_SCOPE_SIGNAL;
		/* Seam: a kernel that took the domain without the scope. */
		if (sv_fault("signal_scope") < 0)
			attr.scoped = 0;
	}
	writes = (attr.handled_access_fs & LANDLOCK_ACCESS_FS_WRITE_FILE) != 0;
	if (writes) {
		if ((T.nm = sv_mountinfo_read(&T.m)) < 0)
			return T.nm;
		if ((rc = build_walk()) < 0 || (rc = find_proofs()) < 0)
			return rc;
	}
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0u);
	if (fd < 0)
		return -errno;
	if (writes && !is_cgroup_mount("/")) {
		if (!reaches_cgroup("/"))
			rc = add_rule_path(fd, "/");
		else
			rc = grant_beside(fd, "/", 0);
	}
	/* restrict_self needs no_new_privs (or CAP_SYS_ADMIN); the filter sets
	 * it too, in the same child. */
	if (rc == 0 && (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
			syscall(SYS_landlock_restrict_self, fd, 0u) != 0))
		rc = -errno;
	close(fd);
	/* Proven by doing it: what the agent must not write, tried, and the
	 * supervisor it must not signal, signalled. */
	if (rc == 0)
		rc = prove_refused();
	if (rc == 0 && scoped)
		rc = prove_signal_scope();
	return rc;
}
