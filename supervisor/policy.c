/* Allow-list parsing and matching. Pure: no I/O, no state; the only allocation
 * is the rule array grown by sv_policy_add. */
#include "policy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* The longest valid SPEC is a bracketed 45-character IPv6 text with /128 and a
 * port range (63 characters); anything much longer is a mistake, and a bound
 * keeps every buffer below fixed-size. */
#define SPEC_MAX SV_POLICY_SPEC_MAX

/* Room for a spec quoted with every byte escaped as \xHH. */
#define QUOTED_MAX (SPEC_MAX * 4 + 8)

/* Numbers are read until the first non-digit but saturate here, so that a long
 * run of digits is reported as out of range rather than wrapping. */
#define NUM_SATURATE 1000000UL

/* strnlen without depending on the build's feature-test macros. */
static size_t bounded_len(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n] != '\0')
		n++;
	return n;
}

static void quote_spec(const char *spec, size_t n, char *out, size_t outlen)
{
	size_t o = 0;

	if (outlen == 0)
		return;
	for (size_t i = 0; i < n && o + 5 < outlen; i++) {
		unsigned char c = (unsigned char)spec[i];

		/* The spec is echoed to a terminal: never pass control bytes. */
		if (c >= 0x20 && c < 0x7f && c != '\\') {
			out[o++] = (char)c;
		} else {
			snprintf(out + o, outlen - o, "\\x%02x", c);
			o += 4;
		}
	}
	out[o] = '\0';
}

__attribute__((format(printf, 4, 5))) static int fail(char *err, size_t errlen, const char *spec,
						      const char *fmt, ...)
{
	char quoted[QUOTED_MAX];
	char msg[1024];
	size_t n = bounded_len(spec, SPEC_MAX + 1);
	const char *ellipsis = "";
	va_list ap;
	int off;

	if (err == NULL || errlen == 0)
		return -EINVAL;
	if (n > SPEC_MAX) {
		n = 40;
		ellipsis = "...";
	}
	quote_spec(spec, n, quoted, sizeof(quoted));
	off = snprintf(err, errlen, "--allow '%s%s': ", quoted, ellipsis);
	if (off < 0 || (size_t)off >= errlen)
		return -EINVAL;
	/* Fragments of the spec end up in the message too: escape it all. */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	quote_spec(msg, strlen(msg), err + off, errlen - (size_t)off);
	return -EINVAL;
}

static unsigned addr_bits(int family)
{
	return family == AF_INET ? 32 : 128;
}

static bool has_host_bits(const uint8_t *b, unsigned bits, unsigned prefix)
{
	for (unsigned i = prefix; i < bits; i++) {
		if (b[i / 8] & (0x80u >> (i % 8)))
			return true;
	}
	return false;
}

static void clear_host_bits(uint8_t *b, unsigned bits, unsigned prefix)
{
	for (unsigned i = prefix; i < bits; i++)
		b[i / 8] &= (uint8_t) ~(0x80u >> (i % 8));
}

static bool prefix_matches(const uint8_t *net, const uint8_t *a, unsigned prefix)
{
	unsigned full = prefix / 8;
	unsigned rest = prefix % 8;

	if (memcmp(net, a, full) != 0)
		return false;
	if (rest == 0)
		return true;
	uint8_t mask = (uint8_t)(0xffu << (8 - rest));
	return (net[full] & mask) == (a[full] & mask);
}

static bool is_v4_mapped(const uint8_t *b)
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	return memcmp(b, mapped, sizeof(mapped)) == 0;
}

/* Reads a run of decimal digits. Returns how many there were; *val saturates
 * at NUM_SATURATE. */
static size_t read_digits(const char *p, unsigned long *val)
{
	size_t n = 0;

	*val = 0;
	while (p[n] >= '0' && p[n] <= '9') {
		if (*val < NUM_SATURATE)
			*val = *val * 10 + (unsigned long)(p[n] - '0');
		n++;
	}
	if (*val > NUM_SATURATE)
		*val = NUM_SATURATE;
	return n;
}

/* Parses the address part; returns a pointer just past it, or NULL after
 * writing the error. */
static const char *parse_addr(const char *spec, struct sv_addr *a, char *err, size_t errlen)
{
	char text[SPEC_MAX + 1];
	size_t n;

	memset(a, 0, sizeof(*a));
	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');

		if (close == NULL) {
			fail(err, errlen, spec, "missing ']' after the IPv6 address");
			return NULL;
		}
		n = (size_t)(close - spec - 1);
		memcpy(text, spec + 1, n);
		text[n] = '\0';
		if (n == 0) {
			fail(err, errlen, spec, "empty brackets (expected an IPv6 address)");
			return NULL;
		}
		if (inet_pton(AF_INET6, text, a->bytes) != 1) {
			uint8_t v4[4];

			if (inet_pton(AF_INET, text, v4) == 1)
				fail(err, errlen, spec,
				     "IPv4 address in brackets (brackets are only for IPv6: write "
				     "%s)",
				     text);
			else
				fail(err, errlen, spec, "'%s' is not an IPv6 address", text);
			return NULL;
		}
		a->family = AF_INET6;
		return close + 1;
	}

	n = strcspn(spec, "/:");
	memcpy(text, spec, n);
	text[n] = '\0';
	if (n == 0 || inet_pton(AF_INET, text, a->bytes) != 1) {
		char v6[SPEC_MAX + 1];
		uint8_t scratch[16];
		size_t m = strcspn(spec, "/");

		/* An unbracketed IPv6 address is the likely mistake when the
		 * text up to the prefix parses as one. */
		memcpy(v6, spec, m);
		v6[m] = '\0';
		if (inet_pton(AF_INET6, v6, scratch) == 1)
			fail(err, errlen, spec,
			     "IPv6 addresses must be in brackets (write [%s], and a port after "
			     "the bracket: [%s]:PORT)",
			     v6, v6);
		else if (n == 0)
			fail(err, errlen, spec, "missing address before '%c'", spec[0]);
		else
			fail(err, errlen, spec, "'%s' is not an IPv4 address", text);
		return NULL;
	}
	a->family = AF_INET;
	return spec + n;
}

static const char *parse_prefix(const char *spec, const char *p, unsigned bits, unsigned *prefix,
				char *err, size_t errlen)
{
	unsigned long v;
	size_t n;

	*prefix = bits;
	if (*p != '/')
		return p;
	p++;
	n = read_digits(p, &v);
	if (n == 0) {
		fail(err, errlen, spec, "missing prefix length after '/'");
		return NULL;
	}
	if (v > bits) {
		fail(err, errlen, spec, "prefix /%.*s is out of range 0..%u for %s", (int)n, p,
		     bits, bits == 32 ? "IPv4" : "IPv6");
		return NULL;
	}
	*prefix = (unsigned)v;
	return p + n;
}

static const char *parse_port(const char *spec, const char *p, char after, uint16_t *port,
			      char *err, size_t errlen)
{
	unsigned long v;
	size_t n = read_digits(p, &v);

	if (n == 0) {
		fail(err, errlen, spec, "missing port after '%c'", after);
		return NULL;
	}
	if (v == 0) {
		fail(err, errlen, spec, "port 0 is not a valid port (ports are 1..65535)");
		return NULL;
	}
	if (v > 65535) {
		fail(err, errlen, spec, "port %.*s is out of range 1..65535", (int)n, p);
		return NULL;
	}
	*port = (uint16_t)v;
	return p + n;
}

static const char *parse_ports(const char *spec, const char *p, struct sv_rule *r, char *err,
			       size_t errlen)
{
	r->port_lo = 0;
	r->port_hi = 65535;
	if (*p != ':')
		return p;
	p = parse_port(spec, p + 1, ':', &r->port_lo, err, errlen);
	if (p == NULL)
		return NULL;
	r->port_hi = r->port_lo;
	if (*p != '-')
		return p;
	p = parse_port(spec, p + 1, '-', &r->port_hi, err, errlen);
	if (p == NULL)
		return NULL;
	if (r->port_lo > r->port_hi) {
		fail(err, errlen, spec, "port range %u-%u is reversed (low port above high port)",
		     r->port_lo, r->port_hi);
		return NULL;
	}
	return p;
}

static int check_mapped(const char *spec, const struct sv_rule *r, char *err, size_t errlen)
{
	char v4[INET_ADDRSTRLEN];
	char suffix[16] = "";

	if (r->net.family != AF_INET6 || !is_v4_mapped(r->net.bytes))
		return 0;
	inet_ntop(AF_INET, r->net.bytes + 12, v4, sizeof(v4));
	if (r->prefix >= 96 && r->prefix < 128)
		snprintf(suffix, sizeof(suffix), "/%u", r->prefix - 96);
	return fail(err, errlen, spec,
		    "IPv4-mapped IPv6 address (destinations in ::ffff:0:0/96 are judged as "
		    "IPv4: write %s%s)",
		    v4, suffix);
}

static int check_host_bits(const char *spec, const struct sv_rule *r, char *err, size_t errlen)
{
	unsigned bits = addr_bits(r->net.family);
	struct sv_rule fixed;
	char canon[SPEC_MAX];

	if (!has_host_bits(r->net.bytes, bits, r->prefix))
		return 0;
	fixed = *r;
	clear_host_bits(fixed.net.bytes, bits, fixed.prefix);
	if (sv_policy_format_rule(&fixed, canon, sizeof(canon)) < 0)
		canon[0] = '\0';
	return fail(err, errlen, spec, "host bits set below /%u (did you mean %s?)", r->prefix,
		    canon);
}

int sv_policy_parse_spec(const char *spec, struct sv_rule *out, char *err, size_t errlen)
{
	struct sv_rule r;
	const char *p;
	int rc;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (spec == NULL || spec[0] == '\0')
		return fail(err, errlen, "",
			    "empty rule (expected ADDRESS[/PREFIX][:PORT[-PORT]], IPv6 in "
			    "brackets)");
	if (bounded_len(spec, SPEC_MAX + 1) > SPEC_MAX)
		return fail(err, errlen, spec, "longer than %d characters", SPEC_MAX);

	memset(&r, 0, sizeof(r));
	p = parse_addr(spec, &r.net, err, errlen);
	if (p == NULL)
		return -EINVAL;
	p = parse_prefix(spec, p, addr_bits(r.net.family), &r.prefix, err, errlen);
	if (p == NULL)
		return -EINVAL;
	p = parse_ports(spec, p, &r, err, errlen);
	if (p == NULL)
		return -EINVAL;
	if (*p != '\0')
		return fail(err, errlen, spec,
			    "unexpected '%s' at the end (expected ADDRESS[/PREFIX][:PORT[-PORT]])",
			    p);
	rc = check_mapped(spec, &r, err, errlen);
	if (rc < 0)
		return rc;
	rc = check_host_bits(spec, &r, err, errlen);
	if (rc < 0)
		return rc;
	if (out != NULL)
		*out = r;
	return 0;
}

int sv_policy_add(struct sv_policy *p, const struct sv_rule *r)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 8;
		struct sv_rule *grown;

		if (cap > SIZE_MAX / sizeof(*grown))
			return -ENOMEM;
		grown = realloc(p->rules, cap * sizeof(*grown));
		if (grown == NULL)
			return -ENOMEM;
		p->rules = grown;
		p->cap = cap;
	}
	p->rules[p->n++] = *r;
	return 0;
}

bool sv_addr_is_loopback(const struct sv_addr *a)
{
	static const uint8_t v6_loopback[16] = {[15] = 1};

	if (a->family == AF_INET)
		return a->bytes[0] == 127;
	return a->family == AF_INET6 && memcmp(a->bytes, v6_loopback, 16) == 0;
}

bool sv_addr_is_unspecified(const struct sv_addr *a)
{
	static const uint8_t zero[16];

	if (a->family == AF_INET)
		return memcmp(a->bytes, zero, 4) == 0;
	return a->family == AF_INET6 && memcmp(a->bytes, zero, 16) == 0;
}

static bool rule_matches(const struct sv_rule *r, const struct sv_addr *a, uint16_t port)
{
	if (r->net.family != a->family)
		return false;
	if (port < r->port_lo || port > r->port_hi)
		return false;
	return prefix_matches(r->net.bytes, a->bytes, r->prefix);
}

bool sv_policy_allows(const struct sv_policy *p, const struct sv_addr *addr, uint16_t port)
{
	struct sv_addr a = *addr;

	/* Callers convert mapped addresses already; doing it again here costs
	 * nothing and keeps a mapped address from slipping past as IPv6 (an
	 * [::]/0 rule would otherwise admit every IPv4 destination). */
	if (a.family == AF_INET6 && is_v4_mapped(a.bytes)) {
		memmove(a.bytes, a.bytes + 12, 4);
		memset(a.bytes + 4, 0, 12);
		a.family = AF_INET;
	}
	if (a.family != AF_INET && a.family != AF_INET6)
		return false;
	if (p->loopback && sv_addr_is_loopback(&a))
		return true;
	for (size_t i = 0; i < p->n; i++) {
		if (rule_matches(&p->rules[i], &a, port))
			return true;
	}
	return false;
}

int sv_policy_format_rule(const struct sv_rule *r, char *buf, size_t len)
{
	char text[INET6_ADDRSTRLEN];
	char prefix[8] = "";
	char ports[16] = "";
	unsigned bits;
	int n;

	if (r->net.family != AF_INET && r->net.family != AF_INET6)
		return -EINVAL;
	if (inet_ntop(r->net.family, r->net.bytes, text, sizeof(text)) == NULL)
		return -EINVAL;
	bits = addr_bits(r->net.family);
	if (r->prefix < bits)
		snprintf(prefix, sizeof(prefix), "/%u", r->prefix);
	if (r->port_lo == r->port_hi)
		snprintf(ports, sizeof(ports), ":%u", r->port_lo);
	else if (r->port_lo != 0 || r->port_hi != 65535)
		snprintf(ports, sizeof(ports), ":%u-%u", r->port_lo, r->port_hi);
	if (r->net.family == AF_INET)
		n = snprintf(buf, len, "%s%s%s", text, prefix, ports);
	else
		n = snprintf(buf, len, "[%s]%s%s", text, prefix, ports);
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	return n;
}

void sv_policy_free(struct sv_policy *p)
{
	free(p->rules);
	p->rules = NULL;
	p->n = 0;
	p->cap = 0;
}
