/* Decoding of the agent's struct msghdr / struct mmsghdr (x86_64 layout) and
 * of control messages, from bytes already copied out of the agent. Pure. */
#ifndef SV_MSGHDR_H
#define SV_MSGHDR_H

#include <stddef.h>
#include <stdint.h>

#define SV_MSGHDR_SIZE 56  /* sizeof(struct msghdr) on x86_64 */
#define SV_MMSGHDR_SIZE 64 /* sizeof(struct mmsghdr) on x86_64 */
#define SV_UIO_MAXIOV 1024
/* MAX_RW_COUNT (INT_MAX & PAGE_MASK): the most one call moves. */
#define SV_MAX_RW_COUNT 0x7ffff000ULL
/* SCM_MAX_FD: the most descriptors one sendmsg passes (all SCM_RIGHTS). */
#define SV_SCM_MAX_FD 253

/* Agent-side pointers stay numbers: they are addresses in another process. */
struct sv_msg {
	uint64_t name;
	uint32_t namelen; /* already clamped as the kernel does */
	uint64_t iov;
	uint64_t iovlen;
	uint64_t control;
	uint64_t controllen;
	uint32_t flags;
};

struct sv_iov {
	uint64_t base;
	uint64_t len;
};

/* Decodes one msghdr from SV_MSGHDR_SIZE bytes and applies the kernel's own
 * checks (net/socket.c __copy_msghdr): a NULL name has length 0, a negative
 * length is -EINVAL, a length above 128 is clamped to 128, more than
 * SV_UIO_MAXIOV iovecs is -EMSGSIZE, controllen above INT_MAX is -ENOBUFS.
 * Returns 0 or that -errno (the agent's own mistake: an "invalid" call).
 * As in the kernel, a non-NULL name with length 0 comes out as name 0 (the
 * call goes to the connected peer). For a struct mmsghdr pass its first
 * SV_MSGHDR_SIZE bytes. Fewer than SV_MSGHDR_SIZE bytes (or buf NULL) is
 * -EFAULT. The kernel checks controllen only after importing the iovecs, so
 * when both are wrong it answers the iovec error (-EINVAL/-EFAULT) where this
 * answers -ENOBUFS; both are "invalid" and neither call is performed. */
int sv_msghdr_decode(const void *buf, size_t len, struct sv_msg *out);

/* Decodes n iovecs from n*16 bytes. Returns 0, or -EINVAL when the lengths
 * overflow ssize_t as the kernel checks. *total receives the byte total.
 * Exactly as lib/iov_iter.c: any single length above SSIZE_MAX is -EINVAL;
 * otherwise the total is capped at SV_MAX_RW_COUNT by shortening the segment
 * that crosses it and zeroing the ones after (out[] holds the shortened
 * lengths: copy and send exactly those), so the sum itself never overflows.
 * n above SV_UIO_MAXIOV is -EMSGSIZE; buf or out NULL with n > 0 is -EFAULT.
 * An unmapped base is not detected here: the copy out of the agent finds it. */
int sv_msghdr_decode_iov(const void *buf, size_t n, struct sv_iov *out, uint64_t *total);

/* Walks a copied control buffer. For each SOL_SOCKET/SCM_RIGHTS message calls
 * on_fds(ctx, fds, nfds) with a pointer into the buffer (the callback may
 * rewrite the descriptors in place). Returns 0, -EINVAL for a malformed
 * buffer (as the kernel would answer), -EPERM when it holds a message that
 * is not on the forwarding allow-list (SCM_RIGHTS; IP_TOS, IP_TTL,
 * IP_PKTINFO; IPV6_PKTINFO, IPV6_HOPLIMIT, IPV6_TCLASS; UDP_SEGMENT):
 * source routes, SCM_CREDENTIALS and SO_MARK are refused, since the
 * supervisor's own privileges would vouch for them; or the first non-zero
 * value on_fds returns.
 * Messages are visited in order and the walk stops at the first error, as
 * __scm_send does, so on_fds may already have run for earlier messages when
 * an error comes back: whatever it acquired is the caller's to release.
 * Malformed: cmsg_len below 16 or past the end of the buffer. More than
 * SV_SCM_MAX_FD descriptors in all is -ETOOMANYREFS, returned only when the
 * rest of the walk finds nothing else: it is AF_UNIX's EINVAL (scm_fp_copy),
 * while every other family ignores SCM_RIGHTS (__sock_cmsg_send), so the
 * caller decides by the socket; on_fds is not called for the message that
 * crosses the limit nor for any rights after it. A SCM_RIGHTS message with no whole int
 * is skipped, trailing bytes too short for a header end the walk. buf must be 8-byte aligned
 * (malloc'd) so the int pointers handed to on_fds are aligned; on_fds may be NULL. */
int sv_msghdr_walk_control(void *buf, size_t len, int (*on_fds)(void *ctx, int *fds, size_t nfds),
			   void *ctx);

/* The walk without a callback, for a message whose destination is known:
 * with loopback_dest set, an IP_PKTINFO or IPV6_PKTINFO naming lo (index 1)
 * is forwarded, as the kernel routes a loopback destination by lo anyway.
 * Same returns as sv_msghdr_walk_control. */
int sv_msghdr_check_control(void *buf, size_t len, int loopback_dest);

/* One SCM_CREDENTIALS message of pid, uid and gid (CMSG_SPACE: 32 bytes)
 * followed by the len bytes of control (the kernel's layout; len may be 0)
 * as they are: the kernel reads the agent's bytes after it exactly as it
 * would alone, a tail it ignores included. In *out (malloc'd, the
 * caller's to free) and *outlen. Pure. Returns 0 or -ENOMEM. */
int sv_msghdr_prepend_creds(const void *control, size_t len, int32_t pid, uint32_t uid,
			    uint32_t gid, void **out, size_t *outlen);

#endif
