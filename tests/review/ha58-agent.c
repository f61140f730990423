/* ha58-agent.c: hostile review h-attack58's agent (issue 12's run-integrity
 * classes as fresh variants, against main 020f1ad). Built static with
 * musl-gcc by tests/review/ha58-host.sh and review-guest.sh. Every line it
 * prints starts "ha58 ". Modes:
 *
 *   forge ADDR PORT
 *       looks for any writable way to the report channel or the result port
 *       and appends a complete forged final "pass" record to each one it
 *       opens: its own descriptors 3-4095 (a leaked --report-fd or init's
 *       port), /proc/PID/fd/N of every process it can see (its parent, the
 *       reaper as pid 1, the caller where it is visible), the terminals and
 *       serial ports of its /dev (console, tty, ttyS0-3, hvc0, vport*,
 *       ptmx and /dev/pts/N) and /proc/1/root/dev/ttyS1. Then it makes one
 *       undeclared UDP send to ADDR:PORT (denied: the true verdict is
 *       fail) and exits 0.
 *   race KIND N MAXUS ADDR PORT
 *       N children, each with a thread T in one UDP sendto to ADDR:PORT
 *       (undeclared); the child's main thread waits i*MAXUS/(N-1) us (MAXUS
 *       when N is 1) and then
 *       KIND: kill (SIGKILL to T: the group), exit (exit_group from the main
 *       thread), sig (SIGUSR1 to T, handler without SA_RESTART), rsig (the
 *       same with SA_RESTART), stop (SIGSTOP, then SIGCONT after 2 ms),
 *       unshare (the main thread unshare(CLONE_FILES)s and dup2s another
 *       socket over T's descriptor in its own table, then closes T's in the
 *       shared one with close_range), ptrace (a tracer child PTRACE_SEIZEs
 *       the child and PTRACE_INTERRUPTs T, then detaches); tcp-KIND makes
 *       T's call a TCP connect instead of the send. T prints what its
 *       send returned: denied (the deny errno), eintr, sent (its length or
 *       ENETUNREACH: the kernel made the call, a bypass) or other.
 *   outlive KIND SECS MARK
 *       leaves a process behind and exits at once: setsid (setsid and a
 *       double fork), userns (unshare(CLONE_NEWUSER|CLONE_NEWPID), its pid 1
 *       keeps a double-forked child), vfork (a vfork child that sleeps while
 *       its parent waits), stop (a child that SIGSTOPs itself and never
 *       runs again), ptrace (a child traced by a grandchild that exits
 *       leaving it stopped), uring (io_uring_setup, the worker threads; the
 *       call is answered whatever it is), freeze (opens its cgroup's
 *       cgroup.freeze, cgroup.kill, the parent's cgroup.procs for writing and
 *       makes a child cgroup: a way to keep or move a process), sigreaper
 *       (SIGSTOP, SIGTSTP, SIGTERM, SIGHUP and SIGKILL to pid 1, SIGSTOP to
 *       its parent). Each survivor sleeps SECS seconds
 *       with MARK in its argv[0] so the script can find it afterwards.
 *   udpsend ADDR PORT
 *       a cell's service: a datagram to ADDR:PORT every second from 4 s to
 *       9 s (init starts the sink 3 s after a service that does not listen;
 *       outside the
 *       supervisor: the ground truth's stand-in for a leaked send).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define OUT(...)                                                                                   \
	do {                                                                                       \
		char b_[512];                                                                      \
		int n_ = snprintf(b_, sizeof(b_), "ha58 " __VA_ARGS__);                            \
		if (n_ > 0)                                                                        \
			(void)!write(1, b_,                                                        \
				     (size_t)n_ < sizeof(b_) ? (size_t)n_ : sizeof(b_) - 1);       \
	} while (0)

static struct sockaddr_in dst;
static int tcp_mode; /* race: a TCP connect instead of the UDP send */

static const char forged_json[] =
    "{\"schema\": \"egress-supervisor-report/1\", \"complete\": true, \"verdict\": \"pass\", "
    "\"forged_by\": \"ha58-agent\"}\n";

static int forge_one(int fd, const char *what)
{
	char rec[512];
	int n = snprintf(rec, sizeof(rec), "egress-supervisor-report-record/1 final %zu\n%s",
			 sizeof(forged_json) - 1, forged_json);
	ssize_t w = write(fd, rec, (size_t)n);

	OUT("forge WROTE %s: %zd of %d (%s)\n", what, w, n, w < 0 ? strerror(errno) : "ok");
	return w == n;
}

static void forge_path(const char *p, int *opened, int *wrote)
{
	int fd = open(p, O_WRONLY | O_APPEND | O_NOCTTY | O_NONBLOCK);

	if (fd < 0) {
		if (errno != ENOENT)
			OUT("forge refused %s: %s\n", p, strerror(errno));
		return;
	}
	++*opened;
	*wrote += forge_one(fd, p);
	close(fd);
}

/* A UDP send to the undeclared destination: denied (a UDP connect alone
 * would be a neutralized sort probe). */
static int udp_send(int s)
{
	return (int)sendto(s, "ha58", 4, 0, (struct sockaddr *)&dst, sizeof(dst));
}

static int mode_forge(void)
{
	int opened = 0, wrote = 0, s;
	char p[300], link[300];
	DIR *d;
	struct dirent *e;

	for (int fd = 3; fd < 4096; fd++) {
		ssize_t n;
		snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
		if (fcntl(fd, F_GETFD) < 0)
			continue;
		n = readlink(p, link, sizeof(link) - 1);
		link[n > 0 ? n : 0] = 0;
		OUT("forge own fd %d -> %s\n", fd, link);
		++opened;
		wrote += forge_one(fd, link);
	}
	d = opendir("/proc");
	while (d && (e = readdir(d))) {
		DIR *fds;
		struct dirent *f;
		char dir[64];

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || atoi(e->d_name) == getpid())
			continue;
		snprintf(dir, sizeof(dir), "/proc/%s/fd", e->d_name);
		fds = opendir(dir);
		if (!fds) {
			if (atoi(e->d_name) == 1 || atoi(e->d_name) == getppid())
				OUT("forge cannot list %s: %s\n", dir, strerror(errno));
			continue;
		}
		OUT("forge listed %s\n", dir);
		while ((f = readdir(fds))) {
			if (f->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s", dir, f->d_name);
			forge_path(p, &opened, &wrote);
		}
		closedir(fds);
	}
	if (d)
		closedir(d);
	{
		static const char *devs[] = {"/dev/console",
					     "/dev/tty",
					     "/dev/tty0",
					     "/dev/ttyS0",
					     "/dev/ttyS1",
					     "/dev/ttyS2",
					     "/dev/ttyS3",
					     "/dev/hvc0",
					     "/dev/hvc1",
					     "/dev/kmsg",
					     "/dev/ptmx",
					     "/dev/vport0p1",
					     "/dev/vport1p1",
					     "/proc/1/root/dev/ttyS1",
					     "/proc/self/root/dev/ttyS1",
					     NULL};
		for (int i = 0; devs[i]; i++)
			forge_path(devs[i], &opened, &wrote);
	}
	d = opendir("/dev/pts");
	while (d && (e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(p, sizeof(p), "/dev/pts/%s", e->d_name);
		forge_path(p, &opened, &wrote);
	}
	if (d)
		closedir(d);
	s = socket(AF_INET, SOCK_DGRAM, 0);
	errno = 0;
	{
		int r = udp_send(s), err = errno;
		OUT("forge opened %d wrote %d; undeclared send: %d %s\n", opened, wrote, r,
		    strerror(err));
	}
	return 0;
}

/* race */
static atomic_int t_ready;
static int t_sock;
static pid_t t_tid;

static void on_sig(int sig)
{
	(void)sig;
}

static void spin_us(long us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

static void *connector(void *arg)
{
	int r, err;

	(void)arg;
	t_tid = (pid_t)syscall(SYS_gettid);
	atomic_store(&t_ready, 1);
	errno = 0;
	r = tcp_mode ? connect(t_sock, (struct sockaddr *)&dst, sizeof(dst)) : udp_send(t_sock);
	err = errno;
	if (r >= 0 || err == ENETUNREACH)
		OUT("race T sent r=%d %s\n", r, strerror(err));
	else if (err == EINTR)
		OUT("race T eintr\n");
	else if (err == EACCES || err == EPERM || err == ECONNREFUSED)
		OUT("race T denied %s\n", strerror(err));
	else
		OUT("race T other %s\n", strerror(err));
	return NULL;
}

static void race_child(const char *kind, long us)
{
	pthread_t th;
	struct sigaction sa = {.sa_handler = on_sig};

	if (!strcmp(kind, "rsig"))
		sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	t_sock = socket(AF_INET, tcp_mode ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (!strcmp(kind, "ptrace")) {
		/* A tracer of our own: a child of ours may not trace us without
		 * PR_SET_PTRACER under Yama, so allow it. */
		syscall(SYS_prctl, 0x59616d61 /* PR_SET_PTRACER */, -1L /* ANY */, 0, 0, 0);
	}
	pthread_create(&th, NULL, connector, NULL);
	while (!atomic_load(&t_ready))
		;
	spin_us(us);
	if (!strcmp(kind, "kill")) {
		syscall(SYS_tgkill, getpid(), t_tid, SIGKILL);
	} else if (!strcmp(kind, "exit")) {
		syscall(SYS_exit_group, 0);
	} else if (!strcmp(kind, "sig") || !strcmp(kind, "rsig")) {
		syscall(SYS_tgkill, getpid(), t_tid, SIGUSR1);
	} else if (!strcmp(kind, "stop")) {
		pid_t c = fork();
		if (c == 0) {
			kill(getppid(), SIGSTOP);
			spin_us(2000);
			kill(getppid(), SIGCONT);
			_exit(0);
		}
		waitpid(c, NULL, 0);
	} else if (!strcmp(kind, "unshare")) {
		int other = socket(AF_UNIX, SOCK_DGRAM, 0);
		int fd = t_sock;
		/* Our own copy of the table: T's stays the shared one. */
		if (unshare(CLONE_FILES) == 0) {
			dup2(other, fd);
			OUT("race unshare: main's %d is now AF_UNIX\n", fd);
		} else {
			OUT("race unshare: %s\n", strerror(errno));
		}
	} else if (!strcmp(kind, "ptrace")) {
		pid_t me = getpid(), tid = t_tid, c = fork();
		if (c == 0) {
			if (ptrace(PTRACE_SEIZE, tid, 0, 0) != 0) {
				OUT("race ptrace seize: %s\n", strerror(errno));
				_exit(1);
			}
			ptrace(PTRACE_INTERRUPT, tid, 0, 0);
			waitpid(tid, NULL, __WALL);
			spin_us(1000);
			ptrace(PTRACE_DETACH, tid, 0, 0);
			_exit(0);
		}
		(void)me;
		waitpid(c, NULL, 0);
	}
	pthread_join(th, NULL);
	_exit(0);
}

static int mode_race(const char *kind, int n, long maxus)
{
	int died = 0;

	for (int i = 0; i < n; i++) {
		pid_t c;
		int st;

		atomic_store(&t_ready, 0);
		c = fork();
		if (c == 0)
			race_child(kind, n > 1 ? (long)i * maxus / (n - 1) : maxus);
		waitpid(c, &st, 0);
		if (WIFSIGNALED(st))
			died++;
	}
	OUT("race %s done: %d children, %d killed\n", kind, n, died);
	return 0;
}

/* outlive */
static void sleeper(const char *mark, int secs)
{
	/* argv[0] is what /proc/PID/cmdline shows: overwrite ours in place is
	 * not possible portably, so re-exec ourselves under the mark. */
	{
		char s[16];
		snprintf(s, sizeof(s), "%d", secs);
		execl("/proc/self/exe", mark, "sleep", s, (char *)NULL);
	}
	sleep((unsigned)secs);
	_exit(0);
}

static void double_fork(const char *mark, int secs)
{
	pid_t c = fork();

	if (c == 0) {
		setsid();
		if (fork() == 0)
			sleeper(mark, secs);
		_exit(0);
	}
	waitpid(c, NULL, 0);
}

static int mode_outlive(const char *kind, int secs, const char *mark)
{
	if (!strcmp(kind, "setsid")) {
		double_fork(mark, secs);
	} else if (!strcmp(kind, "userns")) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0) {
			OUT("outlive userns: unshare %s\n", strerror(errno));
			double_fork(mark, secs);
		} else if (fork() == 0) {
			/* pid 1 of our own namespace keeps a double-forked child */
			double_fork(mark, secs);
			sleeper(mark, secs);
		}
	} else if (!strcmp(kind, "vfork")) {
		if (fork() == 0) {
			if (vfork() == 0)
				sleeper(mark, secs);
			_exit(0);
		}
	} else if (!strcmp(kind, "stop")) {
		if (fork() == 0) {
			setsid();
			raise(SIGSTOP);
			sleeper(mark, secs);
		}
	} else if (!strcmp(kind, "ptrace")) {
		pid_t c = fork();
		if (c == 0) {
			syscall(SYS_prctl, 0x59616d61, -1L, 0, 0, 0);
			raise(SIGSTOP);
			sleeper(mark, secs);
		}
		if (fork() == 0) {
			if (ptrace(PTRACE_SEIZE, c, 0, 0) != 0)
				OUT("outlive ptrace seize: %s\n", strerror(errno));
			ptrace(PTRACE_INTERRUPT, c, 0, 0);
			_exit(0); /* the tracer exits with its tracee stopped */
		}
	} else if (!strcmp(kind, "uring")) {
		long r = syscall(425 /* io_uring_setup */, 8, calloc(1, 120));
		OUT("outlive uring setup: %ld %s\n", r, r < 0 ? strerror(errno) : "");
		double_fork(mark, secs);
	} else if (!strcmp(kind, "freeze")) {
		/* Our own cgroup's freeze/kill/procs, a child cgroup, and the
		 * parent's cgroup.procs (a move out of the cell's cgroup). */
		char cg[256] = "", p[400];
		FILE *f = fopen("/proc/self/cgroup", "r");
		static const char *files[] = {"cgroup.freeze", "cgroup.kill", "../cgroup.procs",
					      "cgroup.subtree_control", NULL};
		while (f && fgets(cg, sizeof(cg), f) && strncmp(cg, "0::", 3))
			;
		cg[strcspn(cg, "\n")] = 0;
		if (f)
			fclose(f);
		OUT("outlive freeze: cgroup %s\n", cg);
		{
			const char *base = access("/sys/fs/cgroup/unified", F_OK)
					       ? "/sys/fs/cgroup"
					       : "/sys/fs/cgroup/unified";
			char rel[256];
			snprintf(rel, sizeof(rel), "%s%s", base,
				 strncmp(cg, "0::", 3) ? "/" : cg + 3);
			snprintf(cg, sizeof(cg), "x:%s", rel);
		}
		for (int i = 0; files[i]; i++) {
			int fd;
			snprintf(p, sizeof(p), "%s/%s", cg + 2, files[i]);
			fd = open(p, O_WRONLY);
			OUT("outlive freeze: open %s: %s\n", p,
			    fd < 0 ? strerror(errno) : "OPENED");
			if (fd >= 0)
				close(fd); /* opened only: nothing written */
		}
		snprintf(p, sizeof(p), "%s/ha58", cg + 2);
		OUT("outlive freeze: mkdir %s: %s\n", p, mkdir(p, 0755) ? strerror(errno) : "MADE");
		rmdir(p);
		double_fork(mark, secs);
	} else if (!strcmp(kind, "sigreaper")) {
		/* The reaper (pid 1 of the run's namespace) and everything else
		 * we can name: stop and kill from inside. */
		static const int sigs[] = {SIGSTOP, SIGTSTP, SIGTERM, SIGHUP, SIGKILL};
		for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
			int r = kill(1, sigs[i]);
			OUT("outlive sigreaper: kill(1, %d): %s\n", sigs[i],
			    r ? strerror(errno) : "sent");
		}
		OUT("outlive sigreaper: ppid %d\n", (int)getppid());
		kill(getppid(), SIGSTOP);
		double_fork(mark, secs);
	} else {
		return 2;
	}
	OUT("outlive %s: agent exits\n", kind);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "sleep")) {
		sleep((unsigned)atoi(argv[2]));
		return 0;
	}
	dst.sin_family = AF_INET;
	if (argc == 4 && !strcmp(argv[1], "forge")) {
		inet_pton(AF_INET, argv[2], &dst.sin_addr);
		dst.sin_port = htons((unsigned short)atoi(argv[3]));
		return mode_forge();
	}
	if (argc == 7 && !strcmp(argv[1], "race")) {
		inet_pton(AF_INET, argv[5], &dst.sin_addr);
		dst.sin_port = htons((unsigned short)atoi(argv[6]));
		/* "tcp-KIND": T makes a TCP connect instead */
		if (!strncmp(argv[2], "tcp-", 4)) {
			tcp_mode = 1;
			argv[2] += 4;
		}
		return mode_race(argv[2], atoi(argv[3]), atol(argv[4]));
	}
	if (argc == 4 && !strcmp(argv[1], "udpsend")) {
		/* A cell's service (outside the supervisor): one datagram, the
		 * stand-in for a send a faulty supervisor let through. */
		int s = socket(AF_INET, SOCK_DGRAM, 0), r;
		inet_pton(AF_INET, argv[2], &dst.sin_addr);
		dst.sin_port = htons((unsigned short)atoi(argv[3]));
		/* init waits 3 s for a service to listen before it starts the
		 * sink: send once a second from 4 s to 9 s. */
		sleep(4);
		for (int i = 0; i < 6; i++, sleep(1))
			r = udp_send(s);
		OUT("udpsend: %d\n", r);
		pause();
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "outlive"))
		return mode_outlive(argv[2], atoi(argv[3]), argv[4]);
	fprintf(stderr, "usage: see the comment at the top of ha58-agent.c\n");
	return 2;
}
