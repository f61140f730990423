/* ha17-devprobe: hostile review h-attack17 (against main d07b047). Tries to
 * falsify call.c's claim "no untrapped call writes an IPv4 socket's device"
 * (and give_port's premise that nothing untrapped writes the device of an
 * IPv6 socket that has its port) on the running kernel, without the
 * supervisor: for TCP and UDP sockets of both families, it makes every
 * setsockopt the filter does not trap (levels SOL_SOCKET, IP, IPV6, TCP,
 * UDP; names 0..99; an int value naming the second device, and a 12- to
 * 136-byte buffer whose int-aligned words all name it: ip_mreqn, group_req,
 * in6_pktinfo, ...), bind() to every kind of address (a scoped link-local
 * address of the second device for IPv6), shutdown(), an accept() from a
 * loopback listener, and reads SO_BINDTOIFINDEX after
 * each. Every change of the device is printed as "WRITES ..."; the last
 * line counts them. Run as uid 1000 in a network namespace that has a
 * device IFNAME with an IPv4 address and an IPv6 link-local address.
 *
 *   ha17-devprobe IFNAME
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int ifindex, writes;

/* The filter's trapped options (filter.c route_options): never tried. */
static int trapped(int level, int name)
{
	static const int t[][2] = {{0, 4},   {41, 57}, {41, 5}, {41, 6}, {41, 32},
				   {0, 15},  {41, 78}, {1, 25}, {1, 62}, {0, 50},
				   {41, 76}, {41, 50}, {1, 82}};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i][0] == level && t[i][1] == name)
			return 1;
	return 0;
}

static int dev(int fd)
{
	int idx = -1;
	socklen_t l = sizeof(idx);

	if (getsockopt(fd, SOL_SOCKET, SO_BINDTOIFINDEX, &idx, &l) != 0)
		return -1;
	return idx;
}

static void check(int fd, int before, const char *what, const char *sock)
{
	int now = dev(fd);

	if (now != before) {
		writes++;
		printf("WRITES %s: %s: device %d -> %d\n", sock, what, before, now);
	}
}

/* A fresh socket of the kind: family, type, and whether it has its port
 * (a bind to the wildcard, port 0) before the probe. */
static int fresh(int fam, int type, int ported)
{
	int fd = socket(fam, type, 0);

	if (fd < 0) {
		perror("socket");
		exit(2);
	}
	if (ported) {
		struct sockaddr_storage ss = {.ss_family = (sa_family_t)fam};

		if (bind(fd, (struct sockaddr *)&ss,
			 fam == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6)))
			perror("bind wildcard");
	}
	return fd;
}

static void probe_sockopts(int fam, int type, int ported, const char *sock)
{
	static const int levels[] = {SOL_SOCKET, IPPROTO_IP, IPPROTO_IPV6, IPPROTO_TCP,
				     IPPROTO_UDP};
	int words[34];
	char what[64];

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		words[i] = ifindex;
	for (size_t li = 0; li < sizeof(levels) / sizeof(levels[0]); li++)
		for (int name = 0; name < 100; name++) {
			static const int lens[] = {4, 12, 16, 20, 24, 32, 136};

			if (trapped(levels[li], name))
				continue;
			for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
				int fd = fresh(fam, type, ported), before = dev(fd);

				(void)setsockopt(fd, levels[li], name, words, (socklen_t)lens[k]);
				snprintf(what, sizeof(what), "setsockopt(%d, %d, len %d)",
					 levels[li], name, lens[k]);
				check(fd, before, what, sock);
				close(fd);
			}
		}
}

static void probe_binds(int fam, int type, int ported, const char *sock)
{
	struct sockaddr_in6 s6 = {.sin6_family = AF_INET6, .sin6_scope_id = (uint32_t)ifindex};
	struct sockaddr_in s4 = {.sin_family = AF_INET};
	const char *v6[] = {"fe80::1",          "fe80::dead", "ff02::1", "ff01::1",
			    "::ffff:192.0.2.1", "::",         "::1"};
	const char *v4[] = {"192.0.2.1", "0.0.0.0", "127.0.0.1", "224.0.0.1", "255.255.255.255"};
	char what[96];

	for (size_t i = 0; fam == AF_INET6 && i < sizeof(v6) / sizeof(v6[0]); i++) {
		int fd = fresh(fam, type, ported), before = dev(fd);

		inet_pton(AF_INET6, v6[i], &s6.sin6_addr);
		(void)bind(fd, (struct sockaddr *)&s6, sizeof(s6));
		snprintf(what, sizeof(what), "bind(%s%%%d)", v6[i], ifindex);
		check(fd, before, what, sock);
		(void)shutdown(fd, SHUT_RDWR);
		check(fd, before, "shutdown after bind", sock);
		close(fd);
	}
	for (size_t i = 0; fam == AF_INET && i < sizeof(v4) / sizeof(v4[0]); i++) {
		int fd = fresh(fam, type, ported), before = dev(fd);

		inet_pton(AF_INET, v4[i], &s4.sin_addr);
		(void)bind(fd, (struct sockaddr *)&s4, sizeof(s4));
		snprintf(what, sizeof(what), "bind(%s)", v4[i]);
		check(fd, before, what, sock);
		close(fd);
	}
}

/* accept() from a loopback listener (the only kind the supervisor lets
 * listen): the child takes ir_iif (tcp_v4_syn_recv_sock). */
static void probe_accept(int fam, const char *sock)
{
	struct sockaddr_storage ss = {0};
	socklen_t l = fam == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	int lis = socket(fam, SOCK_STREAM, 0), c = socket(fam, SOCK_STREAM, 0), a;

	ss.ss_family = (sa_family_t)fam;
	if (fam == AF_INET)
		((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	else
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
	if (bind(lis, (struct sockaddr *)&ss, l) || listen(lis, 4) ||
	    getsockname(lis, (struct sockaddr *)&ss, &l) || connect(c, (struct sockaddr *)&ss, l)) {
		perror("loopback listener");
		return;
	}
	a = accept(lis, NULL, NULL);
	if (a >= 0) {
		check(a, 0, "accept() from a loopback listener", sock);
		close(a);
	}
	close(c);
	close(lis);
}

int main(int argc, char **argv)
{
	static const struct {
		int fam, type, ported;
		const char *name;
	} kinds[] = {
	    {AF_INET, SOCK_DGRAM, 0, "udp4"},           {AF_INET, SOCK_DGRAM, 1, "udp4-ported"},
	    {AF_INET, SOCK_STREAM, 0, "tcp4"},          {AF_INET, SOCK_STREAM, 1, "tcp4-ported"},
	    {AF_INET6, SOCK_DGRAM, 1, "udp6-ported"},   {AF_INET6, SOCK_STREAM, 1, "tcp6-ported"},
	    {AF_INET6, SOCK_DGRAM, 0, "udp6-portless"},
	};

	if (argc != 2 || !(ifindex = (int)if_nametoindex(argv[1]))) {
		fprintf(stderr, "usage: ha17-devprobe IFNAME\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		probe_sockopts(kinds[i].fam, kinds[i].type, kinds[i].ported, kinds[i].name);
		probe_binds(kinds[i].fam, kinds[i].type, kinds[i].ported, kinds[i].name);
	}
	probe_accept(AF_INET, "tcp4-accepted");
	probe_accept(AF_INET6, "tcp6-accepted");
	printf(
	    "ha17-devprobe: %d device writes found (expected: only udp6-portless's scoped binds)\n",
	    writes);
	return 0;
}
