/* libFuzzer target: sv_msghdr_decode and sv_msghdr_decode_iov
 * (supervisor/msghdr.h) on a msghdr and an iovec array the agent controls.
 *
 * Input: one byte h, then min(h % 65, what is left) bytes of header (a struct
 * msghdr is 56 bytes, a struct mmsghdr 64: shorter is the -EFAULT path), then
 * the iovec array: every whole 16 bytes that follow are one iovec. Both
 * buffers are exact-size copies (ASan sees a read past either), and so is
 * the output array of the iovec decoder (a write past n is seen too).
 * Properties are the header's contract, which follows the kernel's
 * __copy_msghdr and __import_iovec: which -errno comes back for which field,
 * a valid call is never refused, the decoded fields are the raw ones or the
 * kernel's clamp of them, and the iovec lengths are the raw ones capped so
 * that their sum is exactly min(raw sum, SV_MAX_RW_COUNT). */
#include "fuzz.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>

#include "msghdr.h"

#define IOVEC_SIZE 16

static void check_msghdr(const uint8_t *b, size_t len)
{
	struct sv_msg m;
	int rc = sv_msghdr_decode(b, len, &m);
	uint64_t name, iov, iovlen, control, controllen;
	int32_t namelen;
	uint32_t flags;
	bool name_ok, valid;

	if (len < SV_MSGHDR_SIZE) {
		FUZZ_CHECK(rc == -EFAULT);
		return;
	}
	/* The x86_64 layout, offsets written out independently of the module. */
	name = sv_load64(b);
	namelen = (int32_t)sv_load32(b + 8);
	iov = sv_load64(b + 16);
	iovlen = sv_load64(b + 24);
	control = sv_load64(b + 32);
	controllen = sv_load64(b + 40);
	flags = sv_load32(b + 48);

	/* A NULL name has no length, whatever the length field says. */
	name_ok = name == 0 || namelen >= 0;
	valid = name_ok && iovlen <= SV_UIO_MAXIOV && controllen <= INT_MAX;
	FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -EMSGSIZE || rc == -ENOBUFS);
	FUZZ_CHECK((rc == 0) == valid);
	if (rc == -EINVAL)
		FUZZ_CHECK(!name_ok);
	if (rc == -EMSGSIZE)
		FUZZ_CHECK(iovlen > SV_UIO_MAXIOV);
	if (rc == -ENOBUFS)
		FUZZ_CHECK(controllen > INT_MAX);
	if (rc != 0)
		return;
	FUZZ_CHECK(m.iov == iov && m.iovlen == iovlen);
	FUZZ_CHECK(m.control == control && m.controllen == controllen);
	FUZZ_CHECK(m.flags == flags);
	if (name == 0 || namelen == 0) {
		/* No name: the call goes to the connected peer. */
		FUZZ_CHECK(m.name == 0 && m.namelen == 0);
	} else {
		FUZZ_CHECK(m.name == name);
		FUZZ_CHECK(m.namelen == (namelen > 128 ? 128u : (uint32_t)namelen));
	}
}

/* The two refusals that come before any byte is read: too many iovecs
 * (b holds only n of them), no buffer. */
static void check_iov_refusals(const uint8_t *b, size_t n, struct sv_iov *out)
{
	uint64_t total;

	FUZZ_CHECK(sv_msghdr_decode_iov(b, SV_UIO_MAXIOV + 1 + n, out, &total) == -EMSGSIZE);
	if (n > 0)
		FUZZ_CHECK(sv_msghdr_decode_iov(NULL, n, out, &total) == -EFAULT);
}

static void check_iov(const uint8_t *b, size_t n)
{
	struct sv_iov *out = malloc(n * sizeof(*out));
	uint64_t total = ~(uint64_t)0;
	uint64_t sum = 0;
	bool negative = false;
	int rc;

	FUZZ_CHECK(out != NULL);
	for (size_t i = 0; i < n; i++)
		negative |= sv_load64(b + i * IOVEC_SIZE + 8) > (uint64_t)INT64_MAX;
	rc = sv_msghdr_decode_iov(b, n, out, &total);
	/* Any length above SSIZE_MAX anywhere is -EINVAL, before any capping. */
	FUZZ_CHECK(rc == (negative ? -EINVAL : 0));
	if (rc != 0) {
		free(out);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t raw = sv_load64(b + i * IOVEC_SIZE + 8);
		uint64_t room = SV_MAX_RW_COUNT - sum;

		FUZZ_CHECK(out[i].base == sv_load64(b + i * IOVEC_SIZE));
		/* Whole while the total fits, shortened where it crosses the
		 * cap, empty after. */
		FUZZ_CHECK(out[i].len == (raw < room ? raw : room));
		sum += out[i].len;
	}
	FUZZ_CHECK(sum <= SV_MAX_RW_COUNT && total == sum);
	check_iov_refusals(b, n, out);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t hlen, n;
	uint8_t *hdr, *iov;

	if (size == 0)
		return 0;
	hlen = data[0] % (SV_MMSGHDR_SIZE + 1);
	if (hlen > size - 1)
		hlen = size - 1;
	n = (size - 1 - hlen) / IOVEC_SIZE;
	hdr = fuzz_dup(data + 1, hlen);
	iov = fuzz_dup(data + 1 + hlen, n * IOVEC_SIZE);
	check_msghdr(hdr, hlen);
	check_iov(iov, n);
	free(hdr);
	free(iov);
	return 0;
}
