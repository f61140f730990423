/* ha66-agent.c (hostile review h-attack66): every way found to make a send
 * on a socket whose destination is judged (declared D4 = 127.0.0.1:PORT,
 * D6 = [::1]:PORT) leave for another first hop or destination: the
 * undeclared U4 = 127.0.0.2 or U6 = 2001:db8::66 (both on lo in the
 * harness's own network namespace). Each probe sends its own name as the
 * payload, so the capture (ha66-host.sh's sink) tells which probe's packet
 * went where. One line per probe: NAME step=rc/errno ...
 *   ha66-agent PORT [D4 U4 D6 U6] [PROBE...]   (no probe: all)
 * Static, built by ha66-host.sh: gcc -static -O2 -o ha66-agent ha66-agent.c */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define X32_BIT 0x40000000
static int port;
/* The declared and undeclared addresses: argv[2..5], or the host's. */
static const char *D4 = "127.0.0.1", *U4 = "127.0.0.2", *D6 = "::1", *U6 = "2001:db8::66";

static const char *ename(int e)
{
	static char b[16];
	switch (e) {
	case EACCES:
		return "EACCES";
	case EPERM:
		return "EPERM";
	case ENOSYS:
		return "ENOSYS";
	case EINVAL:
		return "EINVAL";
	case ENOPROTOOPT:
		return "ENOPROTOOPT";
	case EPROTONOSUPPORT:
		return "EPROTONOSUPPORT";
	case ESOCKTNOSUPPORT:
		return "ESOCKTNOSUPPORT";
	case ECONNREFUSED:
		return "ECONNREFUSED";
	case EAFNOSUPPORT:
		return "EAFNOSUPPORT";
	case ENETUNREACH:
		return "ENETUNREACH";
	case EPIPE:
		return "EPIPE";
	default:
		snprintf(b, sizeof(b), "E%d", e);
		return b;
	}
}

static void step(const char *what, long rc)
{
	printf(" %s=%ld/%s", what, rc, rc < 0 ? ename(errno) : "ok");
}

static struct sockaddr_in d4(const char *a)
{
	struct sockaddr_in s = {.sin_family = AF_INET, .sin_port = htons(port)};
	inet_pton(AF_INET, a, &s.sin_addr);
	return s;
}

static struct sockaddr_in6 d6(const char *a)
{
	struct sockaddr_in6 s = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
	inet_pton(AF_INET6, a, &s.sin6_addr);
	return s;
}

/* i386 entry from a 64-bit process: int $0x80, arguments in 32 bits. */
static long i386_call(long nr, long a, long b, long c, long d, long e)
{
	long rc;
	__asm__ volatile("int $0x80"
			 : "=a"(rc)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
			 : "memory");
	if (rc < 0 && rc > -4096) {
		errno = (int)-rc;
		return -1;
	}
	return rc;
}

static uint8_t *low; /* a page below 4 GiB for the i386 calls */

/* IPv4 loose source route: first hop U4, then the declared address. */
static size_t lsrr(uint8_t *o)
{
	uint8_t opt[12] = {1, 0x83, 11, 4};
	inet_pton(AF_INET, U4, opt + 4);
	inet_pton(AF_INET, D4, opt + 8);
	memcpy(o, opt, sizeof(opt));
	return sizeof(opt);
}

static struct sockaddr_in6 mapped(void)
{
	char m[64];
	snprintf(m, sizeof(m), "::ffff:%s", D4);
	return d6(m);
}

/* A type-0 and a type-2 routing header naming U6. */
static size_t rthdr(uint8_t *o, int type)
{
	memset(o, 0, 24);
	o[1] = 2; /* hdr ext len: one address */
	o[2] = (uint8_t)type;
	o[3] = 1; /* segments left */
	inet_pton(AF_INET6, U6, o + 8);
	return 24;
}

static long send4(int s, const char *name)
{
	struct sockaddr_in a = d4(D4);
	return sendto(s, name, strlen(name), 0, (struct sockaddr *)&a, sizeof(a));
}

static long send6(int s, const char *name, const char *to)
{
	struct sockaddr_in6 a = d6(to);
	return sendto(s, name, strlen(name), 0, (struct sockaddr *)&a, sizeof(a));
}

/* sendmsg to TO with one control message (level, type, data). */
static long cmsg_send(int s, const char *name, const void *to, socklen_t tolen, int level, int type,
		      const void *data, size_t len)
{
	union {
		struct cmsghdr h;
		uint8_t b[256];
	} c;
	struct iovec iov = {.iov_base = (void *)name, .iov_len = strlen(name)};
	struct msghdr m = {.msg_name = (void *)to,
			   .msg_namelen = tolen,
			   .msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = c.b,
			   .msg_controllen = CMSG_SPACE(len)};
	memset(c.b, 0, sizeof(c.b));
	c.h.cmsg_len = CMSG_LEN(len);
	c.h.cmsg_level = level;
	c.h.cmsg_type = type;
	memcpy(CMSG_DATA(&c.h), data, len);
	return sendmsg(s, &m, 0);
}

static int udp4(void)
{
	return socket(AF_INET, SOCK_DGRAM, 0);
}
static int udp6(void)
{
	return socket(AF_INET6, SOCK_DGRAM, 0);
}

static void p_lsrr_native(const char *n)
{
	int s = udp4();
	uint8_t o[12];
	step("setsockopt", setsockopt(s, IPPROTO_IP, IP_OPTIONS, o, lsrr(o)));
	step("send", send4(s, n));
	close(s);
}

static void p_lsrr_i386(const char *n)
{
	int s = udp4();
	step("i386-setsockopt",
	     i386_call(366, s, IPPROTO_IP, IP_OPTIONS, (long)(uintptr_t)low, (long)lsrr(low)));
	step("send", send4(s, n));
	close(s);
}

static void p_lsrr_socketcall(const char *n)
{
	int s = udp4();
	uint32_t *args = (uint32_t *)(void *)(low + 64);
	args[0] = (uint32_t)s;
	args[1] = IPPROTO_IP;
	args[2] = IP_OPTIONS;
	args[3] = (uint32_t)(uintptr_t)low;
	args[4] = (uint32_t)lsrr(low);
	step("socketcall-setsockopt", i386_call(102, 14, (long)(uintptr_t)args, 0, 0, 0));
	step("send", send4(s, n));
	close(s);
}

static void p_lsrr_x32(const char *n)
{
	int s = udp4();
	uint8_t o[12];
	size_t l = lsrr(o);
	step("x32-setsockopt-541", syscall(X32_BIT | 541, s, IPPROTO_IP, IP_OPTIONS, o, l));
	step("x32-setsockopt-54", syscall(X32_BIT | 54, s, IPPROTO_IP, IP_OPTIONS, o, l));
	step("send", send4(s, n));
	close(s);
}

static void p_retopts_cmsg(const char *n)
{
	int s = udp4();
	uint8_t o[12];
	struct sockaddr_in a = d4(D4);
	size_t l = lsrr(o);
	step("sendmsg-IP_RETOPTS", cmsg_send(s, n, &a, sizeof(a), IPPROTO_IP, IP_RETOPTS, o, l));
	step("sendmsg-IP_OPTIONS", cmsg_send(s, n, &a, sizeof(a), IPPROTO_IP, IP_OPTIONS, o, l));
	close(s);
}

/* IP_PKTINFO: ipi_spec_dst is the source (must be local), not a hop. */
static void p_pktinfo_specdst(const char *n)
{
	int s = udp4();
	struct in_pktinfo pi = {0};
	struct sockaddr_in a = d4(D4);
	inet_pton(AF_INET, U4, &pi.ipi_spec_dst);
	inet_pton(AF_INET, U4, &pi.ipi_addr); /* ignored on send */
	step("sendmsg", cmsg_send(s, n, &a, sizeof(a), IPPROTO_IP, IP_PKTINFO, &pi, sizeof(pi)));
	close(s);
}

/* A connected UDP socket: a name in sendmsg, and a name pointer with
 * length 0 (the kernel then uses the connected peer). */
static void p_connected_name(const char *n)
{
	int s = udp4();
	struct sockaddr_in a = d4(D4), u = d4(U4);
	struct iovec iov = {.iov_base = (void *)n, .iov_len = strlen(n)};
	struct msghdr m = {
	    .msg_name = &u, .msg_namelen = sizeof(u), .msg_iov = &iov, .msg_iovlen = 1};
	step("connect", connect(s, (struct sockaddr *)&a, sizeof(a)));
	step("sendmsg-named", sendmsg(s, &m, 0));
	m.msg_namelen = 0;
	step("sendmsg-len0", sendmsg(s, &m, 0));
	close(s);
}

/* IPV6_NEXTHOP (9): a sockaddr_in6 as setsockopt and as a control
 * message (RFC 3542; BSD and Solaris implement it). */
static void p_nexthop(const char *n)
{
	int s = udp6();
	struct sockaddr_in6 nh = d6(U6), a = d6(D6);
	nh.sin6_port = 0;
	step("setsockopt", setsockopt(s, IPPROTO_IPV6, 9, &nh, sizeof(nh)));
	step("send", send6(s, n, D6));
	step("sendmsg-cmsg", cmsg_send(s, n, &a, sizeof(a), IPPROTO_IPV6, 9, &nh, sizeof(nh)));
	close(s);
}

/* RFC 2292 sticky options through IPV6_2292PKTOPTIONS (one cmsg buffer),
 * and each 2292 and 3542 extension header as a control message. */
static void p_v6_cmsgs(const char *n)
{
	static const struct {
		int type, rt;
		const char *name;
	} t[] = {{5, 0, "2292RTHDR-t0"}, {5, 2, "2292RTHDR-t2"},   {57, 2, "RTHDR-t2"},
		 {3, -1, "2292HOPOPTS"}, {4, -1, "2292DSTOPTS"},   {54, -1, "HOPOPTS"},
		 {59, -1, "DSTOPTS"},    {55, -1, "RTHDRDSTOPTS"}, {2, -2, "2292PKTINFO-lo"}};
	struct sockaddr_in6 a = d6(D6);
	uint8_t o[32];
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int s = udp6();
		size_t l;
		char what[48];
		if (t[i].rt >= 0) {
			l = rthdr(o, t[i].rt);
		} else if (t[i].rt == -1) { /* PadN over 6 bytes */
			memset(o, 0, 8);
			o[2] = 1;
			o[3] = 4;
			l = 8;
		} else { /* in6_pktinfo: ::1 on lo */
			memset(o, 0, 20);
			o[15] = 1;
			o[16] = 1;
			l = 20;
		}
		snprintf(what, sizeof(what), "cmsg-%s", t[i].name);
		step(what, cmsg_send(s, n, &a, sizeof(a), IPPROTO_IPV6, t[i].type, o, l));
		close(s);
	}
}

static void p_v6_sticky(const char *n)
{
	/* optnames: the 3542 sticky headers, then the 2292 names (receive
	 * flags in Linux: an int). */
	static const struct {
		int name, rt;
		const char *label;
	} t[] = {{54, -1, "HOPOPTS"},      {59, -1, "DSTOPTS"},      {55, -1, "RTHDRDSTOPTS"},
		 {5, -3, "2292RTHDR=1"},   {3, -3, "2292HOPOPTS=1"}, {4, -3, "2292DSTOPTS=1"},
		 {2, -3, "2292PKTINFO=1"}, {8, -3, "2292HOPLIMIT=1"}};
	uint8_t o[32];
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int s = udp6(), one = 1;
		size_t l;
		char what[48];
		if (t[i].rt == -1) {
			memset(o, 0, 8);
			o[2] = 1;
			o[3] = 4;
			l = 8;
		} else {
			memcpy(o, &one, 4);
			l = 4;
		}
		snprintf(what, sizeof(what), "sso-%s", t[i].label);
		step(what, setsockopt(s, IPPROTO_IPV6, t[i].name, o, (socklen_t)l));
		step("send", send6(s, n, D6));
		close(s);
	}
}

/* IPV6_ADDRFORM (1): a v6 UDP socket connected to a mapped declared
 * address becomes AF_INET; then LSRR on it (trapped by level and name). */
static void p_addrform(const char *n)
{
	int s = udp6(), v = AF_INET;
	struct sockaddr_in6 a = mapped();
	uint8_t o[12];
	step("connect", connect(s, (struct sockaddr *)&a, sizeof(a)));
	step("addrform", setsockopt(s, IPPROTO_IPV6, 1, &v, sizeof(v)));
	step("write", write(s, n, strlen(n)));
	step("lsrr", setsockopt(s, IPPROTO_IP, IP_OPTIONS, o, lsrr(o)));
	step("write2", write(s, n, strlen(n)));
	close(s);
}

/* socket() of the protocols that add or choose destinations themselves. */
static void p_protocols(const char *n)
{
	static const struct {
		int f, t, p;
		const char *name;
	} t[] = {{AF_INET, SOCK_STREAM, 262, "mptcp4"},
		 {AF_INET6, SOCK_STREAM, 262, "mptcp6"},
		 {AF_INET, SOCK_STREAM, 132, "sctp4"},
		 {AF_INET, SOCK_SEQPACKET, 132, "sctp4-seq"},
		 {AF_INET6, SOCK_SEQPACKET, 132, "sctp6"},
		 {AF_INET, SOCK_DGRAM, 136, "udplite4"},
		 {AF_INET6, SOCK_DGRAM, 136, "udplite6"},
		 {AF_INET, 6, 33, "dccp4"},
		 {AF_INET6, 6, 33, "dccp6"},
		 {AF_INET, SOCK_DGRAM, 115, "l2tpip4"},
		 {AF_INET6, SOCK_DGRAM, 115, "l2tpip6"},
		 {AF_INET, SOCK_DGRAM, 1, "ping4"},
		 {AF_INET6, SOCK_DGRAM, 58, "ping6"},
		 {AF_INET, SOCK_RAW, 255, "raw4"}};
	(void)n;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int s = socket(t[i].f, t[i].t, t[i].p);
		step(t[i].name, s);
		if (s >= 0)
			close(s);
	}
}

static void p_tcp_repair(const char *n)
{
	int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	(void)n;
	step("TCP_REPAIR", setsockopt(s, IPPROTO_TCP, TCP_REPAIR, &one, sizeof(one)));
	close(s);
}

/* A TCP connection to the declared address with IPv6 sticky options set
 * through IPV6_2292PKTOPTIONS before connect (they ride on every segment). */
static void p_tcp_pktoptions(const char *n)
{
	int s = socket(AF_INET6, SOCK_STREAM, 0);
	struct sockaddr_in6 a = d6(D6);
	union {
		struct cmsghdr h;
		uint8_t b[64];
	} c;
	memset(&c, 0, sizeof(c));
	c.h.cmsg_len = CMSG_LEN(24);
	c.h.cmsg_level = IPPROTO_IPV6;
	c.h.cmsg_type = 57;
	rthdr(CMSG_DATA(&c.h), 2);
	step("2292PKTOPTIONS", setsockopt(s, IPPROTO_IPV6, 6, c.b, CMSG_SPACE(24)));
	step("connect", connect(s, (struct sockaddr *)&a, sizeof(a)));
	step("write", write(s, n, strlen(n)));
	close(s);
}

static const struct {
	const char *name;
	void (*fn)(const char *);
} probes[] = {{"lsrr-native", p_lsrr_native},
	      {"lsrr-i386", p_lsrr_i386},
	      {"lsrr-socketcall", p_lsrr_socketcall},
	      {"lsrr-x32", p_lsrr_x32},
	      {"retopts-cmsg", p_retopts_cmsg},
	      {"pktinfo-specdst", p_pktinfo_specdst},
	      {"connected-name", p_connected_name},
	      {"nexthop", p_nexthop},
	      {"v6-cmsgs", p_v6_cmsgs},
	      {"v6-sticky", p_v6_sticky},
	      {"addrform", p_addrform},
	      {"protocols", p_protocols},
	      {"tcp-repair", p_tcp_repair},
	      {"tcp-pktoptions", p_tcp_pktoptions}};

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	port = atoi(argv[1]);
	if (argc >= 6 && strchr(argv[2], '.')) {
		D4 = argv[2];
		U4 = argv[3];
		D6 = argv[4];
		U6 = argv[5];
		argv += 4;
		argc -= 4;
	}
	low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1,
		   0);
	if (low == MAP_FAILED)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		int want = argc == 2;
		for (int j = 2; j < argc; j++)
			want |= strcmp(argv[j], probes[i].name) == 0;
		if (!want)
			continue;
		printf("ha66 %s", probes[i].name);
		probes[i].fn(probes[i].name);
		printf("\n");
	}
	return 0;
}
