/* ha63-agent: hostile review h-attack63's agent (see ha63-host.sh).
 *   ha63-agent MODE [ARGS]
 * MODE miss N: N connects to /var/run/ha63-missing.sock (/var/run a link to
 *   /run, the socket missing: our lookup fails ENOENT and walk_as_kernel
 *   walks it again), each timed; prints the errnos and the mean and
 *   extremes in microseconds.
 * MODE hold K SECS: takes up to K inotify instances (until refused), says
 *   how many, and holds them SECS seconds (inotify_init1 is not trapped).
 *   fs.inotify.max_user_instances is counted per user (and per user
 *   namespace up to the initial one), so a root agent's instances are
 *   the root supervisor's: another run's walks, each wanting an instance,
 *   are then UNSURE, denied.
 * MODE holdmiss K N: hold K instances, then N connects as in miss (the
 *   agent's own run).
 * MODE holdw K F SECS: K-1 inotify instances (one left for the
 *   supervisor), each watching F files of a directory of ours under
 *   /dev/shm/ha63w until refused: fs.inotify.max_user_watches (per user,
 *   192540 here) taken, so a root supervisor's inotify_add_watch fails
 *   ENOSPC even with an instance of its own kept. Holds them SECS seconds.
 * MODE inobench: unsupervised: inotify_init1, two watches (/run, /) and
 *   close, 50 times, each part timed; then the same two watches added,
 *   removed and the queue drained on one kept instance.
 * MODE attrwatch: outside the supervisor, as root: is a remount (bind,
 *   nosymfollow) or a mount_setattr seen by the /proc/self/mounts watch
 *   (POLLPRI) in a user+mount namespace of our own? Prints each. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#ifndef MOUNT_ATTR_NOSYMFOLLOW
#define MOUNT_ATTR_NOSYMFOLLOW 0x00200000
#endif
#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif

struct ha_mount_attr {
	unsigned long long attr_set, attr_clr, propagation, userns_fd;
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void misses(int n)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	double sum = 0, lo = 1e18, hi = 0;
	int ok = 0, enoent = 0, other = 0, last = 0;

	strcpy(sa.sun_path, "/var/run/ha63-missing.sock");
	for (int i = 0; i < n; i++) {
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		double t0 = now_us(), d;
		int r = connect(s, (struct sockaddr *)&sa, sizeof(sa));

		d = now_us() - t0;
		if (r == 0)
			ok++;
		else if (errno == ENOENT)
			enoent++;
		else {
			other++;
			last = errno;
		}
		close(s);
		sum += d;
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
	}
	printf("ha63 miss: %d connects: %d ok, %d ENOENT, %d other (last %s); "
	       "mean %.1f us, min %.1f, max %.1f\n",
	       n, ok, enoent, other, other ? strerror(last) : "-", sum / n, lo, hi);
}

static int hold(int k)
{
	int got = 0;

	for (; got < k; got++)
		if (inotify_init1(IN_CLOEXEC) < 0)
			break;
	printf("ha63 hold: %d inotify instances (then %s)\n", got,
	       got < k ? strerror(errno) : "stopped");
	fflush(stdout);
	return got;
}

static void holdw(int k, int f, int secs)
{
	char p[64];
	long watches = 0;
	int e = 0;

	mkdir("/dev/shm/ha63w", 0700);
	for (int i = 0; i < f; i++) {
		snprintf(p, sizeof(p), "/dev/shm/ha63w/%d", i);
		close(open(p, O_CREAT | O_WRONLY, 0600));
	}
	for (int j = 0; j < k - 1 && !e; j++) {
		int fd = inotify_init1(IN_CLOEXEC);

		if (fd < 0) {
			e = errno;
			break;
		}
		for (int i = 0; i < f; i++) {
			snprintf(p, sizeof(p), "/dev/shm/ha63w/%d", i);
			if (inotify_add_watch(fd, p, IN_MODIFY) < 0) {
				e = errno;
				break;
			}
			watches++;
		}
	}
	printf("ha63 holdw: %ld watches (then %s)\n", watches, e ? strerror(e) : "stopped");
	fflush(stdout);
	sleep((unsigned)secs);
	for (int i = 0; i < f; i++) {
		snprintf(p, sizeof(p), "/dev/shm/ha63w/%d", i);
		unlink(p);
	}
	rmdir("/dev/shm/ha63w");
}

static void inobench(void)
{
	double a = 0, b = 0, c = 0, d = 0, t0, t1, t2, t3;
	char buf[4096];
	int n = 50, fd;

	for (int i = 0; i < n; i++) {
		t0 = now_us();
		fd = inotify_init1(IN_CLOEXEC);
		t1 = now_us();
		inotify_add_watch(fd, "/run", IN_CREATE | IN_DELETE);
		inotify_add_watch(fd, "/", IN_CREATE | IN_DELETE);
		t2 = now_us();
		close(fd);
		t3 = now_us();
		a += t1 - t0;
		b += t2 - t1;
		c += t3 - t2;
	}
	printf("ha63 inobench: init %.1f us, 2 watches %.1f us, close %.1f us (means of %d)\n",
	       a / n, b / n, c / n, n);
	fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	for (int i = 0; i < n; i++) {
		int w1 = inotify_add_watch(fd, "/run", IN_CREATE | IN_DELETE);
		int w2 = inotify_add_watch(fd, "/", IN_CREATE | IN_DELETE);

		t0 = now_us();
		inotify_rm_watch(fd, w1);
		inotify_rm_watch(fd, w2);
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		d += now_us() - t0;
	}
	t0 = now_us();
	close(fd);
	printf(
	    "ha63 inobench: kept instance: 2 watches removed + drain %.1f us; its close %.1f us\n",
	    d / n, now_us() - t0);
}

static int watched(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLPRI};

	return poll(&p, 1, 0) > 0 && (p.revents & (POLLPRI | POLLERR));
}

static void attrwatch(void)
{
	struct ha_mount_attr a = {.attr_set = MOUNT_ATTR_NOSYMFOLLOW};
	int w;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
		perror("unshare");
		return;
	}
	mkdir("/dev/shm/ha63a", 0700);
	if (mount("none", "/dev/shm/ha63a", "tmpfs", 0, NULL) != 0) {
		perror("mount");
		return;
	}
	w = open("/proc/self/mounts", O_RDONLY);
	printf("ha63 attrwatch: fresh watch: %d\n", watched(w));
	int r = mount(NULL, "/dev/shm/ha63a", NULL, MS_REMOUNT | MS_BIND | MS_NOSYMFOLLOW, NULL);
	printf("ha63 attrwatch: remount bind nosymfollow = %d (%s): POLLPRI %d\n", r,
	       r ? strerror(errno) : "ok", watched(w));
	close(w);
	w = open("/proc/self/mounts", O_RDONLY);
	a.attr_set = 0;
	a.attr_clr = MOUNT_ATTR_NOSYMFOLLOW;
	r = (int)syscall(SYS_mount_setattr, AT_FDCWD, "/dev/shm/ha63a", 0, &a, sizeof(a));
	printf("ha63 attrwatch: mount_setattr clear nosymfollow = %d (%s): POLLPRI %d\n", r,
	       r ? strerror(errno) : "ok", watched(w));
	close(w);
	w = open("/proc/self/mounts", O_RDONLY);
	r = mount(NULL, "/dev/shm/ha63a", NULL, MS_REMOUNT, "size=1m");
	printf("ha63 attrwatch: remount (superblock) = %d (%s): POLLPRI %d\n", r,
	       r ? strerror(errno) : "ok", watched(w));
	close(w);
	w = open("/proc/self/mounts", O_RDONLY);
	r = mount(NULL, "/dev/shm/ha63a", NULL, MS_PRIVATE, NULL);
	printf("ha63 attrwatch: make-private = %d: POLLPRI %d\n", r, watched(w));
	close(w);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "miss";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(mode, "miss") == 0) {
		misses(argc > 2 ? atoi(argv[2]) : 20);
	} else if (strcmp(mode, "hold") == 0) {
		hold(argc > 2 ? atoi(argv[2]) : 1000);
		sleep(argc > 3 ? (unsigned)atoi(argv[3]) : 10);
	} else if (strcmp(mode, "holdmiss") == 0) {
		hold(argc > 2 ? atoi(argv[2]) : 1000);
		misses(argc > 3 ? atoi(argv[3]) : 5);
	} else if (strcmp(mode, "holdw") == 0) {
		holdw(argc > 2 ? atoi(argv[2]) : 128, argc > 3 ? atoi(argv[3]) : 1600,
		      argc > 4 ? atoi(argv[4]) : 10);
	} else if (strcmp(mode, "inobench") == 0) {
		inobench();
	} else if (strcmp(mode, "attrwatch") == 0) {
		attrwatch();
	} else {
		fprintf(stderr, "ha63-agent: unknown mode %s\n", mode);
		return 2;
	}
	return 0;
}
