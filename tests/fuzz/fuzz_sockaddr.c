/* libFuzzer target: sv_sockaddr_decode, sv_dest_format, sv_dest_family_name
 * (supervisor/sockaddr.h) on a name the agent controls.
 *
 * Input: one mode byte, then the name (at most SV_SOCKADDR_MAX bytes are
 * used: callers refuse longer names before decoding, as the kernel does).
 *   bit 0     pass a NULL name (the NULL-pointer path of sendto/sendmsg)
 *   bit 1     with bit 0: a NULL name that still has a length (a caller bug)
 *   bit 2     none_if_null
 *   bits 3-7  outlen for the format call: 0..15 as is (the cut-short
 *             paths), 16..31 as (value - 15) * 40 (40..640)
 * The name is copied to a buffer of exactly its length, so ASan sees any read
 * past it. Properties: the decoded kind is the one the header's contract and
 * the kernel's minimum lengths (16 for AF_INET, 24 for AF_INET6, 12 for
 * AF_NETLINK) give; an inet address and port are the bytes at their offsets
 * in the name (a mapped IPv6 name as its IPv4 tail); the printed text fits,
 * is printable ASCII, is cut only as -ENOSPC, and reads back as what was
 * decoded (inet text through inet_pton, a unix name by undoing \xHH); a
 * netlink name is a peer exactly when nl_pid or nl_groups is set. */
#include "fuzz.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <sys/socket.h>

#include "sockaddr.h"

/* Stable kernel ABI values, as the module spells them. */
#define K_AF_NETLINK 16

/* Room for the longest text: a 126-byte unix name with every byte escaped. */
#define TEXT_MAX 1024

static const uint8_t mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

static enum sv_dest_kind expected_kind(const uint8_t *b, size_t len, int none_if_null)
{
	uint16_t family;

	if (b == NULL)
		return none_if_null && len == 0 ? SV_DEST_NONE : SV_DEST_MALFORMED;
	if (len < 2)
		return SV_DEST_MALFORMED;
	memcpy(&family, b, 2);
	switch (family) {
	case AF_INET:
		return len < 16 ? SV_DEST_MALFORMED : SV_DEST_INET;
	case AF_INET6:
		return len < 24 ? SV_DEST_MALFORMED : SV_DEST_INET;
	case AF_UNSPEC:
		return SV_DEST_UNSPEC;
	case AF_UNIX:
		return SV_DEST_UNIX;
	case K_AF_NETLINK:
		return len < 12 ? SV_DEST_MALFORMED : SV_DEST_NETLINK;
	default:
		return SV_DEST_UNSUPPORTED;
	}
}

static void check_decode(const uint8_t *b, size_t len, int none_if_null, const struct sv_dest *d)
{
	FUZZ_CHECK(d->kind == expected_kind(b, len, none_if_null));
	if (b == NULL || len < 2) {
		FUZZ_CHECK(d->family == -1);
		return;
	}
	FUZZ_CHECK(d->family == (int)(b[0] | b[1] << 8));
	if (d->kind != SV_DEST_INET)
		return;
	FUZZ_CHECK(d->port == (uint16_t)(b[2] << 8 | b[3]));
	if (d->family == AF_INET) {
		FUZZ_CHECK(d->addr.family == AF_INET && d->mapped == 0);
		FUZZ_CHECK(memcmp(d->addr.bytes, b + 4, 4) == 0);
	} else if (memcmp(b + 8, mapped_prefix, 12) == 0) {
		/* Judged as the IPv4 address the kernel routes it to. */
		FUZZ_CHECK(d->addr.family == AF_INET && d->mapped == 1);
		FUZZ_CHECK(memcmp(d->addr.bytes, b + 20, 4) == 0);
	} else {
		FUZZ_CHECK(d->addr.family == AF_INET6 && d->mapped == 0);
		FUZZ_CHECK(memcmp(d->addr.bytes, b + 8, 16) == 0);
	}
}

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Undoes the \xHH escaping; returns the byte count or -1 when the text is not
 * a valid escaping (a bare backslash, a bad digit). */
static long unescape(const char *s, uint8_t *out, size_t outlen)
{
	size_t n = 0;

	while (*s) {
		int c = (unsigned char)*s;

		if (c == '\\') {
			int hi, lo;

			if (s[1] != 'x' || (hi = hex(s[2])) < 0 || (lo = hex(s[3])) < 0)
				return -1;
			c = hi << 4 | lo;
			s += 4;
		} else {
			s++;
		}
		if (n == outlen)
			return -1;
		out[n++] = (uint8_t)c;
	}
	return (long)n;
}

static void check_unix_text(const uint8_t *b, size_t len, const char *text)
{
	const uint8_t *path = b + 2;
	uint8_t back[SV_SOCKADDR_MAX];
	long n;

	if (len <= 2) {
		FUZZ_CHECK(strcmp(text, "unix:unnamed") == 0);
		return;
	}
	FUZZ_CHECK(strncmp(text, "unix:", 5) == 0);
	if (path[0] == '\0') {
		/* Abstract: every byte after the leading NUL, NULs included. */
		FUZZ_CHECK(text[5] == '@');
		n = unescape(text + 6, back, sizeof(back));
		FUZZ_CHECK(n == (long)(len - 3));
		FUZZ_CHECK(memcmp(back, path + 1, len - 3) == 0);
	} else {
		/* A pathname ends at its first NUL, as unix_mkname_bsd reads it. */
		const uint8_t *nul = memchr(path, 0, len - 2);
		size_t want = nul ? (size_t)(nul - path) : len - 2;

		n = unescape(text + 5, back, sizeof(back));
		FUZZ_CHECK(n == (long)want);
		FUZZ_CHECK(memcmp(back, path, want) == 0);
	}
}

static void check_inet_text(const struct sv_dest *d, const char *text)
{
	char addr[INET6_ADDRSTRLEN + 2];
	uint8_t back[16];
	const char *colon = strrchr(text, ':');
	size_t alen;
	unsigned long port;
	char *end;

	FUZZ_CHECK(colon != NULL);
	alen = (size_t)(colon - text);
	FUZZ_CHECK(alen < sizeof(addr));
	memcpy(addr, text, alen);
	addr[alen] = '\0';
	port = strtoul(colon + 1, &end, 10);
	FUZZ_CHECK(*end == '\0' && port == d->port);
	if (d->addr.family == AF_INET6) {
		FUZZ_CHECK(alen >= 2 && addr[0] == '[' && addr[alen - 1] == ']');
		addr[alen - 1] = '\0';
		FUZZ_CHECK(inet_pton(AF_INET6, addr + 1, back) == 1);
		FUZZ_CHECK(memcmp(back, d->addr.bytes, 16) == 0);
	} else {
		FUZZ_CHECK(inet_pton(AF_INET, addr, back) == 1);
		FUZZ_CHECK(memcmp(back, d->addr.bytes, 4) == 0);
	}
}

static void check_text(const struct sv_dest *d, const uint8_t *b, size_t len, const char *text)
{
	char want[64];

	for (const char *p = text; *p; p++)
		FUZZ_CHECK(*p >= 0x20 && *p < 0x7f);
	switch (d->kind) {
	case SV_DEST_NONE:
		FUZZ_CHECK(strcmp(text, "none") == 0);
		break;
	case SV_DEST_INET:
		check_inet_text(d, text);
		break;
	case SV_DEST_UNSPEC:
		FUZZ_CHECK(strcmp(text, "unspec") == 0);
		break;
	case SV_DEST_UNIX:
		check_unix_text(b, len, text);
		break;
	case SV_DEST_NETLINK:
		if (sv_load32(b + 8))
			snprintf(want, sizeof(want), "netlink:pid=%u,groups=0x%x", sv_load32(b + 4),
				 sv_load32(b + 8));
		else
			snprintf(want, sizeof(want), "netlink:pid=%u", sv_load32(b + 4));
		FUZZ_CHECK(strcmp(text, want) == 0);
		FUZZ_CHECK(d->netlink_peer == (sv_load32(b + 4) != 0 || sv_load32(b + 8) != 0));
		break;
	case SV_DEST_UNSUPPORTED:
		snprintf(want, sizeof(want), "family=%d", d->family);
		FUZZ_CHECK(strcmp(text, want) == 0);
		break;
	case SV_DEST_MALFORMED:
		snprintf(want, sizeof(want), "malformed(len=%zu)", len);
		FUZZ_CHECK(strcmp(text, want) == 0);
		break;
	}
}

/* Formats into a buffer of exactly outlen bytes and checks the contract:
 * the text fits with its NUL, or the answer is -ENOSPC; a buffer one byte
 * larger than the text is enough and gives the same text. */
static void check_format(const struct sv_dest *d, const uint8_t *b, size_t len, size_t outlen)
{
	char full[TEXT_MAX];
	char *out = malloc(outlen);
	int n, m;

	FUZZ_CHECK(out != NULL || outlen == 0);
	n = sv_dest_format(d, b, len, full, sizeof(full));
	FUZZ_CHECK(n >= 0 && (size_t)n < sizeof(full) && strlen(full) == (size_t)n);
	check_text(d, b, len, full);

	m = sv_dest_format(d, b, len, outlen ? out : NULL, outlen);
	if ((size_t)n < outlen)
		FUZZ_CHECK(m == n && strcmp(out, full) == 0);
	else
		FUZZ_CHECK(m == -ENOSPC);
	free(out);

	out = malloc((size_t)n + 1);
	FUZZ_CHECK(out != NULL);
	FUZZ_CHECK(sv_dest_format(d, b, len, out, (size_t)n + 1) == n);
	FUZZ_CHECK(strcmp(out, full) == 0);
	if (n > 0)
		FUZZ_CHECK(sv_dest_format(d, b, len, out, (size_t)n) == -ENOSPC);
	free(out);
}

static void check_family_name(const struct sv_dest *d)
{
	char num[12];
	char tiny[3];
	const char *s = sv_dest_family_name(d, num, sizeof(num));
	const char *t = sv_dest_family_name(d, tiny, sizeof(tiny));
	char want[12];

	FUZZ_CHECK(s != NULL && t != NULL && sv_dest_family_name(d, NULL, 0) != NULL);
	if (d->family == -1) {
		FUZZ_CHECK(*s == '\0');
		return;
	}
	if (s != num)
		return; /* a name from static storage ("inet", ...) */
	snprintf(want, sizeof(want), "%d", d->family);
	FUZZ_CHECK(strcmp(s, want) == 0);
	/* A number that does not fit is "unknown", never a cut number. */
	FUZZ_CHECK(strlen(want) < sizeof(tiny) ? strcmp(t, want) == 0 : strcmp(t, "unknown") == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mode;
	size_t len, outlen;
	uint8_t *name;
	const uint8_t *b;
	int none_if_null;
	struct sv_dest d;

	if (size == 0)
		return 0;
	mode = data[0];
	len = size - 1 > SV_SOCKADDR_MAX ? SV_SOCKADDR_MAX : size - 1;
	name = fuzz_dup(data + 1, len);
	b = name;
	if (mode & 1) {
		b = NULL;
		if (!(mode & 2))
			len = 0;
	}
	none_if_null = (mode >> 2) & 1;

	FUZZ_CHECK(sv_sockaddr_decode(b, len, none_if_null, &d) == 0);
	check_decode(b, len, none_if_null, &d);
	outlen = mode >> 3;
	if (outlen > 15)
		outlen = (outlen - 15) * 40;
	check_format(&d, b, len, outlen);
	check_family_name(&d);
	free(name);
	return 0;
}
