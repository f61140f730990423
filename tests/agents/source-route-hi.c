/*
 * source-route-hi: sets source routes with bit 32 set in the level argument
 * (the kernel reads only the low 32 bits of an int): IP_OPTIONS with a
 * loose source route through HOP (IPv4), a type-0 IPV6_RTHDR, then the
 * options that reach the same ends another way: an IPV6_FLOWLABEL_MGR
 * request (a flow label can carry a type-2 routing header, attached by a
 * send's sin6_flowinfo), and IP_FREEBIND and IPV6_FREEBIND (a source address
 * that is not ours: every router on the path then reflects an ICMP error,
 * quoting the datagram, to it). Each is the raw syscall, logged. Exits 0 when both were refused
 * (any errno, logged: the host checks it against the report's promise), 1 otherwise.
 */
#include "agentlib.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define HI (1ul << 32)

static int try(const char *what, int fd, unsigned long level, unsigned long name, const void *v,
	       unsigned long len)
{
	long r = syscall(SYS_setsockopt, (unsigned long)fd, level | HI, name, v, len);

	agent_log("setsockopt", what, r, errno, NULL);
	return r < 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	unsigned char lsrr[8] = {1, 0x83, 7, 4}; /* NOP, LSRR, len 7, pointer 4, hop */
	unsigned char rthdr[24] = {0, 2, 0, 1};  /* next, hdr len (8-byte units), type 0, left 1 */
	struct in_addr hop;
	int bad = 0, fd;

	agent_init("source-route-hi");
	if (argc != 2 || inet_pton(AF_INET, argv[1], &hop) != 1)
		return agent_usage("HOP (an IPv4 address)");
	memcpy(lsrr + 4, &hop, 4);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 1;
	bad |= try("ip_options_lsrr", fd, IPPROTO_IP, IP_OPTIONS, lsrr, sizeof(lsrr));
	close(fd);
	fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 1;
	/* One hop: 2001:db8::5 (documentation space). */
	rthdr[8] = 0x20;
	rthdr[9] = 0x01;
	rthdr[10] = 0x0d;
	rthdr[11] = 0xb8;
	rthdr[23] = 5;
	bad |= try("ipv6_rthdr", fd, IPPROTO_IPV6, IPV6_RTHDR, rthdr, sizeof(rthdr));
	/* struct in6_flowlabel_req: dst 2001:db8::5, label 1, IPV6_FL_A_GET,
	 * IPV6_FL_S_EXCL, IPV6_FL_F_CREATE (32 bytes); refused before the
	 * kernel reads it. */
	{
		unsigned char flr[32] = {0};

		memcpy(flr, rthdr + 8, 16);
		flr[19] = 1;
		flr[20] = 0; /* IPV6_FL_A_GET */
		flr[21] = 1; /* IPV6_FL_S_EXCL */
		flr[22] = 1; /* IPV6_FL_F_CREATE */
		bad |= try("ipv6_flowlabel_mgr", fd, IPPROTO_IPV6, 32, flr, sizeof(flr));
	}
	{
		int one = 1;

		bad |= try("ipv6_freebind", fd, IPPROTO_IPV6, 78, &one, sizeof(one));
		bad |= try("ip_freebind", fd, IPPROTO_IP, 15, &one, sizeof(one));
	}
	close(fd);
	return bad;
}
