/* Decoding and printing of a sockaddr copied out of the agent. Pure.
 *
 * Fields are read at fixed offsets with memcpy rather than through struct
 * casts: the bytes come from another process, so neither alignment nor length
 * can be trusted. */
#include "sockaddr.h"

#include "bytes.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#ifndef AF_NETLINK
#define AF_NETLINK 16
#endif

/* The kernel's own minimum lengths: tcp_v4_connect / udp_sendmsg want a whole
 * sockaddr_in, tcp_v6_connect / udpv6_sendmsg want SIN6_LEN_RFC2133 (24, the
 * RFC 2133 sockaddr_in6 without sin6_scope_id). */
#define SIN_LEN 16
#define SIN6_LEN_RFC2133 24
/* sockaddr_nl: family, pad, pid, groups. Shorter names are denied rather than
 * judged on a pid the kernel would read from past the copied bytes. */
#define SNL_LEN 12

static bool is_v4_mapped(const uint8_t *b)
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	return memcmp(b, mapped, sizeof(mapped)) == 0;
}

static void decode_inet(const uint8_t *b, size_t len, struct sv_dest *out)
{
	if (len < SIN_LEN) {
		out->kind = SV_DEST_MALFORMED;
		return;
	}
	out->kind = SV_DEST_INET;
	out->addr.family = AF_INET;
	memcpy(out->addr.bytes, b + 4, 4);
	out->port = ntohs(sv_load16(b + 2));
}

static void decode_inet6(const uint8_t *b, size_t len, struct sv_dest *out)
{
	const uint8_t *a = b + 8;

	if (len < SIN6_LEN_RFC2133) {
		out->kind = SV_DEST_MALFORMED;
		return;
	}
	out->kind = SV_DEST_INET;
	out->port = ntohs(sv_load16(b + 2));
	if (len >= 28)
		out->scope_id = sv_load32(b + 24);
	/* The kernel routes ::ffff:a.b.c.d over IPv4 (ipv6_addr_v4mapped in
	 * tcp_v6_connect / udpv6_sendmsg), so that is how it is judged. */
	if (is_v4_mapped(a)) {
		out->addr.family = AF_INET;
		memcpy(out->addr.bytes, a + 12, 4);
		out->mapped = 1;
		return;
	}
	out->addr.family = AF_INET6;
	memcpy(out->addr.bytes, a, 16);
}

int sv_sockaddr_decode(const void *buf, size_t len, int none_if_null, struct sv_dest *out)
{
	const uint8_t *b = buf;

	memset(out, 0, sizeof(*out));
	out->family = -1;
	if (b == NULL) {
		/* A NULL buffer with a length is a caller bug; fail closed. */
		out->kind = none_if_null && len == 0 ? SV_DEST_NONE : SV_DEST_MALFORMED;
		return 0;
	}
	if (len < sizeof(uint16_t)) {
		out->kind = SV_DEST_MALFORMED;
		return 0;
	}
	if (len > SV_SOCKADDR_MAX)
		len = SV_SOCKADDR_MAX;
	out->family = sv_load16(b);
	switch (out->family) {
	case AF_INET:
		decode_inet(b, len, out);
		break;
	case AF_INET6:
		decode_inet6(b, len, out);
		break;
	case AF_UNSPEC:
		out->kind = SV_DEST_UNSPEC;
		break;
	case AF_UNIX:
		out->kind = SV_DEST_UNIX;
		break;
	case AF_NETLINK:
		out->kind = len < SNL_LEN ? SV_DEST_MALFORMED : SV_DEST_NETLINK;
		/* struct sockaddr_nl: family, pad, nl_pid at 4, nl_groups at 8. */
		if (out->kind == SV_DEST_NETLINK)
			out->netlink_peer = sv_load32(b + 4) != 0 || sv_load32(b + 8) != 0;
		break;
	default:
		out->kind = SV_DEST_UNSUPPORTED;
		break;
	}
	return 0;
}

/* Appends n bytes, printable ASCII as-is and everything else (and the
 * backslash, so the escape is unambiguous) as \xHH: a path or abstract name
 * may hold any byte and ends up in a terminal and a report. */
static int append_escaped(char *out, size_t outlen, size_t *o, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\') {
			if (*o + 1 >= outlen)
				return -ENOSPC;
			out[(*o)++] = (char)p[i];
		} else {
			if (*o + 4 >= outlen)
				return -ENOSPC;
			snprintf(out + *o, outlen - *o, "\\x%02x", p[i]);
			*o += 4;
		}
	}
	out[*o] = '\0';
	return 0;
}

static int format_unix(const uint8_t *b, size_t len, char *out, size_t outlen)
{
	const uint8_t *path = b + 2;
	size_t n;
	size_t o;
	int rc;

	if (b == NULL || len <= 2)
		return snprintf(out, outlen, "unix:unnamed");
	n = len - 2;
	o = (size_t)snprintf(out, outlen, "unix:");
	if (o >= outlen)
		return -ENOSPC;
	if (path[0] == '\0') {
		/* Abstract names are length-delimited: every byte counts,
		 * including further NULs. */
		if (o + 1 >= outlen)
			return -ENOSPC;
		out[o++] = '@';
		rc = append_escaped(out, outlen, &o, path + 1, n - 1);
	} else {
		/* The kernel terminates a pathname at the first NUL
		 * (unix_mkname_bsd). */
		const uint8_t *nul = memchr(path, 0, n);

		rc = append_escaped(out, outlen, &o, path, nul ? (size_t)(nul - path) : n);
	}
	return rc < 0 ? rc : (int)o;
}

static int format_inet(const struct sv_dest *d, char *out, size_t outlen)
{
	char text[INET6_ADDRSTRLEN];

	if (inet_ntop(d->addr.family, d->addr.bytes, text, sizeof(text)) == NULL)
		return -EINVAL;
	if (d->addr.family == AF_INET6)
		return snprintf(out, outlen, "[%s]:%u", text, d->port);
	return snprintf(out, outlen, "%s:%u", text, d->port);
}

int sv_dest_format(const struct sv_dest *d, const void *buf, size_t len, char *out, size_t outlen)
{
	const uint8_t *b = buf;
	int n;

	if (out == NULL || outlen == 0)
		return -ENOSPC;
	switch (d->kind) {
	case SV_DEST_NONE:
		n = snprintf(out, outlen, "none");
		break;
	case SV_DEST_INET:
		n = format_inet(d, out, outlen);
		break;
	case SV_DEST_UNSPEC:
		n = snprintf(out, outlen, "unspec");
		break;
	case SV_DEST_UNIX:
		n = format_unix(b, len > SV_SOCKADDR_MAX ? SV_SOCKADDR_MAX : len, out, outlen);
		break;
	case SV_DEST_NETLINK:
		if (b == NULL || len < SNL_LEN)
			return -EINVAL;
		n = sv_load32(b + 8) ? snprintf(out, outlen, "netlink:pid=%u,groups=0x%x",
						sv_load32(b + 4), sv_load32(b + 8))
				     : snprintf(out, outlen, "netlink:pid=%u", sv_load32(b + 4));
		break;
	case SV_DEST_UNSUPPORTED:
		n = snprintf(out, outlen, "family=%d", d->family);
		break;
	case SV_DEST_MALFORMED:
		n = snprintf(out, outlen, "malformed(len=%zu)", len);
		break;
	default:
		return -EINVAL;
	}
	if (n < 0)
		return n == -ENOSPC ? n : -EINVAL;
	if ((size_t)n >= outlen)
		return -ENOSPC;
	return n;
}

const char *sv_dest_family_name(const struct sv_dest *d, char *num, size_t numlen)
{
	int n;

	switch (d->family) {
	case -1:
		/* Nothing was read (no name, or under 2 bytes): the report
		 * writes null for an empty family. */
		return "";
	case AF_INET:
		return "inet";
	case AF_INET6:
		return "inet6";
	case AF_UNIX:
		return "unix";
	case AF_UNSPEC:
		return "unspec";
	case AF_NETLINK:
		return "netlink";
	default:
		break;
	}
	if (num == NULL)
		return "unknown";
	n = snprintf(num, numlen, "%d", d->family);
	if (n < 0 || (size_t)n >= numlen)
		return "unknown";
	return num;
}
