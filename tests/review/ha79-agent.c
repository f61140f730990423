/*
 * ha79-agent.c (hostile review h-attack79): the agent of ha79-run.sh.
 *   ha79-agent forms PORT DP   every form of a connect to the unspecified
 *                              address on PORT (a listener of the script's
 *                              on 127.0.0.1:PORT, TCP and UDP, undeclared),
 *                              each followed by a nameless send
 *   ha79-agent race PORT N     N TCP connects to 0.0.0.0:PORT on a descriptor
 *                              a second thread keeps swapping (dup2) between
 *                              a TCP and a UDP socket
 *   ha79-agent cmsg PORT PORT6 timing control messages on sends to the
 *                              declared 127.0.0.5:PORT and [::1]:PORT6
 *   ha79-agent swap PORT [A]   one TCP connect to A:PORT (0.0.0.0) on a TCP
 *                              socket; once /proc shows the thread inside
 *                              connect (42), a second thread dup2()s a UDP
 *                              socket over the descriptor, and the TCP one
 *                              back once connect returned
 * One line per attempt on stdout: "NAME rc=R errno=E".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef IPPROTO_UDPLITE
#define IPPROTO_UDPLITE 136
#endif
#define HA_SO_TXTIME 61
#define HA_SCM_TXTIME 61
#define HA_SO_TIMESTAMPING 37
#define HA_SO_TIMESTAMPING_NEW 65
#define HA_IPV6_DONTFRAG 62

struct ha_txtime {
	int32_t clockid;
	uint32_t flags;
};

static void say(const char *name, long rc)
{
	printf("%s rc=%ld errno=%s\n", name, rc, rc < 0 ? strerror(errno) : "-");
	fflush(stdout);
}

static struct sockaddr_in v4(const char *a, int port)
{
	struct sockaddr_in s = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};

	inet_pton(AF_INET, a, &s.sin_addr);
	return s;
}

static struct sockaddr_in6 v6(const char *a, int port)
{
	struct sockaddr_in6 s = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};

	inet_pton(AF_INET6, a, &s.sin6_addr);
	return s;
}

/* connect fd to name, log it, then a nameless send and log that. */
static void try_form(const char *name, int fd, const void *sa, socklen_t len)
{
	char buf[96];

	if (fd < 0) {
		snprintf(buf, sizeof(buf), "%s.socket", name);
		say(buf, -1);
		return;
	}
	snprintf(buf, sizeof(buf), "%s.connect", name);
	say(buf, connect(fd, sa, len));
	snprintf(buf, sizeof(buf), "%s.send", name);
	say(buf, send(fd, "leak", 4, MSG_DONTWAIT | MSG_NOSIGNAL));
	close(fd);
}

static int forms(int port, int dport)
{
	struct sockaddr_in any4 = v4("0.0.0.0", port), lo = v4("127.0.0.1", 0),
			   decl = v4("127.0.0.5", dport);
	struct sockaddr_in6 any6 = v6("::", port), mapped = v6("::ffff:0.0.0.0", port),
			    lo6m = v6("::ffff:127.0.0.1", 0);
	int fd, off = 0;

	/* 1: bound to 127.0.0.1, connect 0.0.0.0:PORT would go to 127.0.0.1:PORT. */
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	bind(fd, (void *)&lo, sizeof(lo));
	try_form("udp4-bound-lo", fd, &any4, sizeof(any4));
	/* 2: dual-stack v6 socket, v4-mapped unspecified. */
	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
	try_form("udp6-mapped-any", fd, &mapped, sizeof(mapped));
	/* 3: dual-stack v6 socket bound to ::ffff:127.0.0.1, connect [::]. */
	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
	bind(fd, (void *)&lo6m, sizeof(lo6m));
	try_form("udp6-boundmapped-any6", fd, &any6, sizeof(any6));
	/* 4: v6 socket given an AF_INET name (ip6_datagram_connect takes it). */
	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
	try_form("udp6-v4name-any4", fd, &any4, sizeof(any4));
	/* 5: a long name (len 64) with 0.0.0.0 in front. */
	{
		unsigned char big[64] = {0};

		memcpy(big, &any4, sizeof(any4));
		try_form("udp4-longname", socket(AF_INET, SOCK_DGRAM, 0), big, sizeof(big));
	}
	/* 6-10: other types and protocols. */
	try_form("udplite4", socket(AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE), &any4, sizeof(any4));
	try_form("ping4", socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP), &any4, sizeof(any4));
	try_form("raw4-udp", socket(AF_INET, SOCK_RAW, IPPROTO_UDP), &any4, sizeof(any4));
	try_form("sctp4", socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP), &any4, sizeof(any4));
	try_form("tcp4", socket(AF_INET, SOCK_STREAM, 0), &any4, sizeof(any4));
	try_form("tcp6", socket(AF_INET6, SOCK_STREAM, 0), &any6, sizeof(any6));
	/* 11: connected to the declared peer first, then to 0.0.0.0. */
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	say("udp4-declared-first.connect-declared", connect(fd, (void *)&decl, sizeof(decl)));
	try_form("udp4-declared-first", fd, &any4, sizeof(any4));
	/* 12-14: sends naming 0.0.0.0 stay judged. */
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	bind(fd, (void *)&lo, sizeof(lo));
	say("sendto-any4", sendto(fd, "leak", 4, 0, (void *)&any4, sizeof(any4)));
	{
		struct iovec iov = {.iov_base = "leak", .iov_len = 4};
		struct msghdr m = {.msg_name = &any4,
				   .msg_namelen = sizeof(any4),
				   .msg_iov = &iov,
				   .msg_iovlen = 1};
		struct mmsghdr mm[2] = {{.msg_hdr = m}, {.msg_hdr = m}};

		say("sendmsg-any4", sendmsg(fd, &m, 0));
		say("sendmmsg-any4", syscall(SYS_sendmmsg, fd, mm, 2, 0));
	}
	close(fd);
	return 0;
}

static volatile int stop;
static int race_fd, race_tcp, race_udp;

static void *swapper(void *arg)
{
	(void)arg;
	while (!stop) {
		dup2(race_tcp, race_fd);
		dup2(race_udp, race_fd);
	}
	return NULL;
}

static int race(int port, int n)
{
	struct sockaddr_in any4 = v4("0.0.0.0", port);
	pthread_t t;
	int ok = 0, eacces = 0, other = 0;

	race_tcp = socket(AF_INET, SOCK_STREAM, 0);
	race_udp = socket(AF_INET, SOCK_DGRAM, 0);
	race_fd = dup(race_tcp);
	pthread_create(&t, NULL, swapper, NULL);
	for (int i = 0; i < n; i++) {
		int rc = connect(race_fd, (void *)&any4, sizeof(any4));

		if (rc == 0)
			ok++;
		else if (errno == EACCES)
			eacces++;
		else
			other++;
	}
	stop = 1;
	pthread_join(t, NULL);
	printf("race connects=%d ok=%d eacces=%d other=%d\n", n, ok, eacces, other);
	say("race-tcp-send", send(race_tcp, "leak", 4, MSG_DONTWAIT | MSG_NOSIGNAL));
	say("race-udp-send", send(race_udp, "leak", 4, MSG_DONTWAIT));
	return 0;
}

static volatile int swap_done;
static pid_t swap_tid;

static void *swap_in(void *arg)
{
	char path[64], buf[64];

	(void)arg;
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)swap_tid);
	while (!swap_done) {
		FILE *f = fopen(path, "r");
		int in = f && fgets(buf, sizeof(buf), f) && strncmp(buf, "42 ", 3) == 0;

		if (f)
			fclose(f);
		if (in) {
			dup2(race_udp, race_fd);
			printf("swap: udp in while connect(42) was pending\n");
			break;
		}
	}
	return NULL;
}

static int swap(int port, const char *addr)
{
	struct sockaddr_in any4 = v4(addr, port);
	pthread_t t;
	int rc;

	race_tcp = socket(AF_INET, SOCK_STREAM, 0);
	race_udp = socket(AF_INET, SOCK_DGRAM, 0);
	race_fd = dup(race_tcp);
	swap_tid = (pid_t)syscall(SYS_gettid);
	pthread_create(&t, NULL, swap_in, NULL);
	usleep(20 * 1000);
	rc = connect(race_fd, (void *)&any4, sizeof(any4));
	say("swap-tcp-connect", rc);
	swap_done = 1;
	pthread_join(t, NULL);
	dup2(race_tcp, race_fd);
	return 0;
}

/* sendmsg of "ping" to sa with one or two control messages. */
static void send_ctl(const char *name, int fd, const void *sa, socklen_t salen, int level, int type,
		     const void *data, size_t dlen, int level2, int type2, const void *data2,
		     size_t dlen2)
{
	union {
		char buf[256];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = "ping", .iov_len = 4};
	struct msghdr m = {.msg_name = (void *)sa,
			   .msg_namelen = salen,
			   .msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = u.buf};
	struct cmsghdr *c;

	memset(u.buf, 0, sizeof(u.buf));
	m.msg_controllen = CMSG_SPACE(dlen) + (data2 ? CMSG_SPACE(dlen2) : 0);
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = level;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(dlen);
	memcpy(CMSG_DATA(c), data, dlen);
	if (data2) {
		c = CMSG_NXTHDR(&m, c);
		c->cmsg_level = level2;
		c->cmsg_type = type2;
		c->cmsg_len = CMSG_LEN(dlen2);
		memcpy(CMSG_DATA(c), data2, dlen2);
	}
	say(name, sendmsg(fd, &m, 0));
}

static int cmsg(int port, int port6)
{
	struct sockaddr_in decl = v4("127.0.0.5", port), undecl = v4("127.0.0.1", port);
	struct sockaddr_in6 decl6 = v6("::1", port6);
	struct ha_txtime tx = {.clockid = CLOCK_MONOTONIC, .flags = 0};
	struct timespec now;
	uint64_t far, t32;
	uint32_t ts_ok = (1u << 1) | (1u << 8), ts_bad = (1u << 7), ts_id = (1u << 7) | (1u << 1);
	struct in_pktinfo pi = {.ipi_ifindex = 2};
	int one = 1, fd = socket(AF_INET, SOCK_DGRAM, 0), fd6 = socket(AF_INET6, SOCK_DGRAM, 0);
	char eq[256];

	clock_gettime(CLOCK_MONOTONIC, &now);
	far = ((uint64_t)now.tv_sec + 3600) * 1000000000ull;
	t32 = 0;
	/* SCM_TXTIME before SO_TXTIME: the kernel's EINVAL. */
	send_ctl("txtime-without-sockopt", fd, &decl, sizeof(decl), SOL_SOCKET, HA_SCM_TXTIME, &far,
		 8, 0, 0, NULL, 0);
	say("setsockopt-SO_TXTIME", setsockopt(fd, SOL_SOCKET, HA_SO_TXTIME, &tx, sizeof(tx)));
	send_ctl("txtime-far-future", fd, &decl, sizeof(decl), SOL_SOCKET, HA_SCM_TXTIME, &far, 8,
		 0, 0, NULL, 0);
	send_ctl("txtime-4-bytes", fd, &decl, sizeof(decl), SOL_SOCKET, HA_SCM_TXTIME, &t32, 4, 0,
		 0, NULL, 0);
	send_ctl("txtime-undeclared", fd, &undecl, sizeof(undecl), SOL_SOCKET, HA_SCM_TXTIME, &far,
		 8, 0, 0, NULL, 0);
	send_ctl("tstamp-ok", fd, &decl, sizeof(decl), SOL_SOCKET, HA_SO_TIMESTAMPING, &ts_ok, 4, 0,
		 0, NULL, 0);
	send_ctl("tstamp-new-ok", fd, &decl, sizeof(decl), SOL_SOCKET, HA_SO_TIMESTAMPING_NEW,
		 &ts_ok, 4, 0, 0, NULL, 0);
	send_ctl("tstamp-opt-id", fd, &decl, sizeof(decl), SOL_SOCKET, HA_SO_TIMESTAMPING, &ts_bad,
		 4, 0, 0, NULL, 0);
	send_ctl("tstamp-8-bytes", fd, &decl, sizeof(decl), SOL_SOCKET, HA_SO_TIMESTAMPING, &far, 8,
		 0, 0, NULL, 0);
	send_ctl("tstamp-then-pktinfo-if2", fd, &decl, sizeof(decl), SOL_SOCKET, HA_SO_TIMESTAMPING,
		 &ts_ok, 4, IPPROTO_IP, IP_PKTINFO, &pi, sizeof(pi));
	send_ctl("txtime-then-tstamp", fd, &decl, sizeof(decl), SOL_SOCKET, HA_SCM_TXTIME, &far, 8,
		 SOL_SOCKET, HA_SO_TIMESTAMPING, &ts_ok, 4);
	/* The socket's own OPT_ID|OPT_TSONLY, then a cmsg: the error queue. */
	{
		uint32_t so = ts_id | (1u << 11) | (1u << 4);

		say("setsockopt-SO_TIMESTAMPING",
		    setsockopt(fd, SOL_SOCKET, HA_SO_TIMESTAMPING, &so, sizeof(so)));
	}
	send_ctl("tstamp-after-optid", fd, &decl, sizeof(decl), SOL_SOCKET, HA_SO_TIMESTAMPING,
		 &ts_ok, 4, 0, 0, NULL, 0);
	usleep(100 * 1000);
	for (int i = 0; i < 8; i++) {
		char cb[512];
		struct iovec iov = {.iov_base = eq, .iov_len = sizeof(eq)};
		struct msghdr m = {.msg_iov = &iov,
				   .msg_iovlen = 1,
				   .msg_control = cb,
				   .msg_controllen = sizeof(cb)};
		ssize_t r = recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT);

		if (r < 0)
			break;
		printf("errqueue %d: %zd bytes, control %zu\n", i, r, (size_t)m.msg_controllen);
	}
	say("v6-dontfrag", (setsockopt(fd6, IPPROTO_IPV6, HA_IPV6_DONTFRAG, &one, sizeof(one)), 0));
	send_ctl("dontfrag-cmsg", fd6, &decl6, sizeof(decl6), IPPROTO_IPV6, HA_IPV6_DONTFRAG, &one,
		 4, 0, 0, NULL, 0);
	send_ctl("dontfrag-then-txtime-nosockopt", fd6, &decl6, sizeof(decl6), IPPROTO_IPV6,
		 HA_IPV6_DONTFRAG, &one, 4, SOL_SOCKET, HA_SCM_TXTIME, &far, 8);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "forms") == 0)
		return forms(atoi(argv[2]), atoi(argv[3]));
	if (argc >= 4 && strcmp(argv[1], "race") == 0)
		return race(atoi(argv[2]), atoi(argv[3]));
	if (argc >= 3 && strcmp(argv[1], "swap") == 0)
		return swap(atoi(argv[2]), argc >= 4 ? argv[3] : "0.0.0.0");
	if (argc >= 4 && strcmp(argv[1], "cmsg") == 0)
		return cmsg(atoi(argv[2]), atoi(argv[3]));
	fprintf(
	    stderr,
	    "usage: ha79-agent forms PORT DP | race PORT N | swap PORT [ADDR] | cmsg PORT PORT6\n");
	return 2;
}
