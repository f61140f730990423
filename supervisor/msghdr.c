/* Decoding of the agent's msghdr, iovec array and control messages. Pure.
 *
 * Every check mirrors the kernel's so that a call the kernel would refuse gets
 * the kernel's errno, and a call it would accept is never refused: net/socket.c
 * (__copy_msghdr, ____sys_sendmsg), lib/iov_iter.c (__import_iovec) and
 * net/core/scm.c (__scm_send, scm_fp_copy). Fields are read at fixed x86_64
 * offsets with memcpy: the bytes come from another process and need not be
 * aligned. */
#include "msghdr.h"

#include "bytes.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* x86_64 struct msghdr offsets. */
#define OFF_NAME 0
#define OFF_NAMELEN 8
#define OFF_IOV 16
#define OFF_IOVLEN 24
#define OFF_CONTROL 32
#define OFF_CONTROLLEN 40
#define OFF_FLAGS 48

#define IOVEC_SIZE 16

/* x86_64 struct cmsghdr: size_t cmsg_len; int cmsg_level; int cmsg_type. */
#define CMSG_HDR_SIZE 16
#define CMSG_ALIGN_TO 8

/* Stable kernel ABI values, spelled out so the walker does not depend on
 * which libc headers the build happens to use. */
#define K_SOL_SOCKET 1
#define K_SCM_RIGHTS 1
#define K_SCM_CREDENTIALS 2

/* sizeof(struct sockaddr_storage): the kernel clamps msg_namelen to it. */
#define NAME_MAX_LEN 128

int sv_msghdr_decode(const void *buf, size_t len, struct sv_msg *out)
{
	const uint8_t *b = buf;
	int32_t namelen;

	memset(out, 0, sizeof(*out));
	if (b == NULL || len < SV_MSGHDR_SIZE)
		return -EFAULT;
	out->name = sv_load64(b + OFF_NAME);
	/* msg_namelen is an int in the ABI: a "huge" unsigned value is a
	 * negative length to the kernel. */
	namelen = (int32_t)sv_load32(b + OFF_NAMELEN);
	out->iov = sv_load64(b + OFF_IOV);
	out->iovlen = sv_load64(b + OFF_IOVLEN);
	out->control = sv_load64(b + OFF_CONTROL);
	out->controllen = sv_load64(b + OFF_CONTROLLEN);
	out->flags = sv_load32(b + OFF_FLAGS);

	/* Same order as __copy_msghdr: the NULL name zeroes the length before
	 * the sign check, so (NULL, -1) is accepted. */
	if (out->name == 0)
		namelen = 0;
	if (namelen < 0)
		return -EINVAL;
	if (namelen > NAME_MAX_LEN)
		namelen = NAME_MAX_LEN;
	/* A name with length 0 is no name: the kernel sends to the connected
	 * peer, and so must the supervisor's judgement. */
	if (namelen == 0)
		out->name = 0;
	out->namelen = (uint32_t)namelen;
	if (out->iovlen > SV_UIO_MAXIOV)
		return -EMSGSIZE;
	/* ____sys_sendmsg checks this after importing the iovecs; see the
	 * contract in msghdr.h for the one ordering difference. */
	if (out->controllen > INT_MAX)
		return -ENOBUFS;
	return 0;
}

int sv_msghdr_decode_iov(const void *buf, size_t n, struct sv_iov *out, uint64_t *total)
{
	const uint8_t *b = buf;
	uint64_t sum = 0;

	if (total != NULL)
		*total = 0;
	if (n > SV_UIO_MAXIOV)
		return -EMSGSIZE;
	if (n > 0 && (b == NULL || out == NULL))
		return -EFAULT;
	/* copy_iovec_from_user rejects every negative length before any
	 * segment is used, so an EINVAL anywhere wins over the rest. */
	for (size_t i = 0; i < n; i++) {
		out[i].base = sv_load64(b + i * IOVEC_SIZE);
		out[i].len = sv_load64(b + i * IOVEC_SIZE + 8);
		if (out[i].len > (uint64_t)INT64_MAX)
			return -EINVAL;
	}
	/* The kernel never overflows ssize_t: it caps the total at MAX_RW_COUNT
	 * by shortening the segment that crosses it (and zeroing the rest). */
	for (size_t i = 0; i < n; i++) {
		if (out[i].len > SV_MAX_RW_COUNT - sum)
			out[i].len = SV_MAX_RW_COUNT - sum;
		sum += out[i].len;
	}
	if (total != NULL)
		*total = sum;
	return 0;
}

/* Control messages the supervisor forwards when it sends for the agent:
 * descriptors (translated) and per-packet settings that do not change where
 * the packet goes. Everything else is refused: source routes (IP_RETOPTS,
 * IPV6_RTHDR, IPV6_DSTOPTS...), SCM_CREDENTIALS and SO_MARK, which the
 * supervisor's own privileges would otherwise vouch for. */
static int cmsg_allowed(int32_t level, int32_t type)
{
	switch (level) {
	case K_SOL_SOCKET:
#ifndef SV_MUTANT_TIMING_CMSG_DENIED
		/* SO_TIMESTAMPING (old 37, new 65: the send's tsflags, its
		 * timestamps to the agent's own error queue) and SCM_TXTIME (61:
		 * when, not where: QUIC senders pace with it) only time the send
		 * (__sock_cmsg_send); review h-realprog5 found them denied.
		 * MUTANT timing-cmsg-denied: denied again. */
		if (type == 37 || type == 65 || type == 61)
			return 1;
#endif
		return type == K_SCM_RIGHTS;
	case 0: /* IPPROTO_IP: IP_TOS, IP_TTL, IP_PKTINFO */
		return type == 1 || type == 2 || type == 8;
	case 41: /* IPPROTO_IPV6: IPV6_PKTINFO, IPV6_HOPLIMIT, IPV6_TCLASS */
#ifndef SV_MUTANT_TIMING_CMSG_DENIED
		/* IPV6_DONTFRAG (62): fragment or EMSGSIZE, nothing of where
		 * (ip6_datagram_send_ctl). */
		if (type == 62)
			return 1;
#endif
		return type == 50 || type == 52 || type == 67;
	case 17: /* SOL_UDP: UDP_SEGMENT */
		return type == 103;
	default:
		return 0;
	}
}

/* IP_PKTINFO and IPV6_PKTINFO also name an output interface: where no route
 * leads to the address through it, IPv4 takes the address for on-link
 * there (review h-attack12), and an IPv4-mapped send reads IPV6_PKTINFO
 * the same way (ip_cmsg_send). The source half stays: bind() chooses it
 * as well. A nonzero ifindex the message holds whole is refused, but lo's
 * (1 in every network namespace) for a loopback destination, which the
 * kernel routes by lo anyway: a UDP server answering with the IP_PKTINFO
 * its recvmsg gave. */
static int names_interface(const uint8_t *m, uint64_t clen, int32_t level, int32_t type,
			   int loopback_dest)
{
	uint32_t idx;

#ifdef SV_MUTANT_PKTINFO_IFINDEX_KEPT
	/* MUTANT pktinfo-ifindex-kept: the interface a control message names
	 * is forwarded. */
	(void)m;
	(void)clen;
	(void)level;
	(void)type;
	(void)loopback_dest;
	(void)idx;
	return 0;
#endif
	/* struct in_pktinfo: ipi_ifindex first; struct in6_pktinfo: after the
	 * 16-byte address. */
	size_t at = level == 0 && type == 8 ? 0 : level == 41 && type == 50 ? 16 : SIZE_MAX;

	if (at == SIZE_MAX || clen < CMSG_HDR_SIZE + at + 4)
		return 0;
	idx = sv_load32(m + CMSG_HDR_SIZE + at);
	return idx != 0 && !(idx == 1 && loopback_dest);
}

static int walk(void *buf, size_t len, int loopback_dest,
		int (*on_fds)(void *ctx, int *fds, size_t nfds), void *ctx)
{
	uint8_t *b = buf;
	size_t off = 0;
	size_t fds_seen = 0;
	int over = 0;

	/* CMSG_FIRSTHDR: a buffer shorter than one header holds no message. */
	if (b == NULL || len < CMSG_HDR_SIZE)
		return 0;
	for (;;) {
		uint64_t clen = sv_load64(b + off);
		int32_t level = (int32_t)sv_load32(b + off + 8);
		int32_t type = (int32_t)sv_load32(b + off + 12);
		uint64_t step;

		/* CMSG_OK: the header fits and the message stays in bounds. */
		if (clen < CMSG_HDR_SIZE || clen > len - off)
			return -EINVAL;
		if (!cmsg_allowed(level, type) ||
		    names_interface(b + off, clen, level, type, loopback_dest))
			return -EPERM;
		if (level == K_SOL_SOCKET && type == K_SCM_RIGHTS) {
			/* scm_fp_copy: trailing bytes short of an int are
			 * ignored, an empty list is no list, and one call
			 * carries at most SCM_MAX_FD descriptors in all. */
			size_t nfds = (size_t)(clen - CMSG_HDR_SIZE) / sizeof(int);

			if (nfds > 0 && !over && nfds > SV_SCM_MAX_FD - fds_seen)
				/* AF_UNIX's EINVAL only: every other family
				 * ignores SCM_RIGHTS, so the walk goes on for
				 * what it does read (review h-attack5). */
				over = 1;
			if (nfds > 0 && !over) {
				fds_seen += nfds;
				if (on_fds != NULL) {
					int rc = on_fds(
					    ctx, (int *)(void *)(b + off + CMSG_HDR_SIZE), nfds);

					if (rc != 0)
						return rc;
				}
			}
		}
		/* __cmsg_nxthdr: the next header must fit whole, or the walk
		 * ends; clen <= len - off, so the alignment cannot overflow. */
		step = (clen + CMSG_ALIGN_TO - 1) & ~(uint64_t)(CMSG_ALIGN_TO - 1);
		if (step > len - off || len - off - step < CMSG_HDR_SIZE)
			return over ? -ETOOMANYREFS : 0;
		off += step;
	}
}

int sv_msghdr_walk_control(void *buf, size_t len, int (*on_fds)(void *ctx, int *fds, size_t nfds),
			   void *ctx)
{
	return walk(buf, len, 0, on_fds, ctx);
}

int sv_msghdr_check_control(void *buf, size_t len, int loopback_dest)
{
	return walk(buf, len, loopback_dest, NULL, NULL);
}

int sv_msghdr_prepend_creds(const void *control, size_t len, int32_t pid, uint32_t uid,
			    uint32_t gid, void **out, size_t *outlen)
{
	/* struct cmsghdr: a 64-bit length, level, type; then struct ucred, the
	 * whole padded to 8 bytes (CMSG_SPACE of 12). */
	const size_t hdr = 16, data = 12, space = hdr + 16;
	const uint64_t clen = hdr + data;
	const int32_t lt[2] = {K_SOL_SOCKET, K_SCM_CREDENTIALS};
	const uint32_t cred[3] = {(uint32_t)pid, uid, gid};
	uint8_t *b = calloc(1, space + len + 8);
	size_t at;

	if (!b)
		return -ENOMEM;
		/* Ours first, the agent's bytes after it exactly as they were: the
		 * kernel then reads them at the same offsets modulo its alignment and
		 * up to the same end, as the walk did. After them, bytes the walk and
		 * the kernel both ignore (a tail shorter than one header) were padded
		 * and completed by ours into a header the kernel read whole: an
		 * SCM_RIGHTS whose descriptor numbers were our bytes, 28, 0, 1 and 2
		 * of our own table, sent to the agent (review h-attack53,
		 * ha53-fdleak.sh). */
#ifdef SV_MUTANT_CREDS_APPENDED
	/* MUTANT creds-appended: ours after the agent's, padded to the
	 * kernel's alignment, as in 9605a0a. */
	if (len)
		memcpy(b, control, len);
	at = (len + 7) & ~(size_t)7;
	*outlen = at + space;
#else
	if (len)
		memcpy(b + space, control, len);
	at = 0;
	*outlen = space + len;
#endif
	memcpy(b + at, &clen, sizeof(clen));
	memcpy(b + at + 8, lt, sizeof(lt));
	memcpy(b + at + hdr, cred, sizeof(cred));
	*out = b;
	return 0;
}
