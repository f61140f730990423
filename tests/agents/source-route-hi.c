/*
 * source-route-hi: sets source routes with bit 32 set in the level argument
 * (the kernel reads only the low 32 bits of an int): IP_OPTIONS with a
 * loose source route through HOP (IPv4), then a type-0 IPV6_RTHDR. Each is
 * the raw syscall, logged. Exits 0 when both were refused (any errno, logged:
 * the host checks it against the report's promise), 1 otherwise.
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
	close(fd);
	return bad;
}
