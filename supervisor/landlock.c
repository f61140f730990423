#include "landlock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fault.h"

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

/* Enough for any mount table seen on a host (a hybrid cgroup v1 layout has
 * about a dozen); more cgroup mounts than this refuse the run. */
#define MAX_CGROUP_MOUNTS 128
#define MAX_DEPTH 64

struct excluded {
	char path[MAX_CGROUP_MOUNTS][PATH_MAX];
	int n;
};

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

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else
			*w++ = *s;
	}
	*w = 0;
}

/* Every mount point of a cgroup (v1) or cgroup2 file system, as mountinfo
 * names it in our root. */
static int cgroup_mounts(struct excluded *ex)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int rc = 0;

	if (!f)
		return -errno;
	ex->n = 0;
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		char mp[4096], type[64];
		const char *sep = strstr(line, " - ");

		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1 ||
		    sscanf(sep + 3, "%63s", type) != 1)
			continue;
		if (strcmp(type, "cgroup") != 0 && strcmp(type, "cgroup2") != 0)
			continue;
		unescape(mp);
		if (ex->n == MAX_CGROUP_MOUNTS || strlen(mp) >= PATH_MAX)
			rc = -E2BIG;
		else
			memcpy(ex->path[ex->n++], mp, strlen(mp) + 1);
	}
	fclose(f);
	return rc;
}

/* 1 when path is one of the cgroup mount points. */
static int is_excluded(const struct excluded *ex, const char *path)
{
	for (int i = 0; i < ex->n; i++)
		if (strcmp(ex->path[i], path) == 0)
			return 1;
	return 0;
}

/* 1 when path is a proper ancestor of a cgroup mount point ("/" of all). */
static int is_ancestor(const struct excluded *ex, const char *path)
{
	size_t n = strlen(path);

	for (int i = 0; i < ex->n; i++) {
		const char *m = ex->path[i];

		if (strcmp(path, "/") == 0 ? m[1] != 0 : strncmp(m, path, n) == 0 && m[n] == '/')
			return 1;
	}
	return 0;
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

/* dir is "/" or an ancestor of a cgroup mount: every entry of it that is
 * neither a cgroup mount nor such an ancestor gets write access beneath it;
 * the ancestors are split the same way, one level down. Symbolic links get
 * no rule (what they point to gets its own, or none). An entry that cannot
 * be opened gets no rule: it stays unwritable to the agent (a false red at
 * worst, never a way to a cgroup file). */
static int grant_beside(int ruleset, const struct excluded *ex, const char *dir, int depth)
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
		if (is_excluded(ex, child))
			continue;
		if (is_ancestor(ex, child)) {
			rc = grant_beside(ruleset, ex, child, depth + 1);
			continue;
		}
		fd = openat(dirfd(d), e->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && !S_ISLNK(st.st_mode))
			rc = add_rule(ruleset, fd);
		close(fd);
	}
	closedir(d);
	return rc;
}

int sv_landlock_restrict(void)
{
	static struct excluded ex;
	struct sv_landlock_attr attr;
	int fd, rc = 0;

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
	if (sv_landlock_signal_scoped())
		attr.scoped = SV_LANDLOCK_SCOPE_SIGNAL;
	if (attr.handled_access_fs & LANDLOCK_ACCESS_FS_WRITE_FILE) {
		if ((rc = cgroup_mounts(&ex)) < 0)
			return rc;
	}
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0u);
	if (fd < 0)
		return -errno;
	if ((attr.handled_access_fs & LANDLOCK_ACCESS_FS_WRITE_FILE) && !is_excluded(&ex, "/")) {
		if (!is_ancestor(&ex, "/"))
			rc = add_rule_path(fd, "/");
		else
			rc = grant_beside(fd, &ex, "/", 0);
	}
	/* restrict_self needs no_new_privs (or CAP_SYS_ADMIN); the filter sets
	 * it too, in the same child. */
	if (rc == 0 && (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
			syscall(SYS_landlock_restrict_self, fd, 0u) != 0))
		rc = -errno;
	close(fd);
	return rc;
}
