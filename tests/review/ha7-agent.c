/* ha7-agent: hostile uid-1000 agent for the user-namespace containment
 * (commit d8ebce0). Modes:
 *   survive DIR    every escape try below, each logged to DIR/log; then
 *                  heartbeat children (plain setsid double fork, one in a
 *                  nested user+pid namespace, one born with CLONE_PARENT)
 *                  append to DIR/beat.<kind> every 100 ms; the agent sleeps.
 *   nodump-userns DEST
 *                  unshare(CLONE_NEWUSER), map 1000, re-exec itself as
 *                  "nodump-connect DEST" (its mm's user namespace becomes the
 *                  new one), which makes itself non-dumpable and connects.
 *   nodump-connect DEST  (the second half)
 *   nodump DEST    PR_SET_DUMPABLE 0, connect
 *   nodump-sleep N PR_SET_DUMPABLE 0, sleep N seconds
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[512];

static void logf_(const char *what, long rc, int err)
{
	char path[600], line[400];
	int fd, n;

	snprintf(path, sizeof(path), "%s/log", dir);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "pid %d: %s -> %ld %s\n", (int)getpid(), what, rc,
		     rc < 0 ? strerror(err) : "");
	if (write(fd, line, (size_t)n) < 0)
		n = 0;
	close(fd);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

static int own_userns(void)
{
	if (unshare(CLONE_NEWUSER) != 0)
		return -errno;
	(void)write_file("/proc/self/setgroups", "deny");
	if (write_file("/proc/self/uid_map", "1000 1000 1\n") < 0)
		return -errno;
	(void)write_file("/proc/self/gid_map", "1000 1000 1\n");
	return 0;
}

static __attribute__((noreturn)) void beat(const char *kind)
{
	char path[600], line[128];

	prctl(PR_SET_PDEATHSIG, 0);
	snprintf(path, sizeof(path), "%s/beat.%s", dir, kind);
	for (;;) {
		int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
		int n = snprintf(line, sizeof(line), "%ld pid %d ppid %d\n", (long)time(NULL),
				 (int)getpid(), (int)getppid());

		if (fd >= 0) {
			if (write(fd, line, (size_t)n) < 0)
				n = 0;
			close(fd);
		}
		usleep(100000);
	}
}

/* setsid double fork: the grandchild beats. */
static void daemon_beat(const char *kind)
{
	pid_t p = fork();

	if (p == 0) {
		setsid();
		if (fork() == 0)
			beat(kind);
		_exit(0);
	}
	if (p > 0)
		waitpid(p, NULL, 0);
}

static void tries(void)
{
	int fd;
	long rc;
	char buf[64];

	/* The reaper: signals from inside, its descriptors, its namespaces. */
	rc = kill(1, SIGKILL);
	logf_("kill(1, SIGKILL)", rc, errno);
	rc = kill(1, SIGSTOP);
	logf_("kill(1, SIGSTOP)", rc, errno);
	rc = kill(1, 0);
	logf_("kill(1, 0) after (reaper alive?)", rc, errno);
	fd = open("/proc/1/status", O_RDONLY);
	if (fd >= 0) {
		char st[2048];
		ssize_t n = read(fd, st, sizeof(st) - 1);
		char *s;

		st[n > 0 ? n : 0] = 0;
		s = strstr(st, "State:");
		if (s) {
			char *e = strchr(s, '\n');
			if (e)
				*e = 0;
			logf_(s, 0, 0);
		}
		close(fd);
	}
	rc = open("/proc/1/fd", O_RDONLY | O_DIRECTORY);
	logf_("open /proc/1/fd", rc, errno);
	rc = open("/proc/1/ns/pid", O_RDONLY);
	logf_("open /proc/1/ns/pid", rc, errno);
	rc = open("/proc/1/root", O_RDONLY | O_DIRECTORY);
	logf_("open /proc/1/root", rc, errno);
	rc = readlink("/proc/1/exe", buf, sizeof(buf));
	logf_("readlink /proc/1/exe", rc, errno);
	/* Our own user namespace's parent's namespaces, from our /proc/self. */
	fd = open("/proc/self/ns/user", O_RDONLY);
	rc = fd >= 0 ? ioctl(fd, 0xb702 /* NS_GET_PARENT */) : -1;
	logf_("NS_GET_PARENT of our user ns", rc, errno);
	if (rc >= 0) {
		long r2 = setns((int)rc, CLONE_NEWUSER);
		logf_("setns(parent user ns)", r2, errno);
	}
	rc = kill(-1, 0);
	logf_("kill(-1, 0)", rc, errno);
	rc = syscall(SYS_pidfd_open, 1, 0);
	logf_("pidfd_open(1)", rc, errno);
	if (rc >= 0) {
		long r2 = syscall(SYS_pidfd_send_signal, (int)rc, SIGKILL, NULL, 0);
		logf_("pidfd_send_signal(reaper, SIGKILL)", r2, errno);
	}
	/* A nested user namespace: what its capabilities reach. */
	{
		pid_t p = fork();

		if (p == 0) {
			rc = own_userns();
			logf_("nested: unshare(CLONE_NEWUSER)+maps", rc, -rc);
			rc = unshare(CLONE_NEWNS);
			logf_("nested: unshare(CLONE_NEWNS)", rc, errno);
			rc = mount("none", "/tmp", "tmpfs", 0, NULL);
			logf_("nested: mount tmpfs on /tmp", rc, errno);
			rc = umount2("/proc", MNT_DETACH);
			logf_("nested: umount /proc (reveal the old one)", rc, errno);
			rc = mount("/proc", "/mnt", NULL, MS_BIND | MS_REC, NULL);
			logf_("nested: bind /proc", rc, errno);
			rc = unshare(CLONE_NEWNET);
			logf_("nested: unshare(CLONE_NEWNET)", rc, errno);
			rc = open("/proc/1/fd", O_RDONLY | O_DIRECTORY);
			logf_("nested: open /proc/1/fd", rc, errno);
			rc = open("/proc/1/ns/pid", O_RDONLY);
			logf_("nested: open /proc/1/ns/pid", rc, errno);
			rc = kill(1, SIGKILL);
			logf_("nested: kill(1, SIGKILL)", rc, errno);
			rc = open("/sys/fs/cgroup/cgroup.procs", O_WRONLY);
			logf_("nested: open cgroup.procs for write", rc, errno);
			rc = chroot("/tmp");
			logf_("nested: chroot (log lost if it worked)", rc, errno);
			_exit(0);
		}
		waitpid(p, NULL, 0);
	}
}

static void survive(void)
{
	pid_t p;

	tries();
	daemon_beat("setsid");
	/* A nested user and pid namespace whose init beats. */
	p = fork();
	if (p == 0) {
		long rc = own_userns();

		logf_("beat-ns: own user ns", rc, -rc);
		rc = unshare(CLONE_NEWPID);
		logf_("beat-ns: unshare(CLONE_NEWPID)", rc, errno);
		if (fork() == 0) {
			setsid();
			if (fork() == 0)
				beat("nested-ns");
			beat("nested-init");
		}
		_exit(0);
	}
	waitpid(p, NULL, 0);
	/* CLONE_PARENT: a sibling, the reaper's child. */
	p = (pid_t)syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);
	if (p == 0)
		beat("clone-parent");
	logf_("clone(CLONE_PARENT)", p, errno);
	logf_("agent: sleeping", 0, 0);
	for (;;)
		pause();
}

static int do_connect(const char *dest)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	char host[64];
	const char *colon = strrchr(dest, ':');
	int s;
	long rc;

	if (!colon || (size_t)(colon - dest) >= sizeof(host))
		return 2;
	memcpy(host, dest, (size_t)(colon - dest));
	host[colon - dest] = 0;
	inet_pton(AF_INET, host, &sa.sin_addr);
	sa.sin_port = htons((unsigned short)atoi(colon + 1));
	s = socket(AF_INET, SOCK_STREAM, 0);
	rc = connect(s, (struct sockaddr *)&sa, sizeof(sa));
	fprintf(stderr, "ha7-agent: dumpable=%d connect(%s) -> %ld %s\n", prctl(PR_GET_DUMPABLE),
		dest, rc, rc < 0 ? strerror(errno) : "");
	return rc == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "survive") == 0) {
		snprintf(dir, sizeof(dir), "%s", argv[2]);
		survive();
	}
	if (argc == 3 && strcmp(argv[1], "nodump-userns") == 0) {
		char *nargv[] = {argv[0], "nodump-connect", argv[2], NULL};
		int rc = own_userns();

		fprintf(stderr, "ha7-agent: own user namespace: %d\n", rc);
		execv("/proc/self/exe", nargv);
		perror("execv");
		return 127;
	}
	if (argc == 3 && strcmp(argv[1], "nodump-connect") == 0) {
		prctl(PR_SET_DUMPABLE, 0);
		return do_connect(argv[2]);
	}
	if (argc == 3 && strcmp(argv[1], "nodump-sleep") == 0) {
		prctl(PR_SET_DUMPABLE, 0);
		sleep((unsigned)atoi(argv[2]));
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "nodump") == 0) {
		prctl(PR_SET_DUMPABLE, 0);
		return do_connect(argv[2]);
	}
	fprintf(stderr, "usage: ha7-agent survive DIR | nodump-userns|nodump DEST\n");
	return 2;
}
