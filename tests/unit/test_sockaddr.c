/* Unit tests for supervisor/sockaddr.c: decoding names copied out of the
 * agent, and printing them for the report. */
#include "harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "sockaddr.h"

/* Names are built in a full-size buffer and handed over with a chosen length,
 * as the supervisor does after copying addrlen bytes. */
struct name {
	uint8_t b[SV_SOCKADDR_MAX];
	size_t len;
};

static struct name inet4(const char *addr, uint16_t port)
{
	struct name n = {{0}, sizeof(struct sockaddr_in)};
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(port)};

	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
		th_stop();
	memcpy(n.b, &sin, sizeof(sin));
	return n;
}

static struct name inet6(const char *addr, uint16_t port)
{
	struct name n = {{0}, sizeof(struct sockaddr_in6)};
	struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6, .sin6_port = htons(port)};

	if (inet_pton(AF_INET6, addr, &sin6.sin6_addr) != 1)
		th_stop();
	memcpy(n.b, &sin6, sizeof(sin6));
	return n;
}

static struct name family_only(int family, size_t len)
{
	struct name n = {{0}, len};
	uint16_t f = (uint16_t)family;

	memcpy(n.b, &f, sizeof(f));
	return n;
}

/* An AF_UNIX name with path bytes taken literally (abstract names start with
 * a NUL, so the length is given rather than taken from strlen). */
static struct name unix_name(const char *path, size_t pathlen)
{
	struct name n = family_only(AF_UNIX, offsetof(struct sockaddr_un, sun_path) + pathlen);

	memcpy(n.b + offsetof(struct sockaddr_un, sun_path), path, pathlen);
	return n;
}

static struct name netlink_name(uint32_t pid, size_t len)
{
	struct name n = {{0}, len};
	struct sockaddr_nl nl = {.nl_family = AF_NETLINK, .nl_pid = pid};

	memcpy(n.b, &nl, sizeof(nl));
	return n;
}

static void expect_text(const struct sv_dest *d, const struct name *n, const char *want)
{
	char out[512];

	EXPECT_EQ(sv_dest_format(d, n->b, n->len, out, sizeof(out)), (long long)strlen(want));
	EXPECT_STREQ(out, want);
}

struct decode_case {
	const char *what;
	struct name name;
	enum sv_dest_kind kind;
	int family;
	const char *text;
	const char *family_name;
};

static void check_cases(const struct decode_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct sv_dest d;
		char num[12];

		TH_CASE("case %zu: %s", i, c[i].what);
		memset(&d, 0x5a, sizeof(d));
		EXPECT_EQ(sv_sockaddr_decode(c[i].name.b, c[i].name.len, 0, &d), 0);
		EXPECT_EQ(d.kind, c[i].kind);
		EXPECT_EQ(d.family, c[i].family);
		expect_text(&d, &c[i].name, c[i].text);
		EXPECT_STREQ(sv_dest_family_name(&d, num, sizeof(num)), c[i].family_name);
	}
}

TEST(sockaddr_decoded_by_family)
{
	const struct decode_case c[] = {
	    {"inet", inet4("192.0.2.1", 443), SV_DEST_INET, AF_INET, "192.0.2.1:443", "inet"},
	    {"inet port 0", inet4("0.0.0.0", 0), SV_DEST_INET, AF_INET, "0.0.0.0:0", "inet"},
	    {"inet6", inet6("2001:db8::1", 53), SV_DEST_INET, AF_INET6, "[2001:db8::1]:53",
	     "inet6"},
	    {"inet6 loopback", inet6("::1", 65535), SV_DEST_INET, AF_INET6, "[::1]:65535", "inet6"},
	    {"inet6 mapped", inet6("::ffff:192.0.2.9", 80), SV_DEST_INET, AF_INET6, "192.0.2.9:80",
	     "inet6"},
	    {"unspec", family_only(AF_UNSPEC, 16), SV_DEST_UNSPEC, AF_UNSPEC, "unspec", "unspec"},
	    {"unspec bare", family_only(AF_UNSPEC, 2), SV_DEST_UNSPEC, AF_UNSPEC, "unspec",
	     "unspec"},
	    {"unix path", unix_name("/run/x.sock", 12), SV_DEST_UNIX, AF_UNIX, "unix:/run/x.sock",
	     "unix"},
	    {"unix path without NUL", unix_name("/tmp/y", 6), SV_DEST_UNIX, AF_UNIX, "unix:/tmp/y",
	     "unix"},
	    {"unix path ends at first NUL", unix_name("/a\0b", 4), SV_DEST_UNIX, AF_UNIX, "unix:/a",
	     "unix"},
	    {"unix unnamed", family_only(AF_UNIX, 2), SV_DEST_UNIX, AF_UNIX, "unix:unnamed",
	     "unix"},
	    {"unix abstract", unix_name("\0abc", 4), SV_DEST_UNIX, AF_UNIX, "unix:@abc", "unix"},
	    {"unix abstract empty", unix_name("\0", 1), SV_DEST_UNIX, AF_UNIX, "unix:@", "unix"},
	    {"unix abstract keeps every byte", unix_name("\0a\0b\n\\", 6), SV_DEST_UNIX, AF_UNIX,
	     "unix:@a\\x00b\\x0a\\x5c", "unix"},
	    {"unix path escapes control bytes", unix_name("/x\ty\x7f", 6), SV_DEST_UNIX, AF_UNIX,
	     "unix:/x\\x09y\\x7f", "unix"},
	    {"netlink", netlink_name(1234, 12), SV_DEST_NETLINK, AF_NETLINK, "netlink:pid=1234",
	     "netlink"},
	    {"netlink kernel", netlink_name(0, 12), SV_DEST_NETLINK, AF_NETLINK, "netlink:pid=0",
	     "netlink"},
	    {"packet", family_only(17, 20), SV_DEST_UNSUPPORTED, 17, "family=17", "17"},
	    {"inet with sa_family 0xffff", family_only(0xffff, 16), SV_DEST_UNSUPPORTED, 0xffff,
	     "family=65535", "65535"},
	    {"bluetooth", family_only(31, 14), SV_DEST_UNSUPPORTED, 31, "family=31", "31"},
	};

	check_cases(c, TH_ARRAY_SIZE(c));
}

TEST(sockaddr_netlink_peer_when_name_is_not_the_kernel)
{
	struct name kernel = netlink_name(0, 12), peer = netlink_name(1234, 12),
		    group = netlink_name(0, 12);
	struct sv_dest d;
	uint32_t groups = 1;

	memcpy(group.b + offsetof(struct sockaddr_nl, nl_groups), &groups, sizeof(groups));
	sv_sockaddr_decode(kernel.b, kernel.len, 0, &d);
	EXPECT_EQ(d.netlink_peer, 0);
	sv_sockaddr_decode(peer.b, peer.len, 0, &d);
	EXPECT_EQ(d.netlink_peer, 1);
	sv_sockaddr_decode(group.b, group.len, 0, &d);
	EXPECT_EQ(d.kind, SV_DEST_NETLINK);
	EXPECT_EQ(d.netlink_peer, 1);
	expect_text(&d, &group, "netlink:pid=0,groups=0x1");
}

TEST(sockaddr_malformed_when_shorter_than_family_needs)
{
	struct name v4 = inet4("192.0.2.1", 443);
	struct name v6 = inet6("2001:db8::1", 53);
	struct name nl = netlink_name(1, 12);

	v4.len = 15;
	v6.len = 23;
	nl.len = 11;
	const struct decode_case c[] = {
	    {"inet 15 bytes", v4, SV_DEST_MALFORMED, AF_INET, "malformed(len=15)", "inet"},
	    {"inet6 23 bytes", v6, SV_DEST_MALFORMED, AF_INET6, "malformed(len=23)", "inet6"},
	    {"netlink 11 bytes", nl, SV_DEST_MALFORMED, AF_NETLINK, "malformed(len=11)", "netlink"},
	    {"one byte", family_only(AF_INET, 1), SV_DEST_MALFORMED, -1, "malformed(len=1)", ""},
	    {"zero bytes", family_only(AF_INET, 0), SV_DEST_MALFORMED, -1, "malformed(len=0)", ""},
	};

	check_cases(c, TH_ARRAY_SIZE(c));
}

TEST(sockaddr_inet6_accepted_at_rfc2133_length)
{
	/* The kernel accepts a sockaddr_in6 without sin6_scope_id (24 bytes). */
	struct name n = inet6("2001:db8::1", 53);
	struct sv_dest d;

	n.len = 24;
	ASSERT_EQ(sv_sockaddr_decode(n.b, n.len, 0, &d), 0);
	EXPECT_EQ(d.kind, SV_DEST_INET);
	EXPECT_EQ(d.port, 53);
}

TEST(sockaddr_inet_fields_in_documented_byte_order)
{
	struct name n4 = inet4("192.0.2.1", 0x1234);
	struct name n6 = inet6("2001:db8::1", 0xabcd);
	static const uint8_t b4[4] = {192, 0, 2, 1};
	static const uint8_t b6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
	struct sv_dest d;

	ASSERT_EQ(sv_sockaddr_decode(n4.b, n4.len, 0, &d), 0);
	EXPECT_EQ(d.addr.family, AF_INET);
	EXPECT_MEMEQ(d.addr.bytes, b4, 4);
	EXPECT_EQ(d.port, 0x1234);
	EXPECT_EQ(d.mapped, 0);
	ASSERT_EQ(sv_sockaddr_decode(n6.b, n6.len, 0, &d), 0);
	EXPECT_EQ(d.addr.family, AF_INET6);
	EXPECT_MEMEQ(d.addr.bytes, b6, 16);
	EXPECT_EQ(d.port, 0xabcd);
	EXPECT_EQ(d.mapped, 0);
}

TEST(sockaddr_mapped_ipv6_becomes_ipv4)
{
	struct name n = inet6("::ffff:192.0.2.200", 8080);
	static const uint8_t b4[4] = {192, 0, 2, 200};
	struct sv_dest d;

	ASSERT_EQ(sv_sockaddr_decode(n.b, n.len, 0, &d), 0);
	EXPECT_EQ(d.kind, SV_DEST_INET);
	EXPECT_EQ(d.family, AF_INET6);
	EXPECT_EQ(d.addr.family, AF_INET);
	EXPECT_MEMEQ(d.addr.bytes, b4, 4);
	EXPECT_EQ(d.port, 8080);
	EXPECT_EQ(d.mapped, 1);
}

TEST(sockaddr_near_mapped_ipv6_stays_ipv6)
{
	/* Only ::ffff:0:0/96 is mapped: the deprecated v4-compatible form, the
	 * NAT64 prefix and one bit off are IPv6 destinations. */
	static const char *const near[] = {"::192.0.2.1", "::fffe:c000:201", "64:ff9b::c000:201",
					   "0:0:0:0:1:ffff:c000:201", "::ffff:0:c000:201"};

	for (size_t i = 0; i < TH_ARRAY_SIZE(near); i++) {
		struct name n = inet6(near[i], 1);
		struct sv_dest d;

		TH_CASE("%s", near[i]);
		ASSERT_EQ(sv_sockaddr_decode(n.b, n.len, 0, &d), 0);
		EXPECT_EQ(d.addr.family, AF_INET6);
		EXPECT_EQ(d.mapped, 0);
	}
}

TEST(sockaddr_mapped_loopback_allowed_by_loopback_policy)
{
	struct sv_policy p = {.loopback = true};
	struct name n = inet6("::ffff:127.0.0.1", 80);
	struct sv_dest d;

	ASSERT_EQ(sv_sockaddr_decode(n.b, n.len, 0, &d), 0);
	EXPECT_TRUE(sv_policy_allows(&p, &d.addr, d.port));
	p.loopback = false;
	EXPECT_FALSE(sv_policy_allows(&p, &d.addr, d.port));
}

TEST(sockaddr_none_when_null_name_allowed)
{
	struct sv_dest d;
	char out[32];
	char num[12];

	memset(&d, 0x5a, sizeof(d));
	ASSERT_EQ(sv_sockaddr_decode(NULL, 0, 1, &d), 0);
	EXPECT_EQ(d.kind, SV_DEST_NONE);
	EXPECT_EQ(d.family, -1);
	EXPECT_EQ(sv_dest_format(&d, NULL, 0, out, sizeof(out)), 4);
	EXPECT_STREQ(out, "none");
	EXPECT_STREQ(sv_dest_family_name(&d, num, sizeof(num)), "");
}

TEST(sockaddr_malformed_when_null_name_not_expected)
{
	struct sv_dest d;

	ASSERT_EQ(sv_sockaddr_decode(NULL, 0, 0, &d), 0);
	EXPECT_EQ(d.kind, SV_DEST_MALFORMED);
	ASSERT_EQ(sv_sockaddr_decode(NULL, 16, 1, &d), 0);
	EXPECT_EQ(d.kind, SV_DEST_MALFORMED);
	EXPECT_EQ(d.family, -1);
}

TEST(sockaddr_decoded_when_len_exceeds_family_size)
{
	struct name n = inet4("192.0.2.1", 443);
	struct sv_dest d;

	n.len = SV_SOCKADDR_MAX;
	ASSERT_EQ(sv_sockaddr_decode(n.b, n.len, 0, &d), 0);
	EXPECT_EQ(d.kind, SV_DEST_INET);
	expect_text(&d, &n, "192.0.2.1:443");
}

TEST(sockaddr_unix_full_length_path_printed_whole)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char want[sizeof(path) + 8];
	struct sv_dest d;

	memset(path, 'p', sizeof(path));
	path[0] = '/';
	struct name n = unix_name(path, sizeof(path));
	snprintf(want, sizeof(want), "unix:%.*s", (int)sizeof(path), path);
	ASSERT_EQ(sv_sockaddr_decode(n.b, n.len, 0, &d), 0);
	expect_text(&d, &n, want);
}

TEST(dest_format_fails_with_enospc_when_buffer_short)
{
	struct name cases[] = {inet4("192.0.2.1", 443),      inet6("2001:db8::1", 53),
			       unix_name("/run/x.sock", 12), unix_name("\0\x01\x02", 3),
			       netlink_name(7, 12),          family_only(17, 4),
			       family_only(AF_UNSPEC, 2)};

	for (size_t i = 0; i < TH_ARRAY_SIZE(cases); i++) {
		struct sv_dest d;
		char out[128];
		int full;

		TH_CASE("case %zu", i);
		ASSERT_EQ(sv_sockaddr_decode(cases[i].b, cases[i].len, 0, &d), 0);
		full = sv_dest_format(&d, cases[i].b, cases[i].len, out, sizeof(out));
		ASSERT_TRUE(full > 0);
		EXPECT_EQ(sv_dest_format(&d, cases[i].b, cases[i].len, out, (size_t)full + 1),
			  full);
		for (size_t len = 0; len <= (size_t)full; len++) {
			memset(out, 'Z', sizeof(out));
			EXPECT_EQ(sv_dest_format(&d, cases[i].b, cases[i].len, out, len), -ENOSPC);
			/* Nothing is written past the space given. */
			EXPECT_EQ(out[len], 'Z');
		}
	}
}

TEST(dest_family_name_falls_back_when_number_buffer_short)
{
	struct name n = family_only(12345, 4);
	struct sv_dest d;
	char num[4];

	ASSERT_EQ(sv_sockaddr_decode(n.b, n.len, 0, &d), 0);
	EXPECT_STREQ(sv_dest_family_name(&d, num, sizeof(num)), "unknown");
	EXPECT_STREQ(sv_dest_family_name(&d, NULL, 0), "unknown");
}

TEST(dest_format_rejects_unknown_kind)
{
	struct sv_dest d = {.kind = (enum sv_dest_kind)99};
	char out[32];

	EXPECT_EQ(sv_dest_format(&d, NULL, 0, out, sizeof(out)), -EINVAL);
}
