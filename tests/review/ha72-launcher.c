/*
 * ha72-launcher.c: hostile review h-attack72. A uid-1000 caller shaped like
 * a rootless container (a user namespace its uid owns, ids mapped to
 * themselves, a mount namespace of its own), in which a process of the uid
 * holding the namespace's capabilities (here the launcher itself, before
 * it lets the child exec) makes the supervisor's /proc/self/ns a procfs
 * directory without a "user" entry. started_in_our_userns then answers
 * USERNS_ABSENT ("a kernel without CONFIG_USER_NS") and the host's
 * refusals are believed again.
 *
 *   ha72-launcher MODE LIMIT -- PROGRAM [ARG]...
 *
 * MODE (what is put over the child's /proc/PID/ns, by bind mount):
 *   none    nothing (control: the namespace's refusal is ours)
 *   fdinfo  /proc/PID/fdinfo of the child (procfs, no "user")
 *   sysnet  /proc/sys/net (procfs: sysctl inodes live in the proc sb)
 *   pidnet  a bind of another process's /proc/PID over the child's
 *           /proc/PID is not possible without its pid; this mode binds
 *           the launcher's own /proc/PID/fdinfo (another process's dir)
 *   tmpfs   a tmpfs directory (control: what the fstatfs proof catches)
 *   selfsym the /proc/self symlink itself covered by a symlink to a
 *           directory whose "ns" is /proc/thread-self/fdinfo and whose
 *           other entries lead back (open_tree + move_mount: no pid needed)
 * LIMIT: 0 sets the namespace's user.max_user_namespaces to 0 (the
 *   refusal, ENOSPC, that host_limit_zero then reads as the host's); "-"
 *   leaves it.
 * Prints "ha72-launcher: ..." lines on stderr, exits with the child's
 * status (or 120+ on a set-up failure).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		rc = -errno ? -errno : -EIO;
	close(fd);
	return rc;
}

static void die(const char *what)
{
	fprintf(stderr, "ha72-launcher: %s: %s\n", what, strerror(errno));
	exit(121);
}

/* Covers the symlink PATH with a clone of the symlink LINK (no follow on
 * either side). */
static int cover_symlink(const char *link, const char *path)
{
	int t = (int)syscall(SYS_open_tree, AT_FDCWD, link, OPEN_TREE_CLONE | AT_SYMLINK_NOFOLLOW);

	if (t < 0)
		return -errno;
	if (syscall(SYS_move_mount, t, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH) != 0)
		return -errno;
	return 0;
}

int main(int argc, char **argv)
{
	char map[64], src[128], dst[128];
	unsigned uid = (unsigned)getuid(), gid = (unsigned)getgid();
	int go[2], status;
	const char *mode, *limit;
	pid_t child;

	if (argc < 5 || strcmp(argv[3], "--") != 0) {
		fprintf(stderr, "usage: ha72-launcher MODE LIMIT -- PROGRAM [ARG]...\n");
		return 2;
	}
	mode = argv[1];
	limit = argv[2];
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
		die("unshare");
	snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
	if (write_file("/proc/self/uid_map", map) < 0 ||
	    write_file("/proc/self/setgroups", "deny") < 0)
		die("uid_map");
	snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
	if (write_file("/proc/self/gid_map", map) < 0)
		die("gid_map");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		die("private");
	if (strcmp(limit, "-") != 0 && write_file("/proc/sys/user/max_user_namespaces", "0\n") < 0)
		die("limit");
	if (strcmp(mode, "selfsym") == 0) {
		/* No pid needed: every later process of this mount namespace
		 * that opens /proc/self/... lands in /tmp/ha72-self/. */
		static const char *const back[] = {
		    "uid_map", "gid_map", "setgroups", "stat",   "status",        "mountinfo",
		    "fd",      "fdinfo",  "exe",       "cgroup", "mounts",        "attr",
		    "environ", "cmdline", "maps",      "comm",   "oom_score_adj", "limits",
		    "root",    "cwd"};
		char d[] = "/tmp/ha72-self.XXXXXX";

		if (!mkdtemp(d) || chmod(d, 0755) != 0)
			die("mkdtemp");
		snprintf(dst, sizeof(dst), "%s/ns", d);
		if (symlink("/proc/thread-self/fdinfo", dst) != 0)
			die("symlink ns");
		for (size_t i = 0; i < sizeof(back) / sizeof(back[0]); i++) {
			snprintf(dst, sizeof(dst), "%s/%s", d, back[i]);
			snprintf(src, sizeof(src), "/proc/thread-self/../../%s", back[i]);
			if (symlink(src, dst) != 0)
				die("symlink back");
		}
		snprintf(dst, sizeof(dst), "%s.link", d);
		if (symlink(d, dst) != 0)
			die("symlink link");
		errno = -cover_symlink(dst, "/proc/self");
		if (errno)
			die("cover /proc/self");
		fprintf(stderr, "ha72-launcher: /proc/self covered by %s -> %s\n", dst, d);
	}
	if (pipe(go) != 0)
		die("pipe");
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(122);
		close(go[0]);
		execvp(argv[4], argv + 4);
		_exit(127);
	}
	close(go[0]);
	snprintf(dst, sizeof(dst), "/proc/%d/ns", (int)child);
	src[0] = 0;
	if (strcmp(mode, "fdinfo") == 0)
		snprintf(src, sizeof(src), "/proc/%d/fdinfo", (int)child);
	else if (strcmp(mode, "sysnet") == 0)
		snprintf(src, sizeof(src), "/proc/sys/net");
	else if (strcmp(mode, "pidnet") == 0)
		snprintf(src, sizeof(src), "/proc/%d/fdinfo", (int)getpid());
	else if (strcmp(mode, "tmpfs") == 0) {
		if (mount("tmpfs", "/mnt", "tmpfs", 0, "mode=755") != 0)
			die("tmpfs");
		snprintf(src, sizeof(src), "/mnt");
	} else if (strcmp(mode, "none") != 0 && strcmp(mode, "selfsym") != 0) {
		fprintf(stderr, "ha72-launcher: unknown mode %s\n", mode);
		return 2;
	}
	if (src[0]) {
		if (mount(src, dst, NULL, MS_BIND, NULL) != 0)
			die("bind over /proc/PID/ns");
		fprintf(stderr, "ha72-launcher: %s bound over %s\n", src, dst);
	}
	if (write(go[1], "g", 1) != 1)
		die("go");
	close(go[1]);
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
