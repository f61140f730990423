/* Unit tests for supervisor/policy.c: the --allow grammar, its error messages,
 * matching and formatting. */
#include "harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "policy.h"

struct good_spec {
	const char *spec;
	const char *canonical;
	int family;
	unsigned prefix;
	uint16_t lo, hi;
};

static const struct good_spec good[] = {
    {"192.0.2.1", "192.0.2.1", AF_INET, 32, 0, 65535},
    {"192.0.2.0/24", "192.0.2.0/24", AF_INET, 24, 0, 65535},
    {"192.0.2.0/24:443", "192.0.2.0/24:443", AF_INET, 24, 443, 443},
    {"192.0.2.1/32:53", "192.0.2.1:53", AF_INET, 32, 53, 53},
    {"192.0.2.1:1-65535", "192.0.2.1:1-65535", AF_INET, 32, 1, 65535},
    {"192.0.2.1:65535", "192.0.2.1:65535", AF_INET, 32, 65535, 65535},
    {"192.0.2.1:1", "192.0.2.1:1", AF_INET, 32, 1, 1},
    {"192.0.2.1:80-80", "192.0.2.1:80", AF_INET, 32, 80, 80},
    {"192.0.2.1:0080", "192.0.2.1:80", AF_INET, 32, 80, 80},
    {"10.0.0.0/8:1000-2000", "10.0.0.0/8:1000-2000", AF_INET, 8, 1000, 2000},
    {"10.0.0.0/9", "10.0.0.0/9", AF_INET, 9, 0, 65535},
    {"0.0.0.0/0", "0.0.0.0/0", AF_INET, 0, 0, 65535},
    {"255.255.255.255", "255.255.255.255", AF_INET, 32, 0, 65535},
    {"[2001:db8::1]:53", "[2001:db8::1]:53", AF_INET6, 128, 53, 53},
    {"[2001:db8::]/32:1000-2000", "[2001:db8::]/32:1000-2000", AF_INET6, 32, 1000, 2000},
    {"[2001:DB8::1]", "[2001:db8::1]", AF_INET6, 128, 0, 65535},
    {"[2001:db8:0:0:0:0:0:1]", "[2001:db8::1]", AF_INET6, 128, 0, 65535},
    {"[::]/0", "[::]/0", AF_INET6, 0, 0, 65535},
    {"[::1]", "[::1]", AF_INET6, 128, 0, 65535},
    {"[64:ff9b::]/96:443", "[64:ff9b::]/96:443", AF_INET6, 96, 443, 443},
    {"[2001:db8::8000]/113", "[2001:db8::8000]/113", AF_INET6, 113, 0, 65535},
    {"192.0.2.0/024", "192.0.2.0/24", AF_INET, 24, 0, 65535},
};

TEST(spec_accepted_when_well_formed)
{
	for (size_t i = 0; i < TH_ARRAY_SIZE(good); i++) {
		struct sv_rule r;
		char err[SV_POLICY_ERR_MAX] = "x";
		char text[128];

		TH_CASE("case %zu: '%s'", i, good[i].spec);
		memset(&r, 0xa5, sizeof(r));
		if (!EXPECT_EQ(sv_policy_parse_spec(good[i].spec, &r, err, sizeof(err)), 0)) {
			printf("#   err: %s\n", err);
			continue;
		}
		EXPECT_STREQ(err, "");
		EXPECT_EQ(r.net.family, good[i].family);
		EXPECT_EQ(r.prefix, good[i].prefix);
		EXPECT_EQ(r.port_lo, good[i].lo);
		EXPECT_EQ(r.port_hi, good[i].hi);
		EXPECT_EQ(sv_policy_format_rule(&r, text, sizeof(text)),
			  (long long)strlen(good[i].canonical));
		EXPECT_STREQ(text, good[i].canonical);
	}
}

TEST(spec_canonical_form_parses_back_to_same_rule)
{
	for (size_t i = 0; i < TH_ARRAY_SIZE(good); i++) {
		struct sv_rule a, b;
		char text[128], err[SV_POLICY_ERR_MAX];

		TH_CASE("case %zu: '%s'", i, good[i].spec);
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		ASSERT_EQ(sv_policy_parse_spec(good[i].spec, &a, err, sizeof(err)), 0);
		ASSERT_TRUE(sv_policy_format_rule(&a, text, sizeof(text)) > 0);
		ASSERT_EQ(sv_policy_parse_spec(text, &b, err, sizeof(err)), 0);
		EXPECT_MEMEQ(&a, &b, sizeof(a));
	}
}

TEST(spec_parsed_address_bytes_in_network_order)
{
	struct sv_rule r;
	char err[SV_POLICY_ERR_MAX];
	static const uint8_t v4[4] = {192, 0, 2, 7};
	static const uint8_t v6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x01};

	ASSERT_EQ(sv_policy_parse_spec("192.0.2.7", &r, err, sizeof(err)), 0);
	EXPECT_MEMEQ(r.net.bytes, v4, 4);
	ASSERT_EQ(sv_policy_parse_spec("[2001:db8::1]", &r, err, sizeof(err)), 0);
	EXPECT_MEMEQ(r.net.bytes, v6, 16);
}

struct bad_spec {
	const char *spec;
	const char *message; /* the whole message, or a part of it */
	bool whole;
};

static const struct bad_spec bad[] = {
    {"", "--allow '': empty rule (expected ADDRESS[/PREFIX][:PORT[-PORT]], IPv6 in brackets)",
     true},
    {"192.0.2.1/24", "--allow '192.0.2.1/24': host bits set below /24 (did you mean 192.0.2.0/24?)",
     true},
    {"192.0.2.1/24:443",
     "--allow '192.0.2.1/24:443': host bits set below /24 (did you mean 192.0.2.0/24:443?)", true},
    {"10.128.0.0/8:1-2", "host bits set below /8 (did you mean 10.0.0.0/8:1-2?)", false},
    {"0.0.0.1/0", "host bits set below /0 (did you mean 0.0.0.0/0?)", false},
    {"[2001:db8::1]/32",
     "--allow '[2001:db8::1]/32': host bits set below /32 (did you mean [2001:db8::]/32?)", true},
    {"[2001:db8::8000]/112", "did you mean [2001:db8::]/112?", false},
    {"192.0.2.1:0", "--allow '192.0.2.1:0': port 0 is not a valid port (ports are 1..65535)", true},
    {"192.0.2.1:0-10", "port 0 is not a valid port", false},
    {"192.0.2.1:10-0", "port 0 is not a valid port", false},
    {"[2001:db8::1]:0", "port 0 is not a valid port", false},
    {"192.0.2.1:65536", "--allow '192.0.2.1:65536': port 65536 is out of range 1..65535", true},
    {"192.0.2.1:1-65536", "port 65536 is out of range 1..65535", false},
    {"192.0.2.1:99999999999999999999", "port 99999999999999999999 is out of range 1..65535", false},
    {"192.0.2.1:2000-1000",
     "--allow '192.0.2.1:2000-1000': port range 2000-1000 is reversed (low port above high port)",
     true},
    {"192.0.2.1:", "--allow '192.0.2.1:': missing port after ':'", true},
    {"192.0.2.1:-80", "missing port after ':'", false},
    {"192.0.2.1:80-", "--allow '192.0.2.1:80-': missing port after '-'", true},
    {"192.0.2.1:+80", "missing port after ':'", false},
    {"192.0.2.0/", "--allow '192.0.2.0/': missing prefix length after '/'", true},
    {"192.0.2.0/-1", "missing prefix length after '/'", false},
    {"192.0.2.0/:80", "missing prefix length after '/'", false},
    {"192.0.2.0/33", "--allow '192.0.2.0/33': prefix /33 is out of range 0..32 for IPv4", true},
    {"192.0.2.0/1000000000000000000000", "prefix /1000000000000000000000 is out of range", false},
    {"[2001:db8::]/129", "prefix /129 is out of range 0..128 for IPv6", false},
    {"[::ffff:192.0.2.1]",
     "--allow '[::ffff:192.0.2.1]': IPv4-mapped IPv6 address (destinations in ::ffff:0:0/96 "
     "are judged as IPv4: write 192.0.2.1)",
     true},
    {"[::ffff:192.0.2.0]/120:443", "are judged as IPv4: write 192.0.2.0/24)", false},
    {"[::ffff:0:0]/96", "are judged as IPv4: write 0.0.0.0/0)", false},
    {"[::ffff:c000:201]", "IPv4-mapped IPv6 address", false},
    {"192.0.2.1x", "--allow '192.0.2.1x': '192.0.2.1x' is not an IPv4 address", true},
    {"192.0.2", "'192.0.2' is not an IPv4 address", false},
    {"256.0.0.1", "'256.0.0.1' is not an IPv4 address", false},
    {"192.0.2.01", "'192.0.2.01' is not an IPv4 address", false},
    {"example.com:443", "'example.com' is not an IPv4 address", false},
    {"192.0.2.1 ", "'192.0.2.1 ' is not an IPv4 address", false},
    {" 192.0.2.1", "' 192.0.2.1' is not an IPv4 address", false},
    {"2001:db8::1",
     "--allow '2001:db8::1': IPv6 addresses must be in brackets (write [2001:db8::1], and a "
     "port after the bracket: [2001:db8::1]:PORT)",
     true},
    {"2001:db8::/32", "IPv6 addresses must be in brackets (write [2001:db8::]", false},
    {"::1", "IPv6 addresses must be in brackets (write [::1]", false},
    {"[2001:db8::1", "--allow '[2001:db8::1': missing ']' after the IPv6 address", true},
    {"[", "missing ']' after the IPv6 address", false},
    {"[]", "--allow '[]': empty brackets (expected an IPv6 address)", true},
    {"[]:80", "empty brackets", false},
    {"[192.0.2.1]",
     "--allow '[192.0.2.1]': IPv4 address in brackets (brackets are only for IPv6: write "
     "192.0.2.1)",
     true},
    {"[2001:db8::g]", "--allow '[2001:db8::g]': '2001:db8::g' is not an IPv6 address", true},
    {"[fe80::1%eth0]", "'fe80::1%eth0' is not an IPv6 address", false},
    {"[[::1]]", "'[::1' is not an IPv6 address", false},
    {"[2001:db8::1]x",
     "--allow '[2001:db8::1]x': unexpected 'x' at the end (expected "
     "ADDRESS[/PREFIX][:PORT[-PORT]])",
     true},
    {"[2001:db8::1]53", "unexpected '53' at the end", false},
    {"192.0.2.1:80x", "unexpected 'x' at the end", false},
    {"192.0.2.0/24/25", "unexpected '/25' at the end", false},
    {"192.0.2.1:80:90", "unexpected ':90' at the end", false},
    {"192.0.2.1:80-90-100", "unexpected '-100' at the end", false},
    {"192.0.2.0/24x", "unexpected 'x' at the end", false},
    {":80", "--allow ':80': missing address before ':'", true},
    {"/24", "missing address before '/'", false},
    {"192.0.2.1\x01", "--allow '192.0.2.1\\x01': '192.0.2.1\\x01' is not an IPv4 address", true},
    {"192.0.2.1:80\n", "unexpected '\\x0a' at the end", false},
    {"a\\b", "--allow 'a\\x5cb': 'a\\x5cb' is not an IPv4 address", true},
};

TEST(spec_rejected_with_message_naming_the_problem)
{
	for (size_t i = 0; i < TH_ARRAY_SIZE(bad); i++) {
		struct sv_rule r;
		char err[SV_POLICY_ERR_MAX];

		TH_CASE("case %zu: '%s'", i, bad[i].spec);
		memset(err, 'Z', sizeof(err));
		EXPECT_EQ(sv_policy_parse_spec(bad[i].spec, &r, err, sizeof(err)), -EINVAL);
		if (bad[i].whole)
			EXPECT_STREQ(err, bad[i].message);
		else
			EXPECT_CONTAINS(err, bad[i].message);
	}
}

TEST(spec_rejection_message_quotes_spec_and_has_no_control_bytes)
{
	for (size_t i = 0; i < TH_ARRAY_SIZE(bad); i++) {
		char err[SV_POLICY_ERR_MAX];
		bool clean = true;

		TH_CASE("case %zu: '%s'", i, bad[i].spec);
		ASSERT_EQ(sv_policy_parse_spec(bad[i].spec, NULL, err, sizeof(err)), -EINVAL);
		EXPECT_EQ(strncmp(err, "--allow '", 9), 0);
		EXPECT_CONTAINS(err, "': ");
		for (const char *c = err; *c; c++)
			clean = clean && (unsigned char)*c >= 0x20 && (unsigned char)*c < 0x7f;
		EXPECT_TRUE(clean);
	}
}

TEST(spec_rejected_when_null)
{
	char err[SV_POLICY_ERR_MAX];
	struct sv_rule r;

	EXPECT_EQ(sv_policy_parse_spec(NULL, &r, err, sizeof(err)), -EINVAL);
	EXPECT_CONTAINS(err, "--allow '': empty rule");
}

TEST(spec_rejected_when_overlong)
{
	char spec[SV_POLICY_SPEC_MAX + 2];
	char err[SV_POLICY_ERR_MAX];
	struct sv_rule r;

	memset(spec, '1', sizeof(spec) - 1);
	spec[sizeof(spec) - 1] = '\0';
	EXPECT_EQ(sv_policy_parse_spec(spec, &r, err, sizeof(err)), -EINVAL);
	EXPECT_CONTAINS(err, "...': longer than 128 characters");
	/* The quote is cut short: a huge argument must not flood the terminal. */
	EXPECT_TRUE(strlen(err) < 100);
}

TEST(spec_accepted_at_exactly_the_length_limit)
{
	/* 128 characters that would be valid but for a long run of zeros in
	 * the port: the length check must not fire, the port check must. */
	char spec[SV_POLICY_SPEC_MAX + 1];
	char err[SV_POLICY_ERR_MAX];
	size_t head = strlen("192.0.2.1:");

	memcpy(spec, "192.0.2.1:", head);
	memset(spec + head, '0', SV_POLICY_SPEC_MAX - head);
	spec[SV_POLICY_SPEC_MAX - 1] = '1';
	spec[SV_POLICY_SPEC_MAX] = '\0';
	struct sv_rule r;
	EXPECT_EQ(sv_policy_parse_spec(spec, &r, err, sizeof(err)), 0);
	EXPECT_EQ(r.port_lo, 1);
}

TEST(spec_error_truncated_to_errlen_and_terminated)
{
	char err[16];
	struct sv_rule r;

	memset(err, 'Z', sizeof(err));
	EXPECT_EQ(sv_policy_parse_spec("192.0.2.1/24", &r, err, sizeof(err)), -EINVAL);
	EXPECT_TRUE(memchr(err, '\0', sizeof(err)) != NULL);
	EXPECT_EQ(strncmp(err, "--allow '192.0", 14), 0);

	memset(err, 'Z', sizeof(err));
	EXPECT_EQ(sv_policy_parse_spec("192.0.2.1/24", &r, err, 1), -EINVAL);
	EXPECT_EQ(err[0], '\0');
	EXPECT_EQ(err[1], 'Z');
	EXPECT_EQ(sv_policy_parse_spec("192.0.2.1/24", &r, NULL, 0), -EINVAL);
	EXPECT_EQ(sv_policy_parse_spec("192.0.2.1/24", &r, err, 0), -EINVAL);
	EXPECT_EQ(err[1], 'Z');
}

TEST(spec_accepted_without_err_buffer_or_output)
{
	EXPECT_EQ(sv_policy_parse_spec("192.0.2.0/24", NULL, NULL, 0), 0);
}

static struct sv_addr v4(const char *text)
{
	struct sv_addr a = {.family = AF_INET};

	if (inet_pton(AF_INET, text, a.bytes) != 1)
		th_stop();
	return a;
}

static struct sv_addr v6(const char *text)
{
	struct sv_addr a = {.family = AF_INET6};

	if (inet_pton(AF_INET6, text, a.bytes) != 1)
		th_stop();
	return a;
}

static struct sv_addr any_addr(const char *text)
{
	return strchr(text, ':') ? v6(text) : v4(text);
}

static void add_specs(struct sv_policy *p, const char *const *specs)
{
	for (; *specs; specs++) {
		struct sv_rule r;
		char err[SV_POLICY_ERR_MAX];

		TH_CASE("adding '%s'", *specs);
		ASSERT_EQ(sv_policy_parse_spec(*specs, &r, err, sizeof(err)), 0);
		ASSERT_EQ(sv_policy_add(p, &r), 0);
	}
	TH_CASE("%s", "");
}

struct verdict {
	const char *addr;
	uint16_t port;
	bool allowed;
};

static void check_verdicts(const struct sv_policy *p, const struct verdict *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct sv_addr a = any_addr(v[i].addr);

		TH_CASE("%s port %u", v[i].addr, v[i].port);
		EXPECT_EQ(sv_policy_allows(p, &a, v[i].port), v[i].allowed);
	}
}

TEST(loopback_allowed_on_every_port_when_enabled)
{
	struct sv_policy p = {.loopback = true};
	static const struct verdict v[] = {
	    {"127.0.0.1", 80, true},
	    {"127.0.0.1", 0, true},
	    {"127.255.255.255", 65535, true},
	    {"127.1.2.3", 22, true},
	    {"::1", 53, true},
	    {"::1", 0, true},
	    {"::ffff:127.0.0.1", 80, true},
	    {"128.0.0.1", 80, false},
	    {"126.255.255.255", 80, false},
	    {"::2", 80, false},
	    {"::", 80, false},
	    {"0.0.0.0", 80, false},
	    {"192.0.2.1", 443, false},
	    {"::127.0.0.1", 80, false},
	};

	check_verdicts(&p, v, TH_ARRAY_SIZE(v));
}

TEST(loopback_denied_when_disabled)
{
	struct sv_policy p = {.loopback = false};
	static const struct verdict v[] = {
	    {"127.0.0.1", 80, false},
	    {"::1", 53, false},
	    {"::ffff:127.0.0.1", 80, false},
	};

	check_verdicts(&p, v, TH_ARRAY_SIZE(v));
}

TEST(loopback_allowed_by_explicit_rule_when_disabled)
{
	struct sv_policy p = {.loopback = false};
	static const char *const specs[] = {"127.0.0.1:8080", NULL};
	static const struct verdict v[] = {
	    {"127.0.0.1", 8080, true},
	    {"127.0.0.1", 8081, false},
	    {"127.0.0.2", 8080, false},
	};

	add_specs(&p, specs);
	check_verdicts(&p, v, TH_ARRAY_SIZE(v));
	sv_policy_free(&p);
}

TEST(destination_allowed_when_any_rule_matches)
{
	struct sv_policy p = {.loopback = true};
	static const char *const specs[] = {
	    "192.0.2.0/24:443",          "10.0.0.0/9",          "198.51.100.7:1000-2000",
	    "[2001:db8::]/32:1000-2000", "[2001:db8:1::53]:53", NULL,
	};
	static const struct verdict v[] = {
	    {"192.0.2.0", 443, true},
	    {"192.0.2.255", 443, true},
	    {"192.0.2.7", 444, false},
	    {"192.0.2.7", 442, false},
	    {"192.0.3.1", 443, false},
	    {"192.0.1.255", 443, false},
	    {"10.0.0.0", 1, true},
	    {"10.127.255.255", 65535, true},
	    {"10.128.0.0", 80, false},
	    {"11.0.0.0", 80, false},
	    {"198.51.100.7", 999, false},
	    {"198.51.100.7", 1000, true},
	    {"198.51.100.7", 2000, true},
	    {"198.51.100.7", 2001, false},
	    {"198.51.100.8", 1500, false},
	    {"2001:db8::1", 1000, true},
	    {"2001:db8:ffff:ffff::1", 2000, true},
	    {"2001:db8::1", 2001, false},
	    {"2001:db9::1", 1500, false},
	    {"2001:db8:1::53", 53, true},
	    {"2001:db8:1::53", 54, false},
	    {"2001:db7:ffff::1", 1500, false},
	};

	add_specs(&p, specs);
	check_verdicts(&p, v, TH_ARRAY_SIZE(v));
	sv_policy_free(&p);
}

TEST(destination_denied_when_family_differs)
{
	struct sv_policy p = {.loopback = false};
	static const char *const specs[] = {"0.0.0.0/0", NULL};
	static const char *const specs6[] = {"[::]/0", NULL};
	struct sv_addr a6 = v6("2001:db8::1");
	struct sv_addr a4 = v4("192.0.2.1");
	struct sv_addr mapped = v6("::ffff:192.0.2.1");

	add_specs(&p, specs);
	EXPECT_TRUE(sv_policy_allows(&p, &a4, 1));
	EXPECT_FALSE(sv_policy_allows(&p, &a6, 1));
	sv_policy_free(&p);

	add_specs(&p, specs6);
	EXPECT_TRUE(sv_policy_allows(&p, &a6, 1));
	EXPECT_FALSE(sv_policy_allows(&p, &a4, 1));
	/* A mapped address is IPv4 even when the caller forgot to convert it. */
	EXPECT_FALSE(sv_policy_allows(&p, &mapped, 1));
	sv_policy_free(&p);
}

TEST(mapped_destination_judged_as_ipv4)
{
	struct sv_policy p = {.loopback = false};
	static const char *const specs[] = {"192.0.2.0/24:443", NULL};
	struct sv_addr mapped = v6("::ffff:192.0.2.9");

	add_specs(&p, specs);
	EXPECT_TRUE(sv_policy_allows(&p, &mapped, 443));
	EXPECT_FALSE(sv_policy_allows(&p, &mapped, 80));
	sv_policy_free(&p);
}

TEST(destination_denied_when_family_unknown)
{
	struct sv_policy p = {.loopback = true};
	static const char *const specs[] = {"0.0.0.0/0", "[::]/0", NULL};
	struct sv_addr a = {.family = AF_UNIX};

	add_specs(&p, specs);
	EXPECT_FALSE(sv_policy_allows(&p, &a, 80));
	a.family = 0;
	EXPECT_FALSE(sv_policy_allows(&p, &a, 80));
	sv_policy_free(&p);
}

TEST(destination_denied_when_policy_empty)
{
	struct sv_policy p = {0};
	struct sv_addr a = v4("192.0.2.1");

	EXPECT_FALSE(sv_policy_allows(&p, &a, 443));
}

TEST(port_range_bounds_inclusive_and_no_port_means_every_port)
{
	struct sv_policy p = {0};
	static const char *const specs[] = {"192.0.2.1", "192.0.2.2:1-65535", NULL};
	static const struct verdict v[] = {
	    {"192.0.2.1", 0, true}, {"192.0.2.1", 65535, true}, {"192.0.2.2", 0, false},
	    {"192.0.2.2", 1, true}, {"192.0.2.2", 65535, true},
	};

	add_specs(&p, specs);
	check_verdicts(&p, v, TH_ARRAY_SIZE(v));
	sv_policy_free(&p);
}

TEST(policy_add_keeps_every_rule_in_order_when_growing)
{
	struct sv_policy p = {0};

	for (unsigned i = 0; i < 300; i++) {
		struct sv_rule r = {.net = {.family = AF_INET}, .prefix = 32};

		r.net.bytes[0] = 10;
		r.net.bytes[2] = (uint8_t)(i >> 8);
		r.net.bytes[3] = (uint8_t)i;
		r.port_lo = r.port_hi = (uint16_t)(i + 1);
		ASSERT_EQ(sv_policy_add(&p, &r), 0);
	}
	ASSERT_EQ(p.n, 300);
	EXPECT_TRUE(p.cap >= p.n);
	for (unsigned i = 0; i < 300; i++) {
		TH_CASE("rule %u", i);
		EXPECT_EQ(p.rules[i].net.bytes[3], (uint8_t)i);
		EXPECT_EQ(p.rules[i].port_lo, i + 1);
	}
	sv_policy_free(&p);
	EXPECT_TRUE(p.rules == NULL);
	EXPECT_EQ(p.n, 0);
	EXPECT_EQ(p.cap, 0);
	sv_policy_free(&p);
}

TEST(format_rule_fails_with_enospc_when_buffer_short)
{
	struct sv_rule r;
	char err[SV_POLICY_ERR_MAX];
	char buf[64];
	const char *want = "[2001:db8::]/32:1000-2000";
	size_t n = strlen(want);

	ASSERT_EQ(sv_policy_parse_spec(want, &r, err, sizeof(err)), 0);
	EXPECT_EQ(sv_policy_format_rule(&r, buf, n + 1), (long long)n);
	EXPECT_STREQ(buf, want);
	EXPECT_EQ(sv_policy_format_rule(&r, buf, n), -ENOSPC);
	EXPECT_EQ(sv_policy_format_rule(&r, buf, 0), -ENOSPC);
}

TEST(format_rule_rejects_unknown_family)
{
	struct sv_rule r = {.net = {.family = AF_UNIX}};
	char buf[64];

	EXPECT_EQ(sv_policy_format_rule(&r, buf, sizeof(buf)), -EINVAL);
}

TEST(addr_unspecified_only_when_every_byte_is_zero)
{
	struct sv_addr v4 = {.family = AF_INET}, v6 = {.family = AF_INET6};
	struct sv_addr other = {.family = AF_UNIX};

	EXPECT_TRUE(sv_addr_is_unspecified(&v4));
	EXPECT_TRUE(sv_addr_is_unspecified(&v6));
	EXPECT_FALSE(sv_addr_is_unspecified(&other));
	v4.bytes[3] = 1;
	v6.bytes[15] = 1;
	EXPECT_FALSE(sv_addr_is_unspecified(&v4));
	EXPECT_FALSE(sv_addr_is_unspecified(&v6));
	/* Bytes past an IPv4 address are not part of it. */
	v4.bytes[3] = 0;
	v4.bytes[8] = 1;
	EXPECT_TRUE(sv_addr_is_unspecified(&v4));
}
