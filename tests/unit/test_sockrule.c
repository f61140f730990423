/* sockrule.c: the socket() allow-list and the listen() rule, as a table.
 * Derived from the kernel: an int argument is its register's low 32 bits;
 * socket()'s type is type & SOCK_TYPE_MASK plus flag bits. */
#include <linux/netlink.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "harness.h"
#include "sockrule.h"

#define HI (1ull << 32)

struct socket_case {
	unsigned long long family, type, protocol;
	const char *deny; /* NULL: allowed */
	const char *why;  /* when allowed */
};

static const struct socket_case socket_cases[] = {
    {AF_INET, SOCK_STREAM, 0, NULL, "tcp"},
    {AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP, NULL, "tcp"},
    {AF_INET | HI, SOCK_STREAM | HI, IPPROTO_TCP | HI, NULL, "tcp"},
    {AF_INET, SOCK_DGRAM, 0, NULL, "udp"},
    {AF_INET6, SOCK_DGRAM, IPPROTO_UDP, NULL, "udp"},
    {AF_UNIX, SOCK_SEQPACKET, 0, NULL, "local"},
    {AF_NETLINK, SOCK_RAW, NETLINK_ROUTE, NULL, "netlink-route"},
    {AF_NETLINK | HI, SOCK_DGRAM, NETLINK_ROUTE | HI, NULL, "netlink-route"},
    {AF_NETLINK, SOCK_DGRAM, NETLINK_GENERIC, "unsupported-socket", NULL},
    {AF_NETLINK, SOCK_RAW, NETLINK_ROUTE | 0x100, "unsupported-socket", NULL},
    {AF_INET, SOCK_STREAM, IPPROTO_SCTP, "unsupported-socket", NULL},
    {AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP, "unsupported-socket", NULL},
    {AF_INET, SOCK_STREAM, 262 /* MPTCP */, "unsupported-socket", NULL},
    {AF_INET, SOCK_STREAM, 262 | HI, "unsupported-socket", NULL},
    {AF_INET, SOCK_STREAM, IPPROTO_TCP + 0x100, "unsupported-socket", NULL},
    {AF_INET6, 6 /* SOCK_DCCP */, 33, "unsupported-socket", NULL},
    {AF_INET, SOCK_DGRAM, 136 /* UDP-Lite */, "unsupported-socket", NULL},
    {AF_INET, SOCK_DGRAM, IPPROTO_ICMP, "unsupported-socket", NULL},
    {AF_INET, SOCK_RAW, IPPROTO_RAW, "raw-socket", NULL},
    {AF_INET6 | HI, SOCK_RAW, 58, "raw-socket", NULL},
    {AF_INET, SOCK_PACKET, 0, "raw-socket", NULL},
    {AF_PACKET, SOCK_DGRAM, 0, "raw-socket", NULL},
    {AF_PACKET | HI, SOCK_RAW, 0x300, "raw-socket", NULL},
    {40 /* AF_VSOCK */, SOCK_STREAM, 0, "unsupported-socket", NULL},
    {AF_UNSPEC, SOCK_STREAM, 0, "unsupported-socket", NULL},
    {0xffffffffull, SOCK_STREAM, 0, "unsupported-socket", NULL},
    {AF_INET + 0x100, SOCK_STREAM, 0, "unsupported-socket", NULL},
};

TEST(socket_allow_list_decides_on_low_32_bits)
{
	for (size_t i = 0; i < sizeof(socket_cases) / sizeof(socket_cases[0]); i++) {
		const struct socket_case *k = &socket_cases[i];
		const char *why = "unset", *deny;

		th_case("case %zu: %llx:%llx:%llx", i, k->family, k->type, k->protocol);
		deny = sv_sockrule_socket(k->family, k->type, k->protocol, &why);
		if (k->deny) {
			EXPECT_STREQ(deny ? deny : "(allowed)", k->deny);
		} else {
			EXPECT_TRUE(deny == NULL);
			EXPECT_STREQ(why ? why : "(null)", k->why);
		}
	}
}

static struct sv_dest inet(int family, const void *bytes, size_t n)
{
	struct sv_dest d = {.kind = SV_DEST_INET, .family = family};

	d.addr.family = family;
	memcpy(d.addr.bytes, bytes, n);
	return d;
}

TEST(listen_allowed_only_on_loopback_and_local)
{
	static const unsigned char lo4[4] = {127, 0, 0, 3}, any4[4] = {0}, doc4[4] = {192, 0, 2, 1};
	static const unsigned char lo6[16] = {[15] = 1}, any6[16] = {0};
	struct sv_policy open = {.loopback = true}, closed = {.loopback = false};
	struct sv_dest unix_dest = {.kind = SV_DEST_UNIX, .family = AF_UNIX};
	struct sv_dest d;
	const char *why;

	d = inet(AF_INET, lo4, 4);
	EXPECT_TRUE(sv_sockrule_listen(&open, &d, 0, &why) == NULL);
	EXPECT_STREQ(why, "loopback");
	EXPECT_STREQ(sv_sockrule_listen(&closed, &d, 0, &why), "inbound");
	/* route_localnet=1: a neighbour reaches 127/8 (review h-attack70). */
	EXPECT_STREQ(sv_sockrule_listen(&open, &d, 1, &why), "inbound-localnet");
	d = inet(AF_INET6, lo6, 16);
	EXPECT_TRUE(sv_sockrule_listen(&open, &d, 0, &why) == NULL);
	EXPECT_TRUE(sv_sockrule_listen(&open, &d, 1, &why) == NULL);
	d = inet(AF_INET, any4, 4);
	EXPECT_STREQ(sv_sockrule_listen(&open, &d, 0, &why), "inbound");
	d = inet(AF_INET6, any6, 16);
	EXPECT_STREQ(sv_sockrule_listen(&open, &d, 0, &why), "inbound");
	d = inet(AF_INET, doc4, 4);
	EXPECT_STREQ(sv_sockrule_listen(&open, &d, 0, &why), "inbound");
	EXPECT_TRUE(sv_sockrule_listen(&closed, &unix_dest, 0, &why) == NULL);
	EXPECT_STREQ(why, "local");
	d.kind = SV_DEST_UNSUPPORTED;
	EXPECT_STREQ(sv_sockrule_listen(&open, &d, 0, &why), "unsupported-socket");
}
