/* ha52-agent: hostile review h-attack52's agent (see ha52-host.sh).
 *   ha52-agent DIR MODE [N]
 * DIR is a host directory holding a root service's socket s.sock (read-only
 * in the run: unix-peer is due for any name that reaches it).
 * MODE flip: open DIR (O_PATH, descriptor F) and, from a sibling thread,
 *   replace the symbolic link /dev/shm/ha52/l by rename, back and forth,
 *   between "/proc/self/fd/F" and DIR. Either way the kernel's lookup of
 *   "/dev/shm/ha52/l/s.sock" reaches the service (a magic link, or DIR
 *   itself); connect that name N times (default 1), count the answers.
 * MODE fixed-magic: l is "/proc/self/fd/F" throughout (control: the
 *   through_procfs walk finds /proc, denied).
 * MODE fixed-dir: l is DIR throughout (control: judged, denied unix-peer).
 * MODE deep: no namespace. /dev/shm/ha52d holds a chain of K directories
 *   "d" (K = N, default 1900) and symbolic links l0..l7, each an absolute
 *   name of the next through the whole chain (about 4 kB), the last one
 *   naming a missing entry. connect("/dev/shm/ha52d/l0") fails ENOENT for
 *   the kernel after 8 links; it is timed.
 * MODE stack: unshare user+mount namespaces; 1000 tmpfs stacked on
 *   /dev/shm/ha52s/e and /dev/shm/ha52s/l -> "/dev/shm/ha52s/e/../e/../...
 *   /missing" (about 4 kB); connect("/dev/shm/ha52s/l") timed (ENOENT).
 * MODE protsym: setresuid(1000) (a root agent may; a uid-1000 agent is so
 *   already), a symbolic link /dev/shm/ha52p -> DIR/s.sock of its own in the
 *   sticky, world-writable /dev/shm, connect "/dev/shm/ha52p" (with
 *   fs.protected_symlinks=1 the kernel follows a trailing link there for
 *   its owner; a follower of another fsuid, the supervisor's 0, is refused
 *   EACCES).
 * MODE protsym-rel: the same, connecting "ha52p" from /dev/shm.
 * MODE protsym-own: the same uid's own listener at /dev/shm/ha52own/app.sock
 *   reached through its own link /dev/shm/ha52o (false-red check).
 * MODE detroot: a listener of the run's own at /dev/shm/ha52j/run/app.sock;
 *   unshare user+mount namespaces, open_tree(OPEN_TREE_CLONE) of
 *   /dev/shm/ha52j (a detached mount), fchdir to it, chroot("."),
 *   chdir("run") and connect "app.sock", "../run/app.sock" and
 *   "/run/app.sock" (false-red check: all connect).
 * MODE renroot: the same with chroot("/dev/shm/ha52j"), chdir("run"), and
 *   a child outside the namespaces renaming /dev/shm/ha52j to ha52k before
 *   the connects (the root's name and the directory's both change).
 * MODE stat-deep, stat-stack: the same names stat()ed, not connected (the
 *   kernel's own walk, timed, for comparison). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;
static char target_a[64];
static const char *target_b;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *flipper(void *arg)
{
	(void)arg;
	while (!stop) {
		symlink(target_a, "/dev/shm/ha52/ta");
		rename("/dev/shm/ha52/ta", "/dev/shm/ha52/l");
		symlink(target_b, "/dev/shm/ha52/tb");
		rename("/dev/shm/ha52/tb", "/dev/shm/ha52/l");
	}
	return NULL;
}

static int once(const char *name, int *err)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), rc;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", name);
	rc = connect(fd, (struct sockaddr *)&a, sizeof(a));
	*err = errno;
	if (rc == 0 && write(fd, "ha52-secret\n", 12) != 12)
		rc = -1;
	close(fd);
	return rc;
}

static int flip(const char *dir, const char *mode, int n)
{
	int d = open(dir, O_PATH | O_DIRECTORY), err, conn = 0, other = 0, rc;
	int counts[256] = {0};
	pthread_t t;

	if (d < 0) {
		perror("ha52 open");
		return 2;
	}
	snprintf(target_a, sizeof(target_a), "/proc/self/fd/%d", d);
	target_b = dir;
	mkdir("/dev/shm/ha52", 0755);
	unlink("/dev/shm/ha52/l");
	if (symlink(strcmp(mode, "fixed-dir") == 0 ? target_b : target_a, "/dev/shm/ha52/l") != 0) {
		perror("ha52 symlink");
		return 2;
	}
	if (strcmp(mode, "flip") == 0) {
		pthread_create(&t, NULL, flipper, NULL);
		usleep(20000);
	}
	for (int i = 0; i < n; i++) {
		rc = once("/dev/shm/ha52/l/s.sock", &err);
		if (rc == 0)
			conn++;
		else if (err < 256)
			counts[err]++;
		else
			other++;
	}
	stop = 1;
	fprintf(stderr, "ha52 %s: %d connect(s): %d connected", mode, n, conn);
	for (int e = 0; e < 256; e++)
		if (counts[e])
			fprintf(stderr, ", %d %s", counts[e], strerrorname_np(e));
	fprintf(stderr, "\n");
	return conn == n ? 0 : 1;
}

static void timed(const char *mode, const char *name)
{
	double t0 = now(), t1;
	int rc, err;
	struct stat st;

	if (strncmp(mode, "stat", 4) == 0) {
		rc = stat(name, &st);
		err = errno;
	} else {
		rc = once(name, &err);
	}
	t1 = now();
	fprintf(stderr, "ha52 %s: %s after %.3f s\n", mode, rc == 0 ? "ok" : strerrorname_np(err),
		t1 - t0);
}

static int deep(const char *mode, int k)
{
	static char p[8192], t[8192];
	char l[64];

	if (mkdir("/dev/shm/ha52d", 0755) != 0 && errno != EEXIST)
		return 2;
	if (chdir("/dev/shm/ha52d") != 0)
		return 2;
	for (int i = 0; i < k; i++)
		if ((mkdir("d", 0755) != 0 && errno != EEXIST) || chdir("d") != 0) {
			perror("ha52 mkdir");
			return 2;
		}
	/* l0 at the top, l1..l7 at the bottom of the chain: lI names
	 * l(I+1) by its absolute name, l7 a missing entry (8 links, as many
	 * as through_procfs follows). */
	strcpy(p, "/dev/shm/ha52d");
	for (int i = 0; i < k; i++)
		strcat(p, "/d");
	for (int i = 0; i <= 7; i++) {
		snprintf(t, sizeof(t), "%s/%s%d", p, i == 7 ? "missing" : "l", i + 1);
		snprintf(l, sizeof(l), "l%d", i);
		unlink(l);
		if (symlink(t, i == 0 ? "/dev/shm/ha52d/l0" : l) != 0) {
			perror("ha52 symlink");
			return 2;
		}
	}
	if (chdir("/") != 0)
		return 2;
	timed(mode, "/dev/shm/ha52d/l0");
	return 0;
}

static int stack(const char *mode)
{
	static char t[8192];
	size_t n;

	mkdir("/dev/shm/ha52s", 0777);
	mkdir("/dev/shm/ha52s/e", 0777);
	strcpy(t, "/dev/shm/ha52s");
	n = strlen(t);
	while (n + 5 + 9 < 4000) {
		memcpy(t + n, "/e/..", 5);
		n += 5;
	}
	strcpy(t + n, "/missing");
	unlink("/dev/shm/ha52s/l");
	if (symlink(t, "/dev/shm/ha52s/l") != 0) {
		perror("ha52 symlink");
		return 2;
	}
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
		perror("ha52 unshare");
		return 2;
	}
	for (int i = 0; i < 1000; i++)
		if (mount("t", "/dev/shm/ha52s/e", "tmpfs", 0, NULL) != 0) {
			perror("ha52 mount");
			break;
		}
	timed(mode, "/dev/shm/ha52s/l");
	return 0;
}

static void *accept_one(void *arg)
{
	int l = (int)(long)arg, c = accept(l, NULL, NULL);

	if (c >= 0)
		close(c);
	return NULL;
}

static int protsym(const char *dir, const char *mode)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int own = strcmp(mode, "protsym-own") == 0, err, rc, l = -1;
	pthread_t t;

	if (setresgid(1000, 1000, 1000) != 0 || setresuid(1000, 1000, 1000) != 0) {
		perror("ha52 setresuid");
		return 2;
	}
	unlink(own ? "/dev/shm/ha52o" : "/dev/shm/ha52p");
	if (own) {
		mkdir("/dev/shm/ha52own", 0755);
		unlink("/dev/shm/ha52own/app.sock");
		strcpy(a.sun_path, "/dev/shm/ha52own/app.sock");
		l = socket(AF_UNIX, SOCK_STREAM, 0);
		if (bind(l, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(l, 4) != 0) {
			perror("ha52 listen");
			return 2;
		}
		pthread_create(&t, NULL, accept_one, (void *)(long)l);
	}
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/s.sock", dir);
	if (symlink(own ? "/dev/shm/ha52own/app.sock" : a.sun_path,
		    own ? "/dev/shm/ha52o" : "/dev/shm/ha52p") != 0) {
		perror("ha52 symlink");
		return 2;
	}
	if (strcmp(mode, "protsym-rel") == 0 && chdir("/dev/shm") != 0)
		return 2;
	rc = once(own                                ? "/dev/shm/ha52o"
		  : strcmp(mode, "protsym-rel") == 0 ? "ha52p"
						     : "/dev/shm/ha52p",
		  &err);
	fprintf(stderr, "ha52 %s: %s\n", mode, rc == 0 ? "connected" : strerrorname_np(err));
	return rc == 0 ? 0 : 1;
}

static int roots(const char *mode)
{
	static const char *names[] = {"app.sock", "../run/app.sock", "/run/app.sock"};
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int l, rc = 0, err, p[2];
	pthread_t t;
	pid_t kid;
	char c;

	rename("/dev/shm/ha52k", "/dev/shm/ha52j");
	mkdir("/dev/shm/ha52j", 0755);
	mkdir("/dev/shm/ha52j/run", 0755);
	unlink("/dev/shm/ha52j/run/app.sock");
	strcpy(a.sun_path, "/dev/shm/ha52j/run/app.sock");
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(l, 8) != 0) {
		perror("ha52 listen");
		return 2;
	}
	chmod(a.sun_path, 0777);
	if (pipe(p) != 0)
		return 2;
	kid = fork();
	if (kid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) == 1 && rename("/dev/shm/ha52j", "/dev/shm/ha52k") != 0)
			perror("ha52 rename");
		_exit(0);
	}
	close(p[0]);
	if (strcmp(mode, "detroot") == 0) {
		close(p[1]);
		waitpid(kid, NULL, 0);
	}
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
		perror("ha52 unshare");
		return 2;
	}
	if (strcmp(mode, "detroot") == 0) {
		int fd = (int)syscall(SYS_open_tree, AT_FDCWD, "/dev/shm/ha52j",
				      OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);

		if (fd < 0 || fchdir(fd) != 0 || chroot(".") != 0) {
			perror("ha52 open_tree/chroot");
			return 2;
		}
	} else if (chroot("/dev/shm/ha52j") != 0) {
		perror("ha52 chroot");
		return 2;
	}
	if (chdir("/run") != 0) {
		perror("ha52 chdir");
		return 2;
	}
	if (strcmp(mode, "renroot") == 0) {
		c = 1;
		if (write(p[1], &c, 1) != 1)
			return 2;
		waitpid(kid, NULL, 0);
	}
	alarm(20);
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		pthread_create(&t, NULL, accept_one, (void *)(long)l);
		int r = once(names[i], &err);

		fprintf(stderr, "ha52 %s %s: %s\n", mode, names[i],
			r == 0 ? "connected" : strerrorname_np(err));
		rc |= r != 0;
		if (r == 0)
			pthread_join(t, NULL);
	}
	return rc;
}

int main(int argc, char **argv)
{
	const char *mode;
	int n;

	if (argc < 3)
		return 2;
	mode = argv[2];
	n = argc > 3 ? atoi(argv[3]) : 0;
	if (strcmp(mode, "flip") == 0 || strncmp(mode, "fixed", 5) == 0)
		return flip(argv[1], mode, n > 0 ? n : 1);
	if (strcmp(mode, "deep") == 0 || strcmp(mode, "stat-deep") == 0)
		return deep(mode, n > 0 ? n : 1900);
	if (strcmp(mode, "detroot") == 0 || strcmp(mode, "renroot") == 0)
		return roots(mode);
	if (strncmp(mode, "protsym", 7) == 0)
		return protsym(argv[1], mode);
	if (strcmp(mode, "stack") == 0 || strcmp(mode, "stat-stack") == 0)
		return stack(mode);
	return 2;
}
