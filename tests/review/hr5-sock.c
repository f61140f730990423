/* hr5-sock.c: the socket calls of real network stacks, one per subcommand
 * (helper h-realprog5). Each subcommand does what a QUIC stack, a batching
 * UDP server, a TCP Fast Open client or a dual-stack program does, prints
 * what the calls answered and exits 0 when the program's work was done
 * (the replies of hr5-run.py's echo servers read back), 1 when not.
 *
 *   gcc -O2 -Wall -o /tmp/hr5-sock tests/review/hr5-sock.c
 *   musl-gcc -static -O2 -isystem build/kheaders -o DIR/hr5-sock tests/review/hr5-sock.c   (guest)
 *   hr5-sock gso ADDR PORT SEG N       sendmsg, a UDP_SEGMENT control (GSO)
 *   hr5-sock gsoopt ADDR PORT SEG N    setsockopt UDP_SEGMENT, then sendto
 *   hr5-sock quic ADDR PORT            quinn/msquic's cmsgs: ECN, PKTINFO, GSO
 *   hr5-sock quicmapped ADDR4 PORT     tokio-quiche's send to a v4-mapped peer from
 *                                      [::]:0: IP_TOS and an IPV6_PKTINFO naming
 *                                      ::ffff:127.0.0.1 as the source
 *   hr5-sock mmsggso ADDR PORT         msquic's batch: sendmmsg of 4 messages, each
 *                                      3 segments of 1000 by UDP_SEGMENT
 *   hr5-sock zerocopy ADDR PORT        SO_ZEROCOPY, sendto(MSG_ZEROCOPY) of 4000
 *                                      bytes, the completion read from the
 *                                      error queue (SO_EE_ORIGIN_ZEROCOPY)
 *   hr5-sock zerocopyc ADDR PORT       the same on a connected socket, no name
 *   hr5-sock zcseq ADDR PORT           the kernel's completion numbers: a named
 *                                      MSG_ZEROCOPY sendto, a sendmsg with GSO,
 *                                      then a connect and a nameless send:
 *                                      expects ids 0, 1 and 2 (one range 0-2)
 *   hr5-sock txtime ADDR PORT          SO_TXTIME and an SCM_TXTIME control
 *   hr5-sock tstamp ADDR PORT          an SO_TIMESTAMPING control (tx stamps)
 *   hr5-sock dontfrag ADDR PORT        IPV6_DONTFRAG control (v6 only)
 *   hr5-sock mmsg ADDR PORT N          sendmmsg N named, recvmmsg the echoes
 *   hr5-sock mmsgc ADDR PORT N         connected: sendmmsg N, recvmmsg
 *   hr5-sock mmsgmix A1 P1 A2 P2 W     a batch of 4: A1, A2, A1, A2; W echoes expected
 *   hr5-sock tfo ADDR PORT             sendto(MSG_FASTOPEN), read the echo
 *   hr5-sock tfoc ADDR PORT            TCP_FASTOPEN_CONNECT, connect, write
 *   hr5-sock mapped ADDR4 PORT         AF_INET6 UDP, sendto ::ffff:ADDR4
 *   hr5-sock mappedc ADDR4 PORT        AF_INET6 TCP, connect ::ffff:ADDR4
 *   hr5-sock gro PORT                  a receiver on 127.0.0.1:PORT with UDP_GRO, a
 *                                      GSO send of 3 x 1000 to it: one read of
 *                                      3000 with a UDP_GRO control of 1000
 *   hr5-sock reuseporttcp PORT         two SO_REUSEPORT listeners on 127.0.0.1:PORT
 *                                      and 16 connects to it: every one accepted
 *   hr5-sock passiveprobe              glibc's sorting probe of getaddrinfo(NULL,
 *                                      "0", AI_PASSIVE), as strace shows it: an
 *                                      AF_INET6 UDP socket connected to [::]:0,
 *                                      AF_UNSPEC, then 0.0.0.0:0; exits 0
 *   hr5-sock reuseport PORT            two reuseport UDP sockets on PORT
 *                                      (127.0.0.1), 8 datagrams to it
 *                                      from a third: both groups answer
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef SO_TXTIME
#define SO_TXTIME 61
#define SCM_TXTIME SO_TXTIME
#endif
#ifndef TCPI_OPT_SYN_DATA
#define TCPI_OPT_SYN_DATA 32 /* musl's netinet/tcp.h lacks it */
#endif
#ifndef TCP_FASTOPEN_CONNECT
#define TCP_FASTOPEN_CONNECT 30
#endif

struct peer {
	struct sockaddr_storage ss;
	socklen_t len;
	int fam;
};

static int parse(const char *a, const char *p, struct peer *o)
{
	memset(o, 0, sizeof *o);
	struct sockaddr_in *s4 = (void *)&o->ss;
	struct sockaddr_in6 *s6 = (void *)&o->ss;
	if (inet_pton(AF_INET, a, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(atoi(p));
		o->len = sizeof *s4;
		o->fam = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, a, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(atoi(p));
		o->len = sizeof *s6;
		o->fam = AF_INET6;
		return 0;
	}
	fprintf(stderr, "bad address %s\n", a);
	exit(2);
}

static void say(const char *what, long rc)
{
	printf("%s = %ld%s%s\n", what, rc, rc < 0 ? " " : "", rc < 0 ? strerror(errno) : "");
	fflush(stdout);
}

static int errqueue;

/* Reads datagrams for up to ms; returns how many and their total bytes. */
static int drain(int fd, int ms, long *bytes)
{
	char b[65536];
	int n = 0;
	*bytes = 0;
	struct pollfd p = {.fd = fd, .events = POLLIN};
	while (poll(&p, 1, ms) == 1) {
		ssize_t r = recv(fd, b, sizeof b, MSG_DONTWAIT);
		if (r < 0 && errno == EAGAIN) {
			/* a transmit timestamp (SO_TIMESTAMPING) waits on the
			 * error queue: poll says POLLERR until it is read */
			char cb[512];
			struct iovec iov = {b, sizeof b};
			struct msghdr m = {.msg_iov = &iov,
					   .msg_iovlen = 1,
					   .msg_control = cb,
					   .msg_controllen = sizeof cb};
			if (recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) >= 0) {
				errqueue++;
				continue;
			}
			break;
		}
		if (r < 0)
			break;
		n++;
		*bytes += r;
		ms = 300;
	}
	return n;
}

static int udp(int fam)
{
	int fd = socket(fam, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("socket");
		exit(1);
	}
	return fd;
}

static int gso(struct peer *d, int seg, int n, int viaopt)
{
	int fd = udp(d->fam);
	size_t len = (size_t)seg * n;
	char *buf = malloc(len);
	memset(buf, 'g', len);
	struct iovec iov = {buf, len};
	union {
		char b[CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr a;
	} c;
	struct msghdr m = {
	    .msg_name = &d->ss, .msg_namelen = d->len, .msg_iov = &iov, .msg_iovlen = 1};
	if (viaopt) {
		say("setsockopt UDP_SEGMENT",
		    setsockopt(fd, SOL_UDP, UDP_SEGMENT, &seg, sizeof seg));
	} else {
		memset(&c, 0, sizeof c);
		m.msg_control = c.b;
		m.msg_controllen = sizeof c.b;
		struct cmsghdr *h = CMSG_FIRSTHDR(&m);
		h->cmsg_level = SOL_UDP;
		h->cmsg_type = UDP_SEGMENT;
		h->cmsg_len = CMSG_LEN(sizeof(uint16_t));
		uint16_t s = seg;
		memcpy(CMSG_DATA(h), &s, sizeof s);
	}
	long r = sendmsg(fd, &m, 0);
	say("sendmsg gso", r);
	long bytes;
	int got = drain(fd, 3000, &bytes);
	printf("echoes %d bytes %ld (want %d of %d)\n", got, bytes, n, seg);
	return r == (long)len && got == n && bytes == (long)len ? 0 : 1;
}

/* quinn-udp's send: ECN in IP_TOS/IPV6_TCLASS, the source in PKTINFO
 * (ifindex 0), a GSO segment size; 3 segments of 1200. */
static int quic(struct peer *d)
{
	int fd = udp(d->fam);
	char buf[3600];
	memset(buf, 'q', sizeof buf);
	struct iovec iov = {buf, sizeof buf};
	union {
		char b[256];
		struct cmsghdr a;
	} c;
	memset(&c, 0, sizeof c);
	struct msghdr m = {.msg_name = &d->ss,
			   .msg_namelen = d->len,
			   .msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = c.b};
	size_t used = 0;
	struct cmsghdr *h = (struct cmsghdr *)c.b;
	int ecn = 2; /* ECT(0) */
	if (d->fam == AF_INET) {
		h->cmsg_level = IPPROTO_IP;
		h->cmsg_type = IP_TOS;
		h->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(h), &ecn, sizeof ecn);
		used += CMSG_SPACE(sizeof(int));
		h = (struct cmsghdr *)(c.b + used);
		struct in_pktinfo pi = {0};
		inet_pton(AF_INET, "127.0.0.1", &pi.ipi_spec_dst);
		h->cmsg_level = IPPROTO_IP;
		h->cmsg_type = IP_PKTINFO;
		h->cmsg_len = CMSG_LEN(sizeof pi);
		memcpy(CMSG_DATA(h), &pi, sizeof pi);
		used += CMSG_SPACE(sizeof pi);
	} else {
		h->cmsg_level = IPPROTO_IPV6;
		h->cmsg_type = IPV6_TCLASS;
		h->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(h), &ecn, sizeof ecn);
		used += CMSG_SPACE(sizeof(int));
		h = (struct cmsghdr *)(c.b + used);
		struct in6_pktinfo pi = {0};
		inet_pton(AF_INET6, "::1", &pi.ipi6_addr);
		h->cmsg_level = IPPROTO_IPV6;
		h->cmsg_type = IPV6_PKTINFO;
		h->cmsg_len = CMSG_LEN(sizeof pi);
		memcpy(CMSG_DATA(h), &pi, sizeof pi);
		used += CMSG_SPACE(sizeof pi);
	}
	h = (struct cmsghdr *)(c.b + used);
	uint16_t seg = 1200;
	h->cmsg_level = SOL_UDP;
	h->cmsg_type = UDP_SEGMENT;
	h->cmsg_len = CMSG_LEN(sizeof seg);
	memcpy(CMSG_DATA(h), &seg, sizeof seg);
	used += CMSG_SPACE(sizeof seg);
	m.msg_controllen = used;
	long r = sendmsg(fd, &m, 0);
	say("sendmsg quic", r);
	long bytes;
	int got = drain(fd, 3000, &bytes);
	printf("echoes %d bytes %ld (want 3 of 1200)\n", got, bytes);
	return r == 3600 && got == 3 ? 0 : 1;
}

static void put(struct msghdr *m, size_t *used, int level, int type, const void *data, size_t len)
{
	struct cmsghdr *h = (struct cmsghdr *)((char *)m->msg_control + *used);
	h->cmsg_level = level;
	h->cmsg_type = type;
	h->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(h), data, len);
	*used += CMSG_SPACE(len);
	m->msg_controllen = *used;
}

static int quicmapped(struct peer *d4)
{
	struct sockaddr_in6 s6 = {.sin6_family = AF_INET6,
				  .sin6_port = ((struct sockaddr_in *)&d4->ss)->sin_port};
	s6.sin6_addr.s6_addr[10] = s6.sin6_addr.s6_addr[11] = 0xff;
	memcpy(&s6.sin6_addr.s6_addr[12], &((struct sockaddr_in *)&d4->ss)->sin_addr, 4);
	int fd = udp(AF_INET6), zero = 0, tos = 0x88;
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
	struct sockaddr_in6 any = {.sin6_family = AF_INET6};
	bind(fd, (void *)&any, sizeof any);
	long rc = 0;
	for (int withfrom = 0; withfrom < 2; withfrom++) {
		char buf[64] = "quic mapped";
		struct iovec iov = {buf, 11};
		union {
			char b[256];
			struct cmsghdr a;
		} c;
		memset(&c, 0, sizeof c);
		struct msghdr m = {.msg_name = &s6,
				   .msg_namelen = sizeof s6,
				   .msg_iov = &iov,
				   .msg_iovlen = 1,
				   .msg_control = c.b};
		size_t used = 0;
		put(&m, &used, IPPROTO_IP, IP_TOS, &tos, sizeof tos);
		if (withfrom) {
			struct in6_pktinfo pi = {0};
			inet_pton(AF_INET6, "::ffff:127.0.0.1", &pi.ipi6_addr);
			put(&m, &used, IPPROTO_IPV6, IPV6_PKTINFO, &pi, sizeof pi);
		}
		long r = sendmsg(fd, &m, 0);
		say(withfrom ? "sendmsg mapped tos+pktinfo" : "sendmsg mapped tos", r);
		if (r != 11)
			rc = 1;
	}
	long bytes;
	int got = drain(fd, 3000, &bytes);
	printf("echoes %d (want 2)\n", got);
	return !rc && got == 2 ? 0 : 1;
}

static int mmsggso(struct peer *d)
{
	int fd = udp(d->fam);
	struct mmsghdr mm[4];
	struct iovec iov[4];
	static char bufs[4][3000];
	union {
		char b[CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr a;
	} c[4];
	uint16_t seg = 1000;
	memset(mm, 0, sizeof mm);
	memset(c, 0, sizeof c);
	for (int i = 0; i < 4; i++) {
		memset(bufs[i], 'a' + i, sizeof bufs[i]);
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = sizeof bufs[i];
		struct msghdr *m = &mm[i].msg_hdr;
		m->msg_name = &d->ss;
		m->msg_namelen = d->len;
		m->msg_iov = &iov[i];
		m->msg_iovlen = 1;
		m->msg_control = c[i].b;
		size_t used = 0;
		put(m, &used, SOL_UDP, UDP_SEGMENT, &seg, sizeof seg);
	}
	int r = sendmmsg(fd, mm, 4, 0);
	say("sendmmsg gso", r);
	long bytes;
	int got = drain(fd, 3000, &bytes);
	printf("echoes %d bytes %ld (want 12 of 1000)\n", got, bytes);
	return r == 4 && got == 12 ? 0 : 1;
}

static int zerocopy(struct peer *d, int connected)
{
	int fd = udp(d->fam), one = 1;
	if (connected)
		say("connect", connect(fd, (void *)&d->ss, d->len));
	say("setsockopt SO_ZEROCOPY", setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof one));
	static char buf[4000];
	memset(buf, 'z', sizeof buf);
	long r = sendto(fd, buf, sizeof buf, MSG_ZEROCOPY, connected ? NULL : (void *)&d->ss,
			connected ? 0 : d->len);
	say("sendto MSG_ZEROCOPY", r);
	long bytes;
	int got = drain(fd, 3000, &bytes);
	printf("echoes %d bytes %ld, completions on the error queue %d\n", got, bytes, errqueue);
	return r == (long)sizeof buf && got == 1 && errqueue == 1 ? 0 : 1;
}

#include <linux/errqueue.h>

static int zcseq(struct peer *d)
{
	int fd = udp(d->fam), one = 1;
	static char buf[3000];
	uint16_t seg = 1000;
	memset(buf, 's', sizeof buf);
	setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof one);
	say("sendto named", sendto(fd, buf, 1000, MSG_ZEROCOPY, (void *)&d->ss, d->len));
	struct iovec iov = {buf, sizeof buf};
	union {
		char b[CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr a;
	} c;
	memset(&c, 0, sizeof c);
	struct msghdr m = {.msg_name = &d->ss,
			   .msg_namelen = d->len,
			   .msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = c.b};
	size_t used = 0;
	put(&m, &used, SOL_UDP, UDP_SEGMENT, &seg, sizeof seg);
	say("sendmsg named gso", sendmsg(fd, &m, MSG_ZEROCOPY));
	say("connect", connect(fd, (void *)&d->ss, d->len));
	say("send connected", send(fd, buf, 1000, MSG_ZEROCOPY));
	/* every completion: ee_info .. ee_data is the range of ids */
	unsigned seen = 0, lo = ~0u, hi = 0;
	struct pollfd p = {.fd = fd, .events = 0};
	for (int tries = 0; tries < 20 && poll(&p, 1, 200) >= 0; tries++) {
		char cb[256], db[1];
		struct iovec riov = {db, 1};
		struct msghdr rm = {.msg_iov = &riov,
				    .msg_iovlen = 1,
				    .msg_control = cb,
				    .msg_controllen = sizeof cb};
		if (recvmsg(fd, &rm, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
			char x[4000];
			while (recv(fd, x, sizeof x, MSG_DONTWAIT) > 0)
				;
			continue;
		}
		for (struct cmsghdr *h = CMSG_FIRSTHDR(&rm); h; h = CMSG_NXTHDR(&rm, h)) {
			struct sock_extended_err *ee = (void *)CMSG_DATA(h);
			if (ee->ee_origin != SO_EE_ORIGIN_ZEROCOPY)
				continue;
			printf("completion ids %u-%u%s\n", ee->ee_info, ee->ee_data,
			       ee->ee_code & SO_EE_CODE_ZEROCOPY_COPIED ? " (copied)" : "");
			seen += ee->ee_data - ee->ee_info + 1;
			if (ee->ee_info < lo)
				lo = ee->ee_info;
			if (ee->ee_data > hi)
				hi = ee->ee_data;
		}
	}
	printf("completions for %u sends, ids %u-%u (want 3, 0-2)\n", seen, lo, hi);
	return seen == 3 && lo == 0 && hi == 2 ? 0 : 1;
}

static int txtime(struct peer *d)
{
	int fd = udp(d->fam);
	struct sock_txtime st = {.clockid = CLOCK_MONOTONIC, .flags = 0};
	say("setsockopt SO_TXTIME", setsockopt(fd, SOL_SOCKET, SO_TXTIME, &st, sizeof st));
	char buf[100] = "txtime";
	struct iovec iov = {buf, sizeof buf};
	union {
		char b[CMSG_SPACE(sizeof(uint64_t))];
		struct cmsghdr a;
	} c;
	memset(&c, 0, sizeof c);
	struct msghdr m = {.msg_name = &d->ss,
			   .msg_namelen = d->len,
			   .msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = c.b,
			   .msg_controllen = sizeof c.b};
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_TXTIME;
	h->cmsg_len = CMSG_LEN(sizeof(uint64_t));
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t t = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec + 1000000;
	memcpy(CMSG_DATA(h), &t, sizeof t);
	long r = sendmsg(fd, &m, 0);
	say("sendmsg txtime", r);
	long bytes;
	int got = drain(fd, 3000, &bytes);
	printf("echoes %d\n", got);
	return r == 100 && got == 1 ? 0 : 1;
}

static int tstamp(struct peer *d)
{
	int fd = udp(d->fam);
	char buf[100] = "tstamp";
	struct iovec iov = {buf, sizeof buf};
	union {
		char b[CMSG_SPACE(sizeof(uint32_t))];
		struct cmsghdr a;
	} c;
	memset(&c, 0, sizeof c);
	struct msghdr m = {.msg_name = &d->ss,
			   .msg_namelen = d->len,
			   .msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = c.b,
			   .msg_controllen = sizeof c.b};
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SO_TIMESTAMPING;
	h->cmsg_len = CMSG_LEN(sizeof(uint32_t));
	uint32_t f = SOF_TIMESTAMPING_TX_SOFTWARE;
	memcpy(CMSG_DATA(h), &f, sizeof f);
	long r = sendmsg(fd, &m, 0);
	say("sendmsg so_timestamping", r);
	long bytes;
	int got = drain(fd, 3000, &bytes);
	printf("echoes %d, error-queue messages (transmit timestamps) %d\n", got, errqueue);
	return r == 100 && got == 1 && errqueue == 1 ? 0 : 1;
}

static int dontfrag(struct peer *d)
{
	int fd = udp(d->fam);
	char buf[100] = "dontfrag";
	struct iovec iov = {buf, sizeof buf};
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr a;
	} c;
	memset(&c, 0, sizeof c);
	struct msghdr m = {.msg_name = &d->ss,
			   .msg_namelen = d->len,
			   .msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = c.b,
			   .msg_controllen = sizeof c.b};
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	h->cmsg_level = IPPROTO_IPV6;
	h->cmsg_type = IPV6_DONTFRAG;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	int one = 1;
	memcpy(CMSG_DATA(h), &one, sizeof one);
	long r = sendmsg(fd, &m, 0);
	say("sendmsg ipv6_dontfrag", r);
	long bytes;
	int got = drain(fd, 3000, &bytes);
	printf("echoes %d\n", got);
	return r == 100 && got == 1 ? 0 : 1;
}

static int mmsg(struct peer *a, struct peer *b, int n, int connected, int want)
{
	int fd = udp(a->fam);
	if (connected)
		say("connect", connect(fd, (void *)&a->ss, a->len));
	struct mmsghdr mm[64];
	struct iovec iov[64];
	char bufs[64][64];
	if (n > 64)
		n = 64;
	memset(mm, 0, sizeof mm);
	for (int i = 0; i < n; i++) {
		struct peer *d = (b && i % 2) ? b : a;
		snprintf(bufs[i], sizeof bufs[i], "mmsg %d", i);
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = strlen(bufs[i]);
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
		if (!connected) {
			mm[i].msg_hdr.msg_name = &d->ss;
			mm[i].msg_hdr.msg_namelen = d->len;
		}
	}
	int r = sendmmsg(fd, mm, n, 0);
	say("sendmmsg", r);
	for (int i = 0; i < n; i++)
		if (mm[i].msg_len != iov[i].iov_len)
			printf("msg %d msg_len %u\n", i, mm[i].msg_len);
	/* the echoes, by recvmmsg with a timeout */
	struct mmsghdr rm[64];
	struct iovec riov[64];
	char rb[64][64];
	memset(rm, 0, sizeof rm);
	for (int i = 0; i < 64; i++) {
		riov[i].iov_base = rb[i];
		riov[i].iov_len = sizeof rb[i];
		rm[i].msg_hdr.msg_iov = &riov[i];
		rm[i].msg_hdr.msg_iovlen = 1;
	}
	int got = 0;
	struct pollfd p = {.fd = fd, .events = POLLIN};
	while (got < n && poll(&p, 1, 2000) == 1) {
		int k = recvmmsg(fd, rm, 64, MSG_DONTWAIT, NULL);
		if (k <= 0)
			break;
		got += k;
	}
	printf("recvmmsg echoes %d (want %d)\n", got, want);
	return r == n && got == want ? 0 : 1;
}

static int readecho(int fd, const char *msg)
{
	char b[256];
	struct pollfd p = {.fd = fd, .events = POLLIN};
	if (poll(&p, 1, 3000) != 1) {
		printf("no echo\n");
		return 1;
	}
	ssize_t r = read(fd, b, sizeof b - 1);
	say("read", r);
	return r == (ssize_t)strlen(msg) && !memcmp(b, msg, r) ? 0 : 1;
}

static int tfo(struct peer *d, int viaconnect)
{
	const char *msg = "fastopen hello";
	int rc = 0;
	/* twice: the first gets a cookie, the second carries data in the SYN */
	for (int i = 0; i < 2; i++) {
		int fd = socket(d->fam, SOCK_STREAM, 0);
		long r;
		if (viaconnect) {
			int one = 1;
			say("setsockopt TCP_FASTOPEN_CONNECT",
			    setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one, sizeof one));
			say("connect", connect(fd, (void *)&d->ss, d->len));
			r = write(fd, msg, strlen(msg));
			say("write", r);
		} else {
			r = sendto(fd, msg, strlen(msg), MSG_FASTOPEN, (void *)&d->ss, d->len);
			say("sendto MSG_FASTOPEN", r);
		}
		if (r != (long)strlen(msg) || readecho(fd, msg))
			rc = 1;
		struct tcp_info ti;
		socklen_t tl = sizeof ti;
		if (!getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &tl))
			printf("tcpi_options syn_data %d\n",
			       !!(ti.tcpi_options & TCPI_OPT_SYN_DATA));
		close(fd);
	}
	return rc;
}

static int mappedc(struct peer *d4)
{
	struct sockaddr_in6 s6 = {.sin6_family = AF_INET6,
				  .sin6_port = ((struct sockaddr_in *)&d4->ss)->sin_port};
	s6.sin6_addr.s6_addr[10] = s6.sin6_addr.s6_addr[11] = 0xff;
	memcpy(&s6.sin6_addr.s6_addr[12], &((struct sockaddr_in *)&d4->ss)->sin_addr, 4);
	int fd = socket(AF_INET6, SOCK_STREAM, 0);
	int zero = 0;
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
	long r = connect(fd, (void *)&s6, sizeof s6);
	say("connect mapped", r);
	if (r)
		return 1;
	const char *msg = "mapped tcp";
	say("write", write(fd, msg, strlen(msg)));
	return readecho(fd, msg);
}

static int mapped(struct peer *d4)
{
	struct sockaddr_in6 s6 = {.sin6_family = AF_INET6,
				  .sin6_port = ((struct sockaddr_in *)&d4->ss)->sin_port};
	s6.sin6_addr.s6_addr[10] = s6.sin6_addr.s6_addr[11] = 0xff;
	memcpy(&s6.sin6_addr.s6_addr[12], &((struct sockaddr_in *)&d4->ss)->sin_addr, 4);
	int fd = socket(AF_INET6, SOCK_DGRAM, 0);
	int zero = 0;
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
	long r = sendto(fd, "mapped udp", 10, 0, (void *)&s6, sizeof s6);
	say("sendto mapped", r);
	/* and a sendmmsg of two and a sendmsg with IPV6_PKTINFO naming nothing */
	struct iovec iov = {"mapped mm", 9};
	struct mmsghdr mm[2];
	memset(mm, 0, sizeof mm);
	for (int i = 0; i < 2; i++) {
		mm[i].msg_hdr.msg_name = &s6;
		mm[i].msg_hdr.msg_namelen = sizeof s6;
		mm[i].msg_hdr.msg_iov = &iov;
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	int k = sendmmsg(fd, mm, 2, 0);
	say("sendmmsg mapped", k);
	long bytes;
	int got = drain(fd, 3000, &bytes);
	printf("echoes %d (want 3)\n", got);
	return r == 10 && k == 2 && got == 3 ? 0 : 1;
}

#ifndef UDP_GRO
#define UDP_GRO 104
#endif

static int gro(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	int r = udp(AF_INET), one = 1;
	say("setsockopt UDP_GRO", setsockopt(r, SOL_UDP, UDP_GRO, &one, sizeof one));
	say("bind", bind(r, (void *)&a, sizeof a));
	struct peer d = {.fam = AF_INET, .len = sizeof a};
	memcpy(&d.ss, &a, sizeof a);
	int s = udp(AF_INET);
	static char buf[3000];
	memset(buf, 'r', sizeof buf);
	struct iovec iov = {buf, sizeof buf};
	union {
		char b[CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr a;
	} c;
	memset(&c, 0, sizeof c);
	struct msghdr m = {.msg_name = &d.ss,
			   .msg_namelen = d.len,
			   .msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = c.b};
	size_t used = 0;
	uint16_t seg = 1000;
	put(&m, &used, SOL_UDP, UDP_SEGMENT, &seg, sizeof seg);
	say("sendmsg gso", sendmsg(s, &m, 0));
	char rb[4000], cb[256];
	struct iovec riov = {rb, sizeof rb};
	struct msghdr rm = {
	    .msg_iov = &riov, .msg_iovlen = 1, .msg_control = cb, .msg_controllen = sizeof cb};
	struct pollfd p = {.fd = r, .events = POLLIN};
	long got = poll(&p, 1, 2000) == 1 ? recvmsg(r, &rm, MSG_DONTWAIT) : -1;
	int gso = 0;
	for (struct cmsghdr *h = CMSG_FIRSTHDR(&rm); got > 0 && h; h = CMSG_NXTHDR(&rm, h))
		if (h->cmsg_level == SOL_UDP && h->cmsg_type == UDP_GRO)
			memcpy(&gso, CMSG_DATA(h), sizeof gso);
	printf("read %ld bytes, UDP_GRO segment %d (want 3000, 1000)\n", got, gso);
	return got == 3000 && gso == 1000 ? 0 : 1;
}

static int reuseporttcp(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	int l[2], one = 1;
	for (int i = 0; i < 2; i++) {
		l[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		setsockopt(l[i], SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
		say("bind reuseport", bind(l[i], (void *)&a, sizeof a));
		say("listen", listen(l[i], 32));
	}
	int ok = 0;
	for (int i = 0; i < 16; i++) {
		int c = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(c, (void *)&a, sizeof a) == 0)
			ok++;
		close(c);
	}
	int acc[2] = {0, 0};
	for (int i = 0; i < 2; i++) {
		int x;
		while ((x = accept(l[i], NULL, NULL)) >= 0) {
			acc[i]++;
			close(x);
		}
	}
	printf("connected %d; accepted %d + %d\n", ok, acc[0], acc[1]);
	return ok == 16 && acc[0] + acc[1] == 16 ? 0 : 1;
}

static int passiveprobe(void)
{
	int fd = udp(AF_INET6);
	struct sockaddr_in6 any6 = {.sin6_family = AF_INET6};
	struct sockaddr_in any4 = {.sin_family = AF_INET};
	struct sockaddr unspec = {.sa_family = AF_UNSPEC};
	say("connect [::]:0", connect(fd, (void *)&any6, sizeof any6));
	say("connect AF_UNSPEC", connect(fd, &unspec, sizeof unspec));
	say("connect 0.0.0.0:0", connect(fd, (void *)&any4, sizeof any4));
	return 0;
}

static int reuseport(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	int s[2], one = 1;
	for (int i = 0; i < 2; i++) {
		s[i] = udp(AF_INET);
		setsockopt(s[i], SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
		say("bind reuseport", bind(s[i], (void *)&a, sizeof a));
	}
	int n = 0;
	for (int i = 0; i < 16; i++) {
		int c = udp(AF_INET);
		if (sendto(c, "rp", 2, 0, (void *)&a, sizeof a) == 2)
			n++;
		close(c);
	}
	long b;
	int g0 = drain(s[0], 1000, &b), g1 = drain(s[1], 300, &b);
	printf("sent %d; group got %d + %d\n", n, g0, g1);
	return n == 16 && g0 + g1 == 16 ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct peer a, b;
	if (argc == 2 && !strcmp(argv[1], "passiveprobe"))
		return passiveprobe();
	if (argc < 3)
		return 2;
	const char *c = argv[1];
	if (!strcmp(c, "reuseport"))
		return reuseport(atoi(argv[2]));
	if (!strcmp(c, "reuseporttcp"))
		return reuseporttcp(atoi(argv[2]));
	if (!strcmp(c, "gro"))
		return gro(atoi(argv[2]));
	if (argc < 4)
		return 2;
	parse(argv[2], argv[3], &a);
	if (!strcmp(c, "gso") && argc == 6)
		return gso(&a, atoi(argv[4]), atoi(argv[5]), 0);
	if (!strcmp(c, "gsoopt") && argc == 6)
		return gso(&a, atoi(argv[4]), atoi(argv[5]), 1);
	if (!strcmp(c, "quic"))
		return quic(&a);
	if (!strcmp(c, "quicmapped"))
		return quicmapped(&a);
	if (!strcmp(c, "mmsggso"))
		return mmsggso(&a);
	if (!strcmp(c, "zerocopy"))
		return zerocopy(&a, 0);
	if (!strcmp(c, "zcseq"))
		return zcseq(&a);
	if (!strcmp(c, "zerocopyc"))
		return zerocopy(&a, 1);
	if (!strcmp(c, "txtime"))
		return txtime(&a);
	if (!strcmp(c, "tstamp"))
		return tstamp(&a);
	if (!strcmp(c, "dontfrag"))
		return dontfrag(&a);
	if (!strcmp(c, "mmsg") && argc == 5)
		return mmsg(&a, NULL, atoi(argv[4]), 0, atoi(argv[4]));
	if (!strcmp(c, "mmsgc") && argc == 5)
		return mmsg(&a, NULL, atoi(argv[4]), 1, atoi(argv[4]));
	if (!strcmp(c, "mmsgmix") && argc == 7) {
		parse(argv[4], argv[5], &b);
		return mmsg(&a, &b, 4, 0, atoi(argv[6]));
	}
	if (!strcmp(c, "tfo"))
		return tfo(&a, 0);
	if (!strcmp(c, "tfoc"))
		return tfo(&a, 1);
	if (!strcmp(c, "mapped"))
		return mapped(&a);
	if (!strcmp(c, "mappedc"))
		return mappedc(&a);
	return 2;
}
