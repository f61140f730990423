/* ha36-agent: hostile review h-attack36 (the fixes of h-attack34 and
 * h-attack35).
 *
 *   ha36-agent swapdir DIR BASE  moves DIR (the --report FILE's directory,
 *                                below a --writable path) aside to DIR.real,
 *                                makes a new DIR holding BASE: a forged
 *                                complete report with verdict "pass" (the
 *                                provisional report the supervisor wrote
 *                                before the agent started, edited), then
 *                                makes a denied connect (the truth: fail).
 *                                The supervisor's report.c writes through
 *                                the directory descriptor it opened at
 *                                set-up, so the true report lands in
 *                                DIR.real, and FILE keeps the forgery.
 *   ha36-agent plant KIND DIR BASE
 *                                replaces DIR/BASE with KIND: "dir" (a
 *                                directory holding a file), "fifo", or
 *                                "symlink" (to /etc/hostname), or "gone"
 *                                (FILE and DIR removed), then makes
 *                                the denied connect: the exit status, the
 *                                descriptor's record and the file must
 *                                agree, and nothing may hang.
 *   ha36-agent denied            only the denied connect (control).
 *   ha36-agent cgroup MOUNT      a root agent's other ways to a writable
 *                                cgroup2 view of its supervisor's cgroup,
 *                                now that CLONE_NEWCGROUP is refused it: in
 *                                a user and mount namespace of its own,
 *                                unshare/clone/clone3/int 0x80 unshare with
 *                                CLONE_NEWCGROUP, mount and fsopen of
 *                                cgroup2 and cgroup v1 (freezer), an
 *                                open_tree clone of the cgroup mount made
 *                                writable (mount_setattr), a remount rw;
 *                                each that gives a view writes "1" to its
 *                                cgroup.freeze (then "0").
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/mount.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void denied(void)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(9)};
	int s = socket(AF_INET, SOCK_STREAM, 0);
	int rc;

	/* A documentation address outside the allow-list: denied before any
	 * packet leaves. */
	inet_pton(AF_INET, "192.0.2.1", &sin.sin_addr);
	rc = connect(s, (struct sockaddr *)&sin, sizeof(sin));
	printf("agent: connect(192.0.2.1:9) = %d (%s)\n", rc, rc ? strerror(errno) : "ok");
	close(s);
}

/* Writes text to out with the first "from" replaced by "to". */
static void put_replaced(FILE *out, const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);

	if (!at) {
		fputs(text, out);
		return;
	}
	fwrite(text, 1, (size_t)(at - text), out);
	fputs(to, out);
	fputs(at + strlen(from), out);
}

static int swapdir(const char *dir, const char *base)
{
	static char prov[65536], a[65536], b[65536];
	char aside[4096], file[4096], real[4200];
	FILE *f, *m;
	size_t n = 0;

	snprintf(aside, sizeof(aside), "%s.real", dir);
	snprintf(file, sizeof(file), "%s/%s", dir, base);
	snprintf(real, sizeof(real), "%s/%s", aside, base);
	if (rename(dir, aside) != 0) {
		printf("agent: rename(%s, %s): %s\n", dir, aside, strerror(errno));
		return 1;
	}
	if (mkdir(dir, 0755) != 0) {
		printf("agent: mkdir(%s): %s\n", dir, strerror(errno));
		return 1;
	}
	/* The forgery: the supervisor's own provisional report (written
	 * before the agent started: the run's argv, kernel, probe, policy),
	 * made complete, its verdict pass and its agent's exit 0. */
	f = fopen(real, "re");
	if (f) {
		n = fread(prov, 1, sizeof(prov) - 1, f);
		fclose(f);
	}
	prov[n] = '\0';
	m = fmemopen(a, sizeof(a), "w");
	put_replaced(m, prov, "\"complete\": false", "\"complete\": true");
	fclose(m);
	m = fmemopen(b, sizeof(b), "w");
	put_replaced(m, a, "\"verdict\": \"capability-error\"", "\"verdict\": \"pass\"");
	fclose(m);
	m = fmemopen(a, sizeof(a), "w");
	put_replaced(m, b,
		     "\"reason\": \"the supervisor did not finish: it cannot vouch for the run\"",
		     "\"reason\": null");
	fclose(m);
	f = fopen(file, "we");
	if (!f) {
		printf("agent: %s: %s\n", file, strerror(errno));
		return 1;
	}
	put_replaced(f, a, "\"exit_code\": null", "\"exit_code\": 0");
	fclose(f);
	printf("agent uid %d: moved %s to %s, forged %s from the provisional report (%zu "
	       "bytes)\n",
	       getuid(), dir, aside, file, n);
	denied();
	return 0;
}

/* The cgroup this process is in, as its /proc/self/cgroup says ("0::PATH"). */
static void own_cgroup(char *out, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[380];

	snprintf(out, len, "/");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, len, "%s", line + 3);
		}
	if (f)
		fclose(f);
}

/* Freezes and thaws the cgroup the view at root (a directory or a mount
 * descriptor) shows this process in: "REACHED" when the write took. */
static void try_freeze(const char *how, int rootfd, const char *rel)
{
	char path[600];
	int fd;

	snprintf(path, sizeof(path), "%s/cgroup.freeze", *rel == '/' ? rel + 1 : rel);
	if (path[0] == '/')
		memmove(path, path + 1, strlen(path));
	fd = openat(rootfd, path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("agent cgroup %s: open %s: %s\n", how, path, strerror(errno));
		return;
	}
	if (write(fd, "1", 1) == 1) {
		printf("agent cgroup %s: REACHED %s (froze its supervisor's cgroup)\n", how, path);
		(void)!write(fd, "0", 1);
	} else {
		printf("agent cgroup %s: write %s: %s\n", how, path, strerror(errno));
	}
	close(fd);
}

static long clone3_cgroup(void)
{
	struct {
		uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
	} args = {.flags = CLONE_NEWCGROUP, .exit_signal = SIGCHLD};
	long rc = syscall(435, &args, sizeof(args));

	if (rc == 0)
		_exit(0);
	return rc;
}

static long int80_unshare(unsigned long flags)
{
	long rc;

	/* i386 unshare (310) through int 0x80 from a 64-bit process. */
	__asm__ volatile("int $0x80" : "=a"(rc) : "0"(310L), "b"(flags) : "memory");
	return rc;
}

static int mode_cgroup(const char *base)
{
	char cg[400], rel[512];
	int fs, mnt, tree;
	long rc;
	pid_t pid;

	own_cgroup(cg, sizeof(cg));
	printf("agent uid %d: in cgroup %s\n", getuid(), cg);
	/* Control: the host's cgroup mount, read-only in this view. */
	snprintf(rel, sizeof(rel), "%s%s", base, cg);
	try_freeze("host view", AT_FDCWD, rel);
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
		printf("agent: unshare(user, mount): %s\n", strerror(errno));
		return 1;
	}
	rc = unshare(CLONE_NEWCGROUP);
	printf("agent: unshare(CLONE_NEWCGROUP) = %ld (%s)\n", rc, rc ? strerror(errno) : "ok");
	pid = (pid_t)syscall(SYS_clone, CLONE_NEWCGROUP | SIGCHLD, 0, 0, 0, 0);
	if (pid == 0)
		_exit(0);
	printf("agent: clone(CLONE_NEWCGROUP) = %d (%s)\n", pid, pid < 0 ? strerror(errno) : "ok");
	if (pid > 0)
		waitpid(pid, NULL, 0);
	rc = clone3_cgroup();
	printf("agent: clone3(CLONE_NEWCGROUP) = %ld (%s)\n", rc, rc < 0 ? strerror(errno) : "ok");
	/* In a child: without ia32 emulation int 0x80 is a SIGSEGV. */
	pid = fork();
	if (pid == 0) {
		rc = int80_unshare(CLONE_NEWCGROUP);
		printf("agent: int 0x80 unshare(CLONE_NEWCGROUP) = %ld\n", rc);
		_exit(0);
	}
	if (pid > 0) {
		int st = 0;

		waitpid(pid, &st, 0);
		if (WIFSIGNALED(st))
			printf("agent: int 0x80 unshare: child killed by signal %d\n",
			       WTERMSIG(st));
	}
	/* Over the cgroup2 mount itself: in this mount namespace, a mount of
	 * our own may cover a locked one. */
	if (mount("cgroup2", base, "cgroup2", 0, NULL) == 0)
		try_freeze("mount cgroup2", AT_FDCWD, base);
	else
		printf("agent: mount cgroup2: %s\n", strerror(errno));
	if (mount("cgroup", base, "cgroup", 0, "freezer") == 0)
		printf("agent: REACHED a cgroup v1 freezer mount\n");
	else
		printf("agent: mount cgroup v1 freezer: %s\n", strerror(errno));
	for (int v = 0; v < 2; v++) {
		fs = (int)syscall(430, v ? "cgroup" : "cgroup2", 0);
		if (fs < 0) {
			printf("agent: fsopen(%s): %s\n", v ? "cgroup" : "cgroup2",
			       strerror(errno));
			continue;
		}
		if (v)
			(void)syscall(431, fs, FSCONFIG_SET_FLAG, "freezer", NULL, 0);
		rc = syscall(431, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0);
		mnt = rc == 0 ? (int)syscall(432, fs, 0, 0) : -1;
		printf("agent: fsopen(%s) create = %ld, fsmount = %d (%s)\n",
		       v ? "cgroup" : "cgroup2", rc, mnt, mnt < 0 ? strerror(errno) : "ok");
		if (mnt >= 0 && !v)
			try_freeze("fsmount cgroup2", mnt, ".");
	}
	tree = (int)syscall(428, AT_FDCWD, base, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree >= 0) {
		struct mount_attr attr = {.attr_clr = MOUNT_ATTR_RDONLY};

		rc = syscall(442, tree, "", AT_EMPTY_PATH, &attr, sizeof(attr));
		printf("agent: open_tree clone of the cgroup2 mount, mount_setattr(-rdonly) = %ld "
		       "(%s)\n",
		       rc, rc ? strerror(errno) : "ok");
		try_freeze("open_tree clone", tree, cg);
	} else {
		printf("agent: open_tree(%s): %s\n", base, strerror(errno));
	}
	rc = mount(NULL, base, NULL, MS_REMOUNT | MS_BIND, NULL);
	printf("agent: remount the cgroup2 mount rw = %ld (%s)\n", rc, rc ? strerror(errno) : "ok");
	if (rc == 0)
		try_freeze("remount rw", AT_FDCWD, rel);
	return 0;
}

static int plant(const char *kind, const char *dir, const char *base)
{
	char file[4096], inner[4200];
	int rc;

	snprintf(file, sizeof(file), "%s/%s", dir, base);
	unlink(file);
	if (strcmp(kind, "dir") == 0) {
		snprintf(inner, sizeof(inner), "%s/keep", file);
		rc = mkdir(file, 0755);
		if (rc == 0)
			rc = close(open(inner, O_WRONLY | O_CREAT, 0644));
	} else if (strcmp(kind, "gone") == 0) {
		rc = rmdir(dir);
	} else if (strcmp(kind, "fifo") == 0) {
		rc = mkfifo(file, 0644);
	} else if (strcmp(kind, "symlink") == 0) {
		rc = symlink("/etc/hostname", file);
	} else {
		return 2;
	}
	printf("agent uid %d: %s planted at %s: %s\n", getuid(), kind, file,
	       rc ? strerror(errno) : "ok");
	denied();
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 4 && strcmp(argv[1], "swapdir") == 0)
		return swapdir(argv[2], argv[3]);
	if (argc == 5 && strcmp(argv[1], "plant") == 0)
		return plant(argv[2], argv[3], argv[4]);
	if (argc == 3 && strcmp(argv[1], "cgroup") == 0)
		return mode_cgroup(argv[2]);
	if (argc >= 2 && strcmp(argv[1], "denied") == 0) {
		denied();
		return 0;
	}
	fprintf(
	    stderr,
	    "usage: ha36-agent swapdir DIR BASE | plant KIND DIR BASE | denied | cgroup MOUNT\n");
	return 2;
}
