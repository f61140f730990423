/* Decoding of the agent's struct msghdr / struct mmsghdr (x86_64 layout) and
 * of control messages, from bytes already copied out of the agent. Pure. */
#ifndef SV_MSGHDR_H
#define SV_MSGHDR_H

#include <stddef.h>
#include <stdint.h>

#define SV_MSGHDR_SIZE 56  /* sizeof(struct msghdr) on x86_64 */
#define SV_MMSGHDR_SIZE 64 /* sizeof(struct mmsghdr) on x86_64 */
#define SV_UIO_MAXIOV 1024

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
 * Returns 0 or that -errno (the agent's own mistake: an "invalid" call). */
int sv_msghdr_decode(const void *buf, size_t len, struct sv_msg *out);

/* Decodes n iovecs from n*16 bytes. Returns 0, or -EINVAL when the lengths
 * overflow ssize_t as the kernel checks. *total receives the byte total. */
int sv_msghdr_decode_iov(const void *buf, size_t n, struct sv_iov *out, uint64_t *total);

/* Walks a copied control buffer. For each SOL_SOCKET/SCM_RIGHTS message calls
 * on_fds(ctx, fds, nfds) with a pointer into the buffer (the callback may
 * rewrite the descriptors in place). Returns 0, -EINVAL for a malformed
 * buffer (as the kernel would answer), or -EPERM when it holds
 * SCM_CREDENTIALS (refused: the supervisor would send its own credentials),
 * or the first non-zero value on_fds returns. */
int sv_msghdr_walk_control(void *buf, size_t len, int (*on_fds)(void *ctx, int *fds, size_t nfds),
			   void *ctx);

#endif
