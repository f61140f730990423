/* Hostile-review agent (independent of tests/agents/): one binary, several
 * attacks on run integrity (issue 12) and containment (issue 11). Written
 * from the issue text only. Data goes only to loopback or 192.0.2.0/24.
 *
 *   hr-agent survive none|kill|term|stop|hup|cpu MARKER
 *   hr-agent json
 *   hr-agent abandon THREADS SECONDS [OP: 0 connect, 1 udp sendto, 2 tcp sendto, 3 listen]
 *   hr-agent table rawclone|nested|rawlisten PORT
 *   hr-agent peek
 *   hr-agent flood N
 *   hr-agent i386
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <stddef.h>

static void msleep(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static struct sockaddr_in sin4(const char *ip, int port)
{
	struct sockaddr_in a;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)port);
	inet_pton(AF_INET, ip, &a.sin_addr);
	return a;
}

/* ---- survive: a setsid grandchild, then a signal to the supervisor ---- */
static int survive(const char *mode, const char *marker)
{
	pid_t sv = getppid();
	pid_t c = fork();
	if (c == 0) {
		setsid();
		if (fork() == 0) {
			prctl(PR_SET_PDEATHSIG, 0);
			for (int i = 0; i < 600; i++) {
				int fd = open(marker, O_WRONLY | O_APPEND | O_CREAT, 0644);
				if (fd >= 0) {
					dprintf(fd, "alive %d pid %d ppid %d\n", i, getpid(), getppid());
					close(fd);
				}
				msleep(100);
			}
			_exit(0);
		}
		_exit(0);
	}
	waitpid(c, NULL, 0);
	msleep(300);
	int sig = 0;
	if (!strcmp(mode, "kill"))
		sig = SIGKILL;
	else if (!strcmp(mode, "term"))
		sig = SIGTERM;
	else if (!strcmp(mode, "stop"))
		sig = SIGSTOP;
	else if (!strcmp(mode, "hup"))
		sig = SIGHUP;
	if (sig) {
		int r = kill(sv, sig);
		fprintf(stderr, "hr: kill(%d (ppid), %d) = %d errno %d\n", sv, sig, r, r ? errno : 0);
	}
	if (!strcmp(mode, "cpu")) {
		/* No signal of ours: the kernel's RLIMIT_CPU kills the supervisor
		 * once our cheap trapped calls have burnt a second of its CPU. */
		struct rlimit rl = {1, 1};
		int r = prlimit(sv, RLIMIT_CPU, &rl, NULL);
		fprintf(stderr, "hr: prlimit(%d, RLIMIT_CPU, 1s) = %d errno %d\n", sv, r, r ? errno : 0);
		struct sockaddr_un u;
		memset(&u, 0, sizeof(u));
		u.sun_family = AF_UNIX;
		strcpy(u.sun_path, "/nonexistent");
		for (int i = 0; i < 200000 && getppid() == sv; i++) {
			int us = socket(AF_UNIX, SOCK_STREAM, 0);
			connect(us, (struct sockaddr *)&u, sizeof(u));
			close(us);
		}
		fprintf(stderr, "hr: ppid now %d\n", getppid());
	}
	msleep(200);
	return 0;
}

/* ---- json: names the report must escape, after one denied connect ---- */
static int json(void)
{
	struct sockaddr_in d = sin4("192.0.2.1", 9);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	int r = connect(s, (struct sockaddr *)&d, sizeof(d));
	fprintf(stderr, "hr: denied connect = %d errno %d\n", r, r ? errno : 0);
	close(s);
	static const char *names[] = {
	    "/tmp/x\"}],\"verdict\":\"pass\",\"complete\":true,\"z\":[{\"a\":\"",
	    "/tmp/bs\\\"\n\r\t\x01\x1f\x7f",
	    "/tmp/hi\xff\xfe\xc0\xaf",
	    "/tmp/u\xe2\x80\xa8\xe2\x80\xa9",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct sockaddr_un u;
		memset(&u, 0, sizeof(u));
		u.sun_family = AF_UNIX;
		strncpy(u.sun_path, names[i], sizeof(u.sun_path) - 1);
		int us = socket(AF_UNIX, SOCK_STREAM, 0);
		r = connect(us, (struct sockaddr *)&u, sizeof(u));
		fprintf(stderr, "hr: unix %zu = %d errno %d\n", i, r, r ? errno : 0);
		close(us);
	}
	/* abstract name with NUL and quote bytes */
	{
		struct sockaddr_un u;
		memset(&u, 0, sizeof(u));
		u.sun_family = AF_UNIX;
		memcpy(u.sun_path, "\0a\"b\0c\\", 7);
		int us = socket(AF_UNIX, SOCK_DGRAM, 0);
		r = (int)sendto(us, "x", 1, 0, (struct sockaddr *)&u,
				(socklen_t)(offsetof(struct sockaddr_un, sun_path) + 7));
		fprintf(stderr, "hr: abstract = %d errno %d\n", r, r < 0 ? errno : 0);
		close(us);
	}
	return 0;
}

/* ---- abandon: denied connects interrupted by signals from a sibling ---- */
static atomic_int stop_all;
static atomic_long n_acces, n_intr, n_other, n_ok;
static pid_t tids[64];
static int g_op;

static void on_usr1(int sig)
{
	(void)sig;
}

static void *abandon_worker(void *arg)
{
	int i = (int)(long)arg;
	tids[i] = (pid_t)syscall(SYS_gettid);
	struct sockaddr_in d = sin4("192.0.2.1", 9);
	while (!atomic_load(&stop_all)) {
		int s, r;
		if (g_op == 1) { /* a denied name on a UDP send */
			s = socket(AF_INET, SOCK_DGRAM, 0);
			r = (int)sendto(s, "x", 1, 0, (struct sockaddr *)&d, sizeof(d));
			r = r < 0 ? -1 : 0;
		} else if (g_op == 2) { /* a denied name on a connected TCP-looking send: TCP stream, unconnected */
			s = socket(AF_INET, SOCK_STREAM, 0);
			r = (int)sendto(s, "x", 1, 0, (struct sockaddr *)&d, sizeof(d));
			r = r < 0 ? -1 : 0;
		} else if (g_op == 3) { /* listen on the wildcard */
			s = socket(AF_INET, SOCK_STREAM, 0);
			struct sockaddr_in b = sin4("0.0.0.0", 0);
			bind(s, (struct sockaddr *)&b, sizeof(b));
			r = listen(s, 1);
		} else {
			s = socket(AF_INET, SOCK_DGRAM, 0);
			r = connect(s, (struct sockaddr *)&d, sizeof(d));
		}
		if (r == 0)
			atomic_fetch_add(&n_ok, 1);
		else if (errno == EACCES)
			atomic_fetch_add(&n_acces, 1);
		else if (errno == EINTR)
			atomic_fetch_add(&n_intr, 1);
		else
			atomic_fetch_add(&n_other, 1);
		close(s);
	}
	return NULL;
}

static int abandon(int nthr, int secs)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1; /* no SA_RESTART */
	sigaction(SIGUSR1, &sa, NULL);
	pthread_t th[64];
	if (nthr > 64)
		nthr = 64;
	for (int i = 0; i < nthr; i++)
		pthread_create(&th[i], NULL, abandon_worker, (void *)(long)i);
	msleep(50);
	time_t end = time(NULL) + secs;
	unsigned k = 0;
	pid_t me = getpid();
	while (time(NULL) < end) {
		for (int i = 0; i < nthr; i++)
			if (tids[i])
				syscall(SYS_tgkill, me, tids[i], SIGUSR1);
		/* vary the delay: 0-60 us */
		struct timespec ts = {0, (long)(k++ % 7) * 10000L};
		nanosleep(&ts, NULL);
	}
	atomic_store(&stop_all, 1);
	for (int i = 0; i < nthr; i++)
		pthread_join(th[i], NULL);
	fprintf(stderr, "hr: abandon EACCES %ld EINTR %ld other %ld ok %ld\n", atomic_load(&n_acces),
		atomic_load(&n_intr), atomic_load(&n_other), atomic_load(&n_ok));
	return 0;
}

/* ---- table: a thread with its own descriptor table connects/listens N ---- */
#define NFD 40
static int g_port;
static volatile long t_rc = -999, t_errno, t_peer = -1, t_done;
static char t_stack[65536] __attribute__((aligned(16)));

/* Raw clone child: only raw syscalls (no libc state: errno is shared). */
static int raw_child(void *arg)
{
	int listen_mode = (int)(long)arg;
	long s = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
	syscall(SYS_dup2, s, NFD);
	if (listen_mode) {
		struct sockaddr_in b = sin4("0.0.0.0", 0);
		syscall(SYS_bind, NFD, &b, sizeof(b));
		t_rc = syscall(SYS_listen, NFD, 5);
	} else {
		struct sockaddr_in d = sin4("127.0.0.1", g_port);
		t_rc = syscall(SYS_connect, NFD, &d, sizeof(d));
		struct sockaddr_in p;
		socklen_t pl = sizeof(p);
		t_peer = syscall(SYS_getpeername, NFD, &p, &pl);
	}
	t_done = 1;
	syscall(SYS_exit, 0);
	return 0;
}

static volatile int nested_rc = -999, nested_err, nested_peer = -1;
static void *nested_inner(void *arg)
{
	(void)arg;
	struct sockaddr_in d = sin4("127.0.0.1", g_port);
	nested_rc = connect(NFD, (struct sockaddr *)&d, sizeof(d));
	nested_err = errno;
	struct sockaddr_in p;
	socklen_t pl = sizeof(p);
	nested_peer = getpeername(NFD, (struct sockaddr *)&p, &pl);
	return NULL;
}

static void *nested_outer(void *arg)
{
	(void)arg;
	if (unshare(CLONE_FILES) != 0) {
		perror("hr: unshare");
		return NULL;
	}
	int s = socket(AF_INET, SOCK_STREAM, 0);
	dup2(s, NFD);
	pthread_t u;
	pthread_create(&u, NULL, nested_inner, NULL);
	pthread_join(u, NULL);
	return NULL;
}

static int table(const char *mode, int port)
{
	g_port = port;
	int leader = socket(AF_INET, SOCK_STREAM, 0);
	dup2(leader, NFD);
	close(leader);
	int listen_mode = !strcmp(mode, "rawlisten");
	if (listen_mode) {
		struct sockaddr_in b = sin4("127.0.0.1", 0);
		bind(NFD, (struct sockaddr *)&b, sizeof(b));
	}
	if (!strcmp(mode, "rawclone") || !strcmp(mode, "rawlisten")) {
		long fl = CLONE_VM | CLONE_THREAD | CLONE_SIGHAND | CLONE_SYSVSEM;
		int r = clone(raw_child, t_stack + sizeof(t_stack), (int)fl, (void *)(long)listen_mode);
		if (r < 0) {
			perror("hr: clone");
			return 2;
		}
		while (!t_done)
			msleep(10);
		fprintf(stderr, "hr: thread(own table) %s rc=%ld peer_rc=%ld\n", mode, t_rc, t_peer);
	} else if (!strcmp(mode, "nested")) {
		pthread_t t;
		pthread_create(&t, NULL, nested_outer, NULL);
		pthread_join(t, NULL);
		fprintf(stderr, "hr: nested thread connect rc=%d errno=%d its peer_rc=%d\n", nested_rc,
			nested_rc ? nested_err : 0, nested_peer);
	}
	struct sockaddr_in p;
	socklen_t pl = sizeof(p);
	int lp = getpeername(NFD, (struct sockaddr *)&p, &pl);
	int lacc = -1;
	if (listen_mode) {
		int v = 0;
		socklen_t vl = sizeof(v);
		getsockopt(NFD, SOL_SOCKET, SO_ACCEPTCONN, &v, &vl);
		lacc = v;
	}
	fprintf(stderr, "hr: leader's fd %d: getpeername rc=%d (0 = connected) acceptconn=%d\n", NFD, lp, lacc);
	return 0;
}

/* ---- peek: try to reach the report channel of the supervisor or caller ---- */
static pid_t ppid_of(pid_t p)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", p);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	char *q = strrchr(buf, ')');
	int pp = -1;
	if (q)
		sscanf(q + 1, " %*c %d", &pp);
	return pp;
}

static int peek(void)
{
	pid_t chain[4];
	chain[0] = getppid();
	for (int i = 1; i < 4; i++)
		chain[i] = chain[i - 1] > 1 ? ppid_of(chain[i - 1]) : -1;
	int opened = 0;
	for (int i = 0; i < 4; i++) {
		if (chain[i] <= 0)
			continue;
		for (int fd = 0; fd < 16; fd++) {
			char path[64], ln[256];
			snprintf(path, sizeof(path), "/proc/%d/fd/%d", chain[i], fd);
			ssize_t n = readlink(path, ln, sizeof(ln) - 1);
			int e1 = n < 0 ? errno : 0;
			int o = open(path, O_WRONLY | O_APPEND);
			int e2 = o < 0 ? errno : 0;
			if (n >= 0 || o >= 0) {
				ln[n > 0 ? n : 0] = 0;
				fprintf(stderr, "hr: %s readlink=%s(%d) open=%d(%d)\n", path, n >= 0 ? ln : "-", e1, o,
					e2);
			}
			if (o >= 0 && fd >= 3) {
				const char *j = "{\"format\":\"egress-supervisor-report/2\",\"complete\":true,"
						"\"verdict\":\"pass\"}";
				dprintf(o, "egress-supervisor-report-record/1 final %zu\n%s", strlen(j), j);
				opened++;
				close(o);
			}
		}
	}
	fprintf(stderr, "hr: peek chain %d %d %d %d; wrote into %d descriptors\n", chain[0], chain[1], chain[2],
		chain[3], opened);
	/* a denied connect so the honest verdict is fail */
	struct sockaddr_in d = sin4("192.0.2.1", 9);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	int r = connect(s, (struct sockaddr *)&d, sizeof(d));
	fprintf(stderr, "hr: denied connect = %d errno %d\n", r, r ? errno : 0);
	return 0;
}

/* ---- flood: N allowed trapped calls, then one denied connect ---- */
static int flood(long n)
{
	struct sockaddr_un u;
	memset(&u, 0, sizeof(u));
	u.sun_family = AF_UNIX;
	strcpy(u.sun_path, "/nonexistent");
	int us = socket(AF_UNIX, SOCK_DGRAM, 0);
	for (long i = 0; i < n; i++)
		sendto(us, "x", 1, 0, (struct sockaddr *)&u, sizeof(u));
	struct sockaddr_in d = sin4("192.0.2.1", 9);
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	int r = connect(s, (struct sockaddr *)&d, sizeof(d));
	fprintf(stderr, "hr: after %ld allowed calls, denied connect = %d errno %d\n", n, r, r ? errno : 0);
	return 0;
}

/* ---- i386: cross-process calls through int 0x80 ---- */
static long int80(long nr, long a, long b, long c)
{
	long ret;
	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
	return ret;
}

static int i386calls(void)
{
	pid_t pp = getppid();
	long pfd = syscall(SYS_pidfd_open, pp, 0);
	fprintf(stderr, "hr: pidfd_open(ppid %d) = %ld errno %d\n", pp, pfd, pfd < 0 ? errno : 0);
	long r = int80(438 /* i386 pidfd_getfd */, pfd, 1, 0);
	fprintf(stderr, "hr: i386 pidfd_getfd = %ld\n", r);
	r = int80(26 /* i386 ptrace */, 16 /* PTRACE_ATTACH */, pp, 0);
	fprintf(stderr, "hr: i386 ptrace attach = %ld\n", r);
	r = syscall(SYS_pidfd_getfd, pfd, 1, 0);
	fprintf(stderr, "hr: x86_64 pidfd_getfd = %ld errno %d\n", r, r < 0 ? errno : 0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "survive"))
		return survive(argv[2], argv[3]);
	if (argc >= 2 && !strcmp(argv[1], "json"))
		return json();
	if (argc >= 5 && !strcmp(argv[1], "abandon"))
		g_op = atoi(argv[4]);
	if (argc >= 4 && !strcmp(argv[1], "abandon"))
		return abandon(atoi(argv[2]), atoi(argv[3]));
	if (argc >= 4 && !strcmp(argv[1], "table"))
		return table(argv[2], atoi(argv[3]));
	if (argc >= 2 && !strcmp(argv[1], "peek"))
		return peek();
	if (argc >= 3 && !strcmp(argv[1], "flood"))
		return flood(atol(argv[2]));
	if (argc >= 2 && !strcmp(argv[1], "i386"))
		return i386calls();
	fprintf(stderr, "usage: see source\n");
	return 2;
}
