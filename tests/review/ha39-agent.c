/* ha39-agent.c: hostile review h-attack39, the capabilities a root agent
 * keeps ("not reviewed for it" in docs/design.md: CAP_SYS_TIME,
 * CAP_SYS_NICE, CAP_SYS_RESOURCE; and CAP_SYSLOG, CAP_IPC_LOCK, which the
 * list does not name). Modes:
 *   caps        try each, without changing anything outside this process:
 *               adjtimex(ADJ_TICK) with the tick it already has (CAP_SYS_TIME),
 *               syslog(READ_ALL) of the kernel log (CAP_SYSLOG under
 *               dmesg_restrict=1) and syslog(CONSOLE_LEVEL) with the level
 *               it already has, SCHED_FIFO on itself and back (CAP_SYS_NICE),
 *               oom_score_adj -1000 on itself (CAP_SYS_RESOURCE), mlock of
 *               64 MiB above RLIMIT_MEMLOCK (CAP_IPC_LOCK). One line each.
 *   oom MB ADJ  write ADJ to /proc/self/oom_score_adj, then allocate and touch
 *               MB MiB in 4 MiB steps, printing progress; then sleep 30 s.
 *   settime     (guest only: changes the clock) set CLOCK_REALTIME to
 *               2001-01-01 and the tick 10% long (ADJ_TICK 11000).
 *   showtime    print the wall clock and adjtimex's tick and frequency.
 *   saturate N SECS ADDR PORT LATE
 *               the receiver pool's cap (notify.c, 1024): N threads in
 *               blocking TCP connects to a loopback listener whose accept
 *               queue is full (closed after SECS s), then, while they wait,
 *               a UDP connect to ADDR:PORT (undeclared: denied, sends
 *               nothing) from the main thread; with LATE=exit the process
 *               exits (exit_group) PRE+1 s after the threads start, from
 *               another thread started first (about 1 s after the connect), so the call may still
 * be in the kernel's queue, never received; LATE=wait waits for all. PRE (default 2): seconds
 * between starting the threads and the denied connect (the guest under TCG needs more). nofile N --
 * PROGRAM [ARG]... raise RLIMIT_NOFILE's soft limit to N and exec PROGRAM (a launcher: the guest's
 * supervisor otherwise keeps the kernel's default 1024, and a receiver holds two descriptors per
 * call, so EMFILE comes before the cap). Built static with musl-gcc by the scripts. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

static void line(const char *what, int rc, int err)
{
	printf("ha39 %s: %s%s\n", what, rc == 0 ? "ok" : "refused ", rc == 0 ? "" : strerror(err));
	fflush(stdout);
}

static int caps(void)
{
	struct timex tx = {0};
	struct sched_param sp = {.sched_priority = 1}, sp0 = {0};
	char buf[4096];
	int rc, lvl = -1;
	FILE *f;

	/* CAP_SYS_TIME: read the tick, then set the same value. */
	rc = adjtimex(&tx);
	if (rc >= 0) {
		long tick = tx.tick;

		memset(&tx, 0, sizeof(tx));
		tx.modes = ADJ_TICK;
		tx.tick = tick;
		rc = adjtimex(&tx) < 0 ? -1 : 0;
	}
	line("adjtimex ADJ_TICK (CAP_SYS_TIME: set the host's clock)", rc, errno);
	/* CAP_SYSLOG: read the whole ring, then set the console level it has. */
	rc = (int)syscall(SYS_syslog, 3 /* READ_ALL */, buf, (int)sizeof(buf));
	line("syslog READ_ALL (CAP_SYSLOG: the host's kernel log)", rc >= 0 ? 0 : -1, errno);
	f = fopen("/proc/sys/kernel/printk", "r");
	if (f && fscanf(f, "%d", &lvl) != 1)
		lvl = -1;
	if (f)
		fclose(f);
	rc = lvl > 0 ? (int)syscall(SYS_syslog, 8 /* CONSOLE_LEVEL */, NULL, lvl) : -1;
	line("syslog CONSOLE_LEVEL (CAP_SYSLOG: also CLEAR, CONSOLE_OFF)", rc >= 0 ? 0 : -1,
	     lvl > 0 ? errno : ENOENT);
	/* CAP_SYS_NICE: real-time on ourselves, then back. */
	/* musl's sched_setscheduler is a stub (ENOSYS): the system call. */
	rc = (int)syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &sp);
	line("sched_setscheduler SCHED_FIFO (CAP_SYS_NICE)", rc, errno);
	if (rc == 0)
		syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, &sp0);
	/* CAP_SYS_RESOURCE: the OOM killer's choice. */
	f = fopen("/proc/self/oom_score_adj", "w");
	rc = f && fprintf(f, "-1000\n") > 0 && fflush(f) == 0 ? 0 : -1;
	line("oom_score_adj -1000 (CAP_SYS_RESOURCE)", rc, errno);
	if (f)
		fclose(f);
	/* CAP_IPC_LOCK: lock more than RLIMIT_MEMLOCK. */
	{
		struct rlimit rl;
		size_t n = 64u << 20;
		void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		getrlimit(RLIMIT_MEMLOCK, &rl);
		rc = p != MAP_FAILED && (unsigned long long)rl.rlim_cur < n ? mlock(p, n) : -1;
		line("mlock 64 MiB over RLIMIT_MEMLOCK (CAP_IPC_LOCK)", rc, errno);
		if (p != MAP_FAILED)
			munmap(p, n);
	}
	return 0;
}

static int oom(long mb, const char *adj)
{
	FILE *f = fopen("/proc/self/oom_score_adj", "w");
	int ok = f && fprintf(f, "%s\n", adj) > 0 && fflush(f) == 0;

	printf("ha39 oom: oom_score_adj %s: %s\n", adj, ok ? "set" : strerror(errno));
	fflush(stdout);
	if (f)
		fclose(f);
	for (long done = 0; done < mb; done += 4) {
		char *p = malloc(4u << 20);

		if (!p)
			break;
		memset(p, 1, 4u << 20);
		if (done % 32 == 0) {
			printf("ha39 oom: %ld MiB\n", done + 4);
			fflush(stdout);
		}
	}
	printf("ha39 oom: holding\n");
	fflush(stdout);
	sleep(30);
	return 0;
}

static int settime(void)
{
	struct timespec ts = {.tv_sec = 978307200}; /* 2001-01-01 */
	struct timex tx = {.modes = ADJ_TICK, .tick = 11000};

	line("clock_settime CLOCK_REALTIME 2001-01-01", clock_settime(CLOCK_REALTIME, &ts), errno);
	line("adjtimex ADJ_TICK 11000", adjtimex(&tx) < 0 ? -1 : 0, errno);
	return 0;
}

static int showtime(void)
{
	struct timex tx = {0};

	adjtimex(&tx);
	printf("ha39 time: wall %lld tick %ld freq %ld\n", (long long)time(NULL), tx.tick, tx.freq);
	return 0;
}

static struct sockaddr_in listen_addr;
static pthread_barrier_t go;

static void *one_connect(void *arg)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	(void)arg;
	pthread_barrier_wait(&go);
	if (fd >= 0)
		(void)connect(fd, (struct sockaddr *)&listen_addr, sizeof(listen_addr));
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void *exit_later(void *arg)
{
	sleep((unsigned)(long)arg);
	printf("ha39 saturate: exit_group while the denied connect waits\n");
	fflush(stdout);
	_exit(0);
}

static int saturate(int n, int secs, const char *addr, int port, const char *late, int pre)
{
	socklen_t len = sizeof(listen_addr);
	int lfd = socket(AF_INET, SOCK_STREAM, 0), u, rc;
	struct sockaddr_in d = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	struct rlimit rl = {65536, 65536};
	pthread_attr_t attr;
	pthread_t t;

	setrlimit(RLIMIT_NOFILE, &rl);
	inet_pton(AF_INET, addr, &d.sin_addr);
	listen_addr.sin_family = AF_INET;
	listen_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&listen_addr, sizeof(listen_addr)) != 0 ||
	    getsockname(lfd, (struct sockaddr *)&listen_addr, &len) != 0 || listen(lfd, 0) != 0)
		return 2;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_barrier_init(&go, NULL, (unsigned)n + 1);
	/* Started first: with the supervisor's receivers, 1100 more threads
	 * of one uid may reach the guest's threads-max before this one. */
	if (strcmp(late, "exit") == 0 &&
	    pthread_create(&t, &attr, exit_later, (void *)(long)(pre + 1)) != 0)
		return 2;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t, &attr, one_connect, NULL) != 0)
			return 2;
	pthread_barrier_wait(&go);
	sleep((unsigned)pre); /* every receiver busy in a connect by now */
	printf("ha39 saturate: %d connects waiting; denied connect to %s:%d\n", n, addr, port);
	fflush(stdout);
	u = socket(AF_INET, SOCK_DGRAM, 0);
	rc = connect(u, (struct sockaddr *)&d, sizeof(d));
	printf("ha39 saturate: denied connect returned %d (%s)\n", rc, rc ? strerror(errno) : "ok");
	fflush(stdout);
	sleep((unsigned)secs);
	close(lfd);
	sleep(2);
	return 0;
}

static int panicline(const char *dir, int nl)
{
	char path[512];
	int fd, st = 0;
	pid_t pid;

	line("syslog CONSOLE_LEVEL 8", (int)syscall(SYS_syslog, 8, NULL, 8) < 0 ? -1 : 0, errno);
	/* With nl the name holds a newline: the console prefixes each line of
	 * a record with its time stamp, so the forged words then start a line
	 * of their own, as the kernel's panic line does. */
	snprintf(path, sizeof(path), "%s/%sKernel panic - not syncing: forged", dir,
		 nl ? "x\n" : "");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0 || write(fd, "#!/bin/sh\nexit 0\n", 17) != 17 || close(fd) != 0) {
		perror("ha39 panicline");
		return 2;
	}
	pid = fork();
	if (pid == 0) {
		char *none[] = {NULL};

		syscall(SYS_execve, path, NULL, none);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	printf("ha39 panicline: exec with NULL argv of %s: status %d\n", path, st);
	fflush(stdout);
	return 0;
}

static int mountline(const char *text)
{
	if (strcmp(text, "-") == 0)
		text = "Kernel panic - not syncing: forged";
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
		perror("ha39 mountline unshare");
		return 2;
	}
	(void)mount("none", "/", NULL, MS_PRIVATE | MS_REC, NULL);
	line("mount tmpfs with the forged option", mount("none", "/tmp", "tmpfs", 0, text), errno);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "mountline") == 0)
		return mountline(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "panicline") == 0)
		return panicline(argv[2], argc >= 4 && strcmp(argv[3], "nl") == 0);
	if (argc >= 7 && strcmp(argv[1], "saturate") == 0)
		return saturate(atoi(argv[2]), atoi(argv[3]), argv[4], atoi(argv[5]), argv[6],
				argc >= 8 ? atoi(argv[7]) : 2);
	if (argc >= 5 && strcmp(argv[1], "nofile") == 0 && strcmp(argv[3], "--") == 0) {
		struct rlimit rl;

		getrlimit(RLIMIT_NOFILE, &rl);
		rl.rlim_cur = (rlim_t)atol(argv[2]);
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur; /* root only */
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			perror("ha39 nofile");
		execv(argv[4], argv + 4);
		perror("ha39 nofile exec");
		return 127;
	}
	if (argc >= 2 && strcmp(argv[1], "caps") == 0)
		return caps();
	if (argc >= 4 && strcmp(argv[1], "oom") == 0)
		return oom(atol(argv[2]), argv[3]);
	if (argc >= 2 && strcmp(argv[1], "settime") == 0)
		return settime();
	if (argc >= 2 && strcmp(argv[1], "showtime") == 0)
		return showtime();
	fprintf(stderr,
		"usage: ha39-agent caps | oom MB ADJ | settime | showtime | "
		"saturate N SECS ADDR PORT exit|wait [PRE] | panicline DIR [nl] | mountline TEXT | "
		"nofile N -- PROGRAM [ARG]...\n");
	return 2;
}
