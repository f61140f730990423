/* libFuzzer target: the allow-list parser and matcher (supervisor/policy.h):
 * sv_policy_parse_spec, sv_policy_format_rule, sv_policy_add,
 * sv_policy_allows.
 *
 * Input: a flags byte (bit 0: loopback allowed; bits 1-3 pick the error
 * buffer's size), then text up to the first NUL: one SPEC per line, each
 * handed over as an exact-size NUL-terminated copy (ASan sees a read past
 * the NUL). After the NUL, 19-byte destination records: a selector, 16
 * address bytes, a port. Selector bits 0-1: IPv4, IPv6, IPv4-mapped IPv6, or
 * a family the matcher must refuse; bit 2 with bits 3-7: start from that
 * accepted rule's network and port range, so matches are common. The first
 * MAX_RULES lines and MAX_RECORDS records count.
 * Properties: a rejected spec is -EINVAL with a NUL-terminated, printable,
 * untruncated message; an accepted one is a valid rule (prefix in range, no
 * host bits, ports ordered, not IPv4-mapped) whose printed form re-parses to
 * the same rule and prints the same again; the policy printed back re-parses
 * to the same rules; and sv_policy_allows agrees, for every destination,
 * with a bit-by-bit model of the grammar's meaning (docs/design.md). */
#include "fuzz.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/socket.h>

#include "policy.h"

#define RECORD 19
/* Bounds on the work one input makes (the model compares bit by bit): more
 * lines or records than this are ignored. */
#define MAX_RULES 16
#define MAX_RECORDS 32

static const size_t errlens[8] = {0, 1, 2, 9, 40, 100, 300, SV_POLICY_ERR_MAX};
static const uint8_t mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

static unsigned bits_of(int family)
{
	return family == AF_INET ? 32 : 128;
}

static bool bit(const uint8_t *b, unsigned i)
{
	return (b[i / 8] >> (7 - i % 8)) & 1;
}

static void check_error_text(const char *err, size_t errlen)
{
	const char *nul;

	if (errlen == 0)
		return;
	nul = memchr(err, '\0', errlen);
	FUZZ_CHECK(nul != NULL);
	for (const char *p = err; p < nul; p++)
		FUZZ_CHECK(*p >= 0x20 && *p < 0x7f);
	if (errlen == SV_POLICY_ERR_MAX) {
		/* This size never truncates: the quoting stops 5 bytes short of
		 * the end when it runs out of room. */
		FUZZ_CHECK(strncmp(err, "--allow '", 9) == 0);
		FUZZ_CHECK((size_t)(nul - err) + 6 < errlen);
	}
}

static void check_rule(const struct sv_rule *r)
{
	unsigned bits = bits_of(r->net.family);
	char text[SV_POLICY_SPEC_MAX + 1];
	char text2[SV_POLICY_SPEC_MAX + 1];
	char err[SV_POLICY_ERR_MAX];
	struct sv_rule again;
	int n;

	FUZZ_CHECK(r->net.family == AF_INET || r->net.family == AF_INET6);
	FUZZ_CHECK(r->prefix <= bits);
	for (unsigned i = r->prefix; i < bits; i++)
		FUZZ_CHECK(!bit(r->net.bytes, i));
	FUZZ_CHECK(r->port_lo <= r->port_hi);
	FUZZ_CHECK(r->port_lo != 0 || r->port_hi == 65535);
	if (r->net.family == AF_INET6)
		FUZZ_CHECK(memcmp(r->net.bytes, mapped_prefix, 12) != 0);

	n = sv_policy_format_rule(r, text, sizeof(text));
	FUZZ_CHECK(n > 0 && (size_t)n < sizeof(text) && strlen(text) == (size_t)n);
	FUZZ_CHECK(sv_policy_format_rule(r, text2, (size_t)n) == -ENOSPC);
	FUZZ_CHECK(sv_policy_parse_spec(text, &again, err, sizeof(err)) == 0);
	FUZZ_CHECK(memcmp(&again, r, sizeof(*r)) == 0);
	/* Canonical: printing the re-parsed rule gives the same text. */
	FUZZ_CHECK(sv_policy_format_rule(&again, text2, sizeof(text2)) == n);
	FUZZ_CHECK(strcmp(text, text2) == 0);
}

/* The grammar's meaning, bit by bit: an IPv4-mapped address is its IPv4
 * tail; loopback is 127.0.0.0/8 and ::1 on every port; a rule matches its
 * family, its first prefix bits and its port range. */
static bool model_allows(const struct sv_rule *rules, size_t n, bool loopback,
			 const struct sv_addr *in, uint16_t port)
{
	static const uint8_t v6_loopback[16] = {[15] = 1};
	struct sv_addr a = *in;

	if (a.family == AF_INET6 && memcmp(a.bytes, mapped_prefix, 12) == 0) {
		a.family = AF_INET;
		memmove(a.bytes, a.bytes + 12, 4);
	}
	if (a.family != AF_INET && a.family != AF_INET6)
		return false;
	if (loopback &&
	    (a.family == AF_INET ? a.bytes[0] == 127 : memcmp(a.bytes, v6_loopback, 16) == 0))
		return true;
	for (size_t i = 0; i < n; i++) {
		const struct sv_rule *r = &rules[i];
		bool same = r->net.family == a.family && port >= r->port_lo && port <= r->port_hi;

		for (unsigned k = 0; same && k < r->prefix; k++)
			same = bit(r->net.bytes, k) == bit(a.bytes, k);
		if (same)
			return true;
	}
	return false;
}

static void destination(const uint8_t *rec, const struct sv_rule *rules, size_t n,
			struct sv_addr *a, uint16_t *port)
{
	uint8_t sel = rec[0];

	memset(a, 0, sizeof(*a));
	memcpy(a->bytes, rec + 1, 16);
	*port = (uint16_t)(rec[17] | rec[18] << 8);
	switch (sel & 3) {
	case 0:
		a->family = AF_INET;
		break;
	case 1:
		a->family = AF_INET6;
		break;
	case 2:
		a->family = AF_INET6;
		memcpy(a->bytes, mapped_prefix, 12);
		break;
	default:
		a->family = AF_UNIX; /* never allowed, loopback or not */
		return;
	}
	if ((sel & 4) && n > 0) {
		const struct sv_rule *r = &rules[(sel >> 3) % n];

		a->family = r->net.family;
		for (unsigned k = 0; k < r->prefix; k++) {
			uint8_t m = (uint8_t)(0x80u >> (k % 8));

			a->bytes[k / 8] =
			    (uint8_t)((a->bytes[k / 8] & ~m) | (r->net.bytes[k / 8] & m));
		}
		*port = (uint16_t)(r->port_lo + *port % (r->port_hi - r->port_lo + 1u));
	}
}

/* Prints every rule, parses the text back into a second policy: the same
 * rules, in order. */
static void check_printed_policy(const struct sv_policy *p, struct sv_policy *back)
{
	char text[SV_POLICY_SPEC_MAX + 1];
	char err[SV_POLICY_ERR_MAX];
	struct sv_rule r;

	for (size_t i = 0; i < p->n; i++) {
		FUZZ_CHECK(sv_policy_format_rule(&p->rules[i], text, sizeof(text)) > 0);
		FUZZ_CHECK(sv_policy_parse_spec(text, &r, err, sizeof(err)) == 0);
		FUZZ_CHECK(sv_policy_add(back, &r) == 0);
	}
	FUZZ_CHECK(back->n == p->n);
	FUZZ_CHECK(p->n == 0 || memcmp(back->rules, p->rules, p->n * sizeof(r)) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sv_policy p = {0}, back = {0};
	const uint8_t *text_end;
	size_t errlen, tlen;

	if (size == 0)
		return 0;
	p.loopback = data[0] & 1;
	errlen = errlens[(data[0] >> 1) & 7];
	text_end = memchr(data + 1, '\0', size - 1);
	if (text_end == NULL)
		text_end = data + size;
	tlen = (size_t)(text_end - data);

	for (size_t at = 1; at < tlen && p.n < MAX_RULES;) {
		const uint8_t *line = data + at;
		const uint8_t *nl = memchr(line, '\n', tlen - at);
		size_t len = nl ? (size_t)(nl - line) : tlen - at;
		char *spec = malloc(len + 1);
		char *err = malloc(errlen);
		struct sv_rule r;
		int rc;

		FUZZ_CHECK(spec != NULL && (err != NULL || errlen == 0));
		memcpy(spec, line, len);
		spec[len] = '\0';
		rc = sv_policy_parse_spec(spec, &r, errlen ? err : NULL, errlen);
		FUZZ_CHECK(rc == 0 || rc == -EINVAL);
		/* Without an output the parse validates only: the same answer. */
		FUZZ_CHECK(sv_policy_parse_spec(spec, NULL, NULL, 0) == rc);
		if (rc == 0) {
			FUZZ_CHECK(errlen == 0 || err[0] == '\0');
			check_rule(&r);
			FUZZ_CHECK(sv_policy_add(&p, &r) == 0);
		} else {
			check_error_text(err, errlen);
		}
		free(spec);
		free(err);
		at += len + 1;
	}

	check_printed_policy(&p, &back);
	back.loopback = p.loopback;
	for (size_t off = tlen + 1, k = 0; off + RECORD <= size && k < MAX_RECORDS;
	     off += RECORD, k++) {
		const uint8_t *rec = data + off;
		struct sv_addr a;
		uint16_t port;
		bool want;

		destination(rec, p.rules, p.n, &a, &port);
		want = model_allows(p.rules, p.n, p.loopback, &a, port);
		FUZZ_CHECK(sv_policy_allows(&p, &a, port) == want);
		FUZZ_CHECK(sv_policy_allows(&back, &a, port) == want);
	}
	sv_policy_free(&p);
	sv_policy_free(&back);
	return 0;
}
