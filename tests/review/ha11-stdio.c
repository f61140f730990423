/*
 * ha11-stdio.c (review h-attack11): what the stdio check's IP_TOS round
 * trip (stdfds.c, reroute) changes on the caller's TCP socket before the
 * agent gets it.
 *
 *   ha11-stdio run SV MODE    (as root, in a network namespace of its own
 *                              holding only lo: see ha11-stdio.sh)
 *
 * A TCP listener on 127.0.0.1:4471 / [::1]:4471 (declared). The caller
 * makes a TCP socket, sets its per-socket state by MODE, connects it to the
 * declared listener, reads the state back, puts it on descriptor 0 and runs
 *     SV --no-loopback --allow 127.0.0.1:4471 --allow [::1]:4471
 *        --report /tmp/ha11/report.json -- (this program) agent
 * The agent reads the same state back from descriptor 0 (getsockopt is not
 * trapped) and write()s "agent-secret" to it.
 * MODE:
 *   prio4   IPv4, SO_PRIORITY 5, IP_TOS 0 (a harness's qdisc class)
 *   prio4-7 IPv4, SO_PRIORITY 7 (CAP_NET_ADMIN's range: the agent cannot
 *           set it back)
 *   prio6   IPv6 (::1), SO_PRIORITY 5, IPV6_TCLASS 0x28
 *   tos4    IPv4, IP_TOS 0x28 then SO_PRIORITY 0 (control for ECN/DSCP)
 *   tfo     IPv4, TCP_FASTOPEN_CONNECT then connect(): returns 0 with no SYN
 *           sent (deferred, SYN_SENT): must be refused (no peer)
 *   repair  IPv4, TCP_REPAIR on, connect() (no handshake), left in repair
 *           mode: the agent's bytes are queued and never transmitted
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define DECL_PORT 4471

static void show(const char *who, int fd)
{
	int prio = -1, tos = -1, tclass = -1;
	socklen_t l = sizeof(int);

	getsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, &l);
	l = sizeof(int);
	getsockopt(fd, IPPROTO_IP, IP_TOS, &tos, &l);
	l = sizeof(int);
	if (getsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tclass, &l) != 0)
		tclass = -1;
	fprintf(stderr, "  %s: SO_PRIORITY %d, IP_TOS 0x%02x, IPV6_TCLASS %d\n", who, prio,
		(unsigned)tos, tclass);
}

static int agent(void)
{
	ssize_t r;

	show("agent  (fd 0, after the check)", 0);
	r = write(0, "agent-secret", 12);
	fprintf(stderr, "  agent: write(0) = %zd (%s)\n", r, r < 0 ? strerror(errno) : "ok");
	return 0;
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static char self[4096];

static void caller(const char *sv, const char *mode)
{
	int v6 = strcmp(mode, "prio6") == 0, s = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
	int prio = strcmp(mode, "prio4-7") == 0 ? 7 : strcmp(mode, "tos4") == 0 ? 0 : 5;

	if (s < 0)
		die("socket");
	if (strcmp(mode, "tos4") == 0 &&
	    setsockopt(s, IPPROTO_IP, IP_TOS, &(int){0x28}, sizeof(int)) != 0)
		die("IP_TOS");
	if (strcmp(mode, "tfo") == 0 &&
	    setsockopt(s, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &(int){1}, sizeof(int)) != 0)
		die("TCP_FASTOPEN_CONNECT");
	if (strcmp(mode, "repair") == 0 &&
	    setsockopt(s, IPPROTO_TCP, TCP_REPAIR, &(int){1}, sizeof(int)) != 0)
		die("TCP_REPAIR");
	if (v6 && setsockopt(s, IPPROTO_IPV6, IPV6_TCLASS, &(int){0x28}, sizeof(int)) != 0)
		die("IPV6_TCLASS");
	if (setsockopt(s, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio)) != 0)
		die("SO_PRIORITY");
	if (v6) {
		struct sockaddr_in6 d = {.sin6_family = AF_INET6,
					 .sin6_port = htons(DECL_PORT),
					 .sin6_addr = IN6ADDR_LOOPBACK_INIT};

		if (connect(s, (struct sockaddr *)&d, sizeof(d)) != 0)
			die("connect6");
	} else {
		struct sockaddr_in d = {.sin_family = AF_INET,
					.sin_port = htons(DECL_PORT),
					.sin_addr.s_addr = htonl(0x7f000001)};

		if (connect(s, (struct sockaddr *)&d, sizeof(d)) != 0)
			die("connect");
	}
	show("caller (before the supervisor)", s);
	if (dup2(s, 0) != 0)
		die("dup2");
	close(s);
	execl(sv, sv, "--no-loopback", "--allow", "127.0.0.1:4471", "--allow", "[::1]:4471",
	      "--report", "/tmp/ha11/report.json", "--", self, "agent", (char *)NULL);
	die("exec");
}

static int listener(int fam)
{
	int one = 1, l = socket(fam, SOCK_STREAM | SOCK_NONBLOCK, 0);

	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fam == AF_INET6) {
		struct sockaddr_in6 a = {.sin6_family = AF_INET6,
					 .sin6_port = htons(DECL_PORT),
					 .sin6_addr = IN6ADDR_LOOPBACK_INIT};

		setsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		if (bind(l, (struct sockaddr *)&a, sizeof(a)) != 0)
			die("bind6");
	} else {
		struct sockaddr_in a = {.sin_family = AF_INET,
					.sin_port = htons(DECL_PORT),
					.sin_addr.s_addr = htonl(0x7f000001)};

		if (bind(l, (struct sockaddr *)&a, sizeof(a)) != 0)
			die("bind");
	}
	if (listen(l, 8) != 0)
		die("listen");
	return l;
}

int main(int argc, char **argv)
{
	int l4, l6, st;
	pid_t pid;

	if (argc >= 2 && strcmp(argv[1], "agent") == 0)
		return agent();
	if (argc != 4 || strcmp(argv[1], "run") != 0) {
		fprintf(stderr, "usage: ha11-stdio run SV prio4|prio4-7|prio6|tos4|tfo|repair\n");
		return 2;
	}
	if (!realpath("/proc/self/exe", self))
		return 2;
	l4 = listener(AF_INET);
	l6 = listener(AF_INET6);
	if (system("mkdir -p /tmp/ha11 && rm -f /tmp/ha11/report.json") != 0)
		return 2;
	fprintf(stderr, "mode %s\n", argv[3]);
	pid = fork();
	if (pid == 0) {
		close(l4);
		close(l6);
		caller(argv[2], argv[3]);
	}
	waitpid(pid, &st, 0);
	fprintf(stderr, "  supervisor exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	if (system("python3 -c 'import json; r=json.load(open(\"/tmp/ha11/report.json\")); "
		   "print(\"  verdict\", r[\"verdict\"], \"-\", r[\"reason\"])' 1>&2") != 0)
		fprintf(stderr, "  (no report)\n");
	return 0;
}
