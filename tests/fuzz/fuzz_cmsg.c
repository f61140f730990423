/* libFuzzer target: sv_msghdr_walk_control (supervisor/msghdr.h) on a control
 * buffer the agent controls.
 *
 * Input: byte 0 is the SCM_RIGHTS message (1-based) at which the callback
 * fails (0: never), bit 0 of byte 1 passes no callback at all; the rest is
 * the control buffer, copied to a malloc'd buffer of exactly its length (ASan
 * sees a read past it; malloc gives the 8-byte alignment the walker needs).
 * The walk is compared with a model written from the kernel's own walk
 * (include/linux/socket.h for_each_cmsghdr / __cmsg_nxthdr / CMSG_OK,
 * net/core/scm.c __scm_send and scm_fp_copy) and the header's forwarding
 * allow-list spelled with the libc's constants: the same return value, and
 * the callback called for exactly the same messages, each with a pointer to
 * that message's descriptors inside the buffer, int-aligned. */
#include "fuzz.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdbool.h>
#include <sys/socket.h>

#include "msghdr.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

#define HDR 16
#define ALIGN8(x) (((x) + 7) & ~(uint64_t)7)
/* What the callback answers at the chosen message: a value the walker itself
 * never returns, so the model can tell it passed through. */
#define INJECTED (-EBADF)
#define MAX_CALLS (SV_SCM_MAX_FD + 1)

struct call {
	size_t off; /* of the message header */
	size_t nfds;
};

struct walk {
	const uint8_t *buf;
	size_t len;
	unsigned fail_at;
	size_t ncalls;
	struct call calls[MAX_CALLS];
};

static bool forwarded(int32_t level, int32_t type)
{
	switch (level) {
	case SOL_SOCKET: /* and SO_TIMESTAMPING old and new, SCM_TXTIME */
		return type == SCM_RIGHTS || type == 37 || type == 65 || type == 61;
	case IPPROTO_IP:
		return type == IP_TOS || type == IP_TTL || type == IP_PKTINFO;
	case IPPROTO_IPV6: /* and IPV6_DONTFRAG (62) */
		return type == IPV6_PKTINFO || type == IPV6_HOPLIMIT || type == IPV6_TCLASS ||
		       type == 62;
	case IPPROTO_UDP:
		return type == UDP_SEGMENT;
	default:
		return false;
	}
}

/* Whether a PKTINFO message names an output interface: struct in_pktinfo
 * holds ipi_ifindex first, struct in6_pktinfo after its 16-byte address;
 * a message too short for the field names none (the kernel's EINVAL). */
static bool names_interface(const uint8_t *m, uint64_t clen, int32_t level, int32_t type)
{
	size_t at;

	if (level == IPPROTO_IP && type == IP_PKTINFO)
		at = 0;
	else if (level == IPPROTO_IPV6 && type == IPV6_PKTINFO)
		at = 16;
	else
		return false;
	return clen >= HDR + at + 4 && sv_load32(m + HDR + at) != 0;
}

/* The kernel's walk: a first header if the buffer holds one; each message
 * must satisfy CMSG_OK; the next header exists only if it fits whole after
 * the aligned length. */
static int model(const uint8_t *b, size_t len, unsigned fail_at, struct walk *w)
{
	size_t fds = 0;
	bool over = false;

	w->ncalls = 0;
	if (len < HDR)
		return 0;
	for (size_t off = 0;;) {
		uint64_t clen = sv_load64(b + off);
		int32_t level = (int32_t)sv_load32(b + off + 8);
		int32_t type = (int32_t)sv_load32(b + off + 12);

		/* CMSG_OK, in the kernel's form (off <= len - HDR here). */
		if (clen < HDR || clen > len - off)
			return -EINVAL;
		if (!forwarded(level, type) || names_interface(b + off, clen, level, type))
			return -EPERM;
		if (level == SOL_SOCKET && type == SCM_RIGHTS && (clen - HDR) / sizeof(int) > 0) {
			size_t n = (size_t)(clen - HDR) / sizeof(int);

			/* Past SCM_MAX_FD in all: AF_UNIX's EINVAL, told apart
			 * as -ETOOMANYREFS once the rest of the walk is clean
			 * (other families ignore SCM_RIGHTS); no callback for
			 * that message or any rights after it. */
			if (fds + n > SV_SCM_MAX_FD)
				over = true;
			if (!over) {
				fds += n;
				w->calls[w->ncalls++] = (struct call){off, n};
				if (w->ncalls == fail_at)
					return INJECTED;
			}
		}
		off += (size_t)ALIGN8(clen);
		if (off + HDR > len)
			return over ? -ETOOMANYREFS : 0;
	}
}

static int on_fds(void *ctx, int *fds, size_t nfds)
{
	struct walk *w = ctx;
	const uint8_t *p = (const uint8_t *)fds;
	size_t off;

	FUZZ_CHECK(p >= w->buf + HDR && p < w->buf + w->len);
	FUZZ_CHECK(((uintptr_t)p & (sizeof(int) - 1)) == 0);
	FUZZ_CHECK(nfds > 0 && nfds <= SV_SCM_MAX_FD);
	off = (size_t)(p - w->buf) - HDR;
	FUZZ_CHECK(nfds * sizeof(int) <= w->len - off - HDR);
	FUZZ_CHECK(sv_load32(w->buf + off + 8) == SOL_SOCKET);
	FUZZ_CHECK(sv_load32(w->buf + off + 12) == SCM_RIGHTS);
	FUZZ_CHECK(w->ncalls < MAX_CALLS);
	/* The callback may rewrite the descriptors in place (act.c translates
	 * them): write every one, so ASan checks each. */
	for (size_t i = 0; i < nfds; i++)
		fds[i] = ~fds[i];
	w->calls[w->ncalls++] = (struct call){off, nfds};
	return w->ncalls == w->fail_at ? INJECTED : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct walk seen, want;
	unsigned fail_at;
	bool no_callback;
	size_t len;
	uint8_t *buf, *pristine;
	int rc, expect;

	if (size < 2)
		return 0;
	fail_at = data[0];
	no_callback = data[1] & 1;
	len = size - 2;
	buf = fuzz_dup(data + 2, len);
	pristine = fuzz_dup(data + 2, len);

	seen = (struct walk){.buf = buf, .len = len, .fail_at = fail_at};
	rc = sv_msghdr_walk_control(buf, len, no_callback ? NULL : on_fds, &seen);
	expect = model(pristine, len, no_callback ? 0 : fail_at, &want);
	FUZZ_CHECK(rc == expect);
	if (!no_callback) {
		FUZZ_CHECK(seen.ncalls == want.ncalls);
		for (size_t i = 0; i < want.ncalls; i++) {
			FUZZ_CHECK(seen.calls[i].off == want.calls[i].off);
			FUZZ_CHECK(seen.calls[i].nfds == want.calls[i].nfds);
		}
	}
	free(buf);
	free(pristine);
	return 0;
}
