/*
 * ha75-agent: hostile review h-attack75, the guest's survivors check after
 * dcba926 (initramfs/guest/init check_survivors, escaped_procs). Run as a
 * root agent under a supervisor that contains nothing
 * (tests/bundles/passthrough): each mode leaves a process alive after the
 * agent exits, shaped so the check skips it. Prints "ha75 ..." lines on
 * stderr, and on /dev/kmsg from processes that outlive the run.
 *
 *   ha75-agent helpercg CGROUP SECS  child moves itself to CGROUP (init's
 *                                    helpers' cgroup, egress-init-cell,
 *                                    which escaped_procs exempts) and lives
 *                                    SECS s, logging to /dev/kmsg each second
 *   ha75-agent release CGROUP SECS   the same, and first joins a cgroup v1
 *                                    named hierarchy with notify_on_release
 *                                    and release_agent = this program: the
 *                                    helpers' kill after the check makes
 *                                    the kernel start it (kthreadd's child,
 *                                    cgroup2 root), which lives SECS s
 *   ha75-agent nlname SECS           child makes a cgroup2 cgroup named
 *                                    "ha75\n0::" below the root, in it one
 *                                    named "egress-cell", and moves into that: its /proc/PID/cgroup
 *                                    then ends in the line "0::/egress-cell",
 *                                    the last 0:: line escaped_procs keeps
 *                                    (held: cgroup_mkdir refuses a newline)
 *   ha75-agent procmount SECS        child moves to the cgroup2 root, waits
 *                                    until its supervisor is a zombie,
 *                                    mounts a tmpfs at /proc itself (not
 *                                    under it: proc_cover_mounts matches
 *                                    /proc/ * only) in init's mount
 *                                    namespace, and unmounts it from a
 *                                    SIGCONT handler: the check's own
 *                                    kill -CONT -1; then lives SECS s
 *   ha75-agent /PATH                 (run by the kernel as release agent)
 *                                    lives 20 s, logging to /dev/kmsg
 *   ha75-agent noop                  exits 0 (an honest cell after another)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static int put(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -errno;
}

static void kmsg(const char *what, unsigned i)
{
	char line[160], cg[160] = "";
	int fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, cg, sizeof(cg) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n > 0)
		cg[strcspn(cg, "\n")] = 0;
	snprintf(line, sizeof(line), "ha75 %s pid %d ppid %d %s alive %u s\n", what, (int)getpid(),
		 (int)getppid(), cg, i);
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, line, strlen(line)) < 0) {
		}
		close(fd);
	}
}

static void live(const char *what, unsigned secs)
{
	for (unsigned i = 0; i <= secs; i++) {
		kmsg(what, i);
		sleep(1);
	}
	_exit(0);
}

/* A cgroup v1 hierarchy of no controller (name=): release_agent is
 * settable by a holder of CAP_SYS_ADMIN in the initial user namespace,
 * and the kernel runs it, a usermode helper, when a notify_on_release
 * cgroup empties: here when the check's helpers' kill ends the child. */
static int v1_join(const char *self)
{
	const char *m = "/tmp/ha75-v1";
	int rc;

	mkdir(m, 0755);
	if (mount("cgroup", m, "cgroup", 0, "none,name=ha75") != 0)
		return -errno;
	mkdir("/tmp/ha75-v1/x", 0755);
	if ((rc = put("/tmp/ha75-v1/release_agent", self)) < 0 ||
	    (rc = put("/tmp/ha75-v1/x/notify_on_release", "1")) < 0 ||
	    (rc = put("/tmp/ha75-v1/x/cgroup.procs", "0")) < 0)
		return rc;
	return 0;
}

static volatile sig_atomic_t mounted, continued;

/* The check's kill -CONT -1: the walk is over, and init's next read of
 * /proc (its report channel, /proc/self/fd/9) must find the real one. */
static void on_cont(int sig)
{
	(void)sig;
	if (mounted)
		umount2("/proc", MNT_DETACH);
	mounted = 0;
	continued = 1;
}

static int procmount(unsigned secs)
{
	pid_t sv = getppid(), pid;
	char path[64];
	struct stat st;
	int p[2];
	char c;

	if (pipe(p) != 0 || (pid = fork()) < 0)
		return 1;
	if (pid > 0) { /* until the child has moved and joined */
		close(p[1]);
		return read(p[0], &c, 1) == 1 ? 0 : 1;
	}
	close(p[0]);
	setsid();
	signal(SIGCONT, on_cont);
	int rc = put("/sys/fs/cgroup/cgroup.procs", "0");
	int ns = open("/proc/1/ns/mnt", O_RDONLY | O_CLOEXEC);
	int jn = ns >= 0 && setns(ns, CLONE_NEWNS) == 0 ? 0 : -errno;

	fprintf(stderr, "ha75 procmount pid %d supervisor %d moved: %s, setns: %s\n", (int)getpid(),
		(int)sv, rc ? strerror(-rc) : "ok", jn ? strerror(-jn) : "ok");
	if (write(p[1], "x", 1) != 1)
		_exit(1);
	close(p[1]);
	int nul = open("/dev/null", O_RDWR);
	if (nul >= 0) {
		dup2(nul, 0);
		dup2(nul, 1);
		dup2(nul, 2);
	}
	/* Until the supervisor has exited (a zombie, or reaped): init's
	 * steps from its wait to the check read no /proc. */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)sv);
	for (int i = 0; i < 600000 && stat(path, &st) == 0; i++) {
		char b[256] = "";
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, b, sizeof(b) - 1) : -1;
		char *r = n > 0 ? strrchr(b, ')') : NULL;

		if (fd >= 0)
			close(fd);
		if (r && r[1] == ' ' && r[2] == 'Z')
			break;
	}
	if (mount("ha75", "/proc", "tmpfs", 0, "size=4k") == 0)
		mounted = 1;
	kmsg(mounted ? "procmount mounted" : "procmount mount-failed", 0);
	for (int i = 0; i < 30000 && !continued; i++)
		usleep(1000);
	if (mounted) { /* nobody stopped us in 30 s: leave /proc as it was */
		umount2("/proc", MNT_DETACH);
		mounted = 0;
	}
	live(continued ? "procmount continued" : "procmount timed-out", secs);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned secs;
	pid_t pid;
	int p[2];
	char c;

	if (argc == 2 && argv[1][0] == '/') {
		/* The kernel's release agent: argv[1] is the emptied cgroup. */
		setsid();
		live("release-agent", 20);
	}
	if (argc == 2 && strcmp(argv[1], "noop") == 0)
		return 0;
	if (argc == 3 && strcmp(argv[1], "nlname") == 0) {
		/* A kernfs name may hold a newline: one cgroup, two lines. */
		static char cg[] = "/sys/fs/cgroup/ha75\n0::/egress-cell";
		int rc = 0;

		cg[strlen(cg) - strlen("/egress-cell")] = 0;
		if (mkdir(cg, 0755) != 0)
			rc = -errno;
		cg[strlen(cg)] = '/';
		if (rc == 0 && mkdir(cg, 0755) != 0)
			rc = -errno;

		static char *args[5] = {"ha75-agent", "nlname", cg, NULL, NULL};

		fprintf(stderr, "ha75 nlname mkdir: %s\n", rc ? strerror(-rc) : "ok");
		args[3] = argv[2];
		argv = args;
		argc = 4;
	}
	if (argc == 3 && strcmp(argv[1], "procmount") == 0)
		return procmount((unsigned)strtoul(argv[2], NULL, 10));
	if (argc != 4 || (strcmp(argv[1], "helpercg") != 0 && strcmp(argv[1], "release") != 0 &&
			  strcmp(argv[1], "nlname") != 0)) {
		fprintf(stderr, "usage: ha75-agent helpercg|release CGROUP SECS | nlname|procmount "
				"SECS | noop\n");
		return 2;
	}
	secs = (unsigned)strtoul(argv[3], NULL, 10);
	if (pipe(p) != 0 || (pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		char path[512];
		int rc = 0;

		close(p[0]);
		setsid();
		if (strcmp(argv[1], "release") == 0) {
			rc = v1_join("/agents/ha75-agent");
			fprintf(stderr, "ha75 v1 release_agent join: %s\n",
				rc ? strerror(-rc) : "ok");
		}
		snprintf(path, sizeof(path), "%s/cgroup.procs", argv[2]);
		rc = put(path, "0");
		fprintf(stderr, "ha75 %s pid %d moved to %s: %s\n", argv[1], (int)getpid(), argv[2],
			rc ? strerror(-rc) : "ok");
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		close(p[1]);
		int nul = open("/dev/null", O_RDWR);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
			dup2(nul, 2);
		}
		live(argv[1], secs);
	}
	close(p[1]);
	return read(p[0], &c, 1) == 1 ? 0 : 1;
}
