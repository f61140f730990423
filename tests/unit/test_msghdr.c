/* Unit tests for supervisor/msghdr.c: the kernel's msghdr, iovec and control
 * message checks, applied to bytes copied out of the agent. */
#include "harness.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "msghdr.h"

static void put64(uint8_t *b, size_t off, uint64_t v)
{
	memcpy(b + off, &v, sizeof(v));
}

static void put32(uint8_t *b, size_t off, uint32_t v)
{
	memcpy(b + off, &v, sizeof(v));
}

struct raw_msg {
	uint64_t name;
	uint32_t namelen;
	uint64_t iov, iovlen, control, controllen;
	uint32_t flags;
};

/* Lays out the x86_64 struct msghdr with explicit offsets, independently of
 * the module, so a wrong offset there cannot cancel out here. */
static void build_msg(uint8_t b[SV_MSGHDR_SIZE], const struct raw_msg *m)
{
	memset(b, 0xee, SV_MSGHDR_SIZE);
	put64(b, 0, m->name);
	put32(b, 8, m->namelen);
	put64(b, 16, m->iov);
	put64(b, 24, m->iovlen);
	put64(b, 32, m->control);
	put64(b, 40, m->controllen);
	put32(b, 48, m->flags);
}

TEST(msghdr_layout_matches_host_abi)
{
#if defined(__x86_64__) && !defined(__ILP32__)
	EXPECT_EQ(sizeof(struct msghdr), SV_MSGHDR_SIZE);
	EXPECT_EQ(sizeof(struct mmsghdr), SV_MMSGHDR_SIZE);
	EXPECT_EQ(offsetof(struct msghdr, msg_name), 0);
	EXPECT_EQ(offsetof(struct msghdr, msg_namelen), 8);
	EXPECT_EQ(offsetof(struct msghdr, msg_iov), 16);
	EXPECT_EQ(offsetof(struct msghdr, msg_iovlen), 24);
	EXPECT_EQ(offsetof(struct msghdr, msg_control), 32);
	EXPECT_EQ(offsetof(struct msghdr, msg_controllen), 40);
	EXPECT_EQ(offsetof(struct msghdr, msg_flags), 48);
	EXPECT_EQ(sizeof(struct iovec), 16);
	EXPECT_EQ(sizeof(struct cmsghdr), 16);
	EXPECT_EQ(CMSG_ALIGN(1), 8);
	EXPECT_EQ(SOL_SOCKET, 1);
	EXPECT_EQ(SCM_RIGHTS, 1);
	EXPECT_EQ(SCM_CREDENTIALS, 2);
	EXPECT_EQ(UIO_MAXIOV, SV_UIO_MAXIOV);
#else
	SKIP("host is not x86_64: the decoder's layout cannot be checked against it");
#endif
}

struct decode_case {
	const char *what;
	struct raw_msg in;
	int rc;
	uint64_t name;
	uint32_t namelen;
};

#define NAME 0x7ffc0000a000ULL

static const struct decode_case decode_cases[] = {
    {"name with sockaddr_in length", {NAME, 16, 0, 1, 0, 0, 0}, 0, NAME, 16},
    {"name at the clamp", {NAME, 128, 0, 1, 0, 0, 0}, 0, NAME, 128},
    {"name above the clamp", {NAME, 129, 0, 1, 0, 0, 0}, 0, NAME, 128},
    {"name far above the clamp", {NAME, INT_MAX, 0, 1, 0, 0, 0}, 0, NAME, 128},
    {"NULL name drops its length", {0, 16, 0, 1, 0, 0, 0}, 0, 0, 0},
    {"NULL name with negative length", {0, 0xffffffffu, 0, 1, 0, 0, 0}, 0, 0, 0},
    {"name with length 0 is no name", {NAME, 0, 0, 1, 0, 0, 0}, 0, 0, 0},
    {"negative name length", {NAME, 0xffffffffu, 0, 1, 0, 0, 0}, -EINVAL, NAME, 0},
    {"INT_MIN name length", {NAME, 0x80000000u, 0, 1, 0, 0, 0}, -EINVAL, NAME, 0},
    {"no iovecs", {0, 0, 0, 0, 0, 0, 0}, 0, 0, 0},
    {"UIO_MAXIOV iovecs", {0, 0, 0, SV_UIO_MAXIOV, 0, 0, 0}, 0, 0, 0},
    {"one iovec too many", {0, 0, 0, SV_UIO_MAXIOV + 1, 0, 0, 0}, -EMSGSIZE, 0, 0},
    {"iovlen with the top bit", {0, 0, 0, 1ULL << 63, 0, 0, 0}, -EMSGSIZE, 0, 0},
    {"iovlen all ones", {0, 0, 0, UINT64_MAX, 0, 0, 0}, -EMSGSIZE, 0, 0},
    {"controllen INT_MAX", {0, 0, 0, 1, 0x1000, INT_MAX, 0}, 0, 0, 0},
    {"controllen above INT_MAX", {0, 0, 0, 1, 0x1000, (uint64_t)INT_MAX + 1, 0}, -ENOBUFS, 0, 0},
    {"controllen all ones", {0, 0, 0, 1, 0x1000, UINT64_MAX, 0}, -ENOBUFS, 0, 0},
    {"bad namelen checked before iovlen", {NAME, 0xffffffffu, 0, 5000, 0, 0, 0}, -EINVAL, NAME, 0},
    {"iovlen checked before controllen", {0, 0, 0, 5000, 0, UINT64_MAX, 0}, -EMSGSIZE, 0, 0},
};

TEST(msghdr_decoded_with_kernel_checks)
{
	for (size_t i = 0; i < TH_ARRAY_SIZE(decode_cases); i++) {
		const struct decode_case *c = &decode_cases[i];
		uint8_t b[SV_MSGHDR_SIZE];
		struct sv_msg m;

		TH_CASE("case %zu: %s", i, c->what);
		build_msg(b, &c->in);
		EXPECT_EQ(sv_msghdr_decode(b, sizeof(b), &m), c->rc);
		if (c->rc != 0)
			continue;
		EXPECT_EQ(m.name, c->name);
		EXPECT_EQ(m.namelen, c->namelen);
		EXPECT_EQ(m.iovlen, c->in.iovlen);
		EXPECT_EQ(m.controllen, c->in.controllen);
	}
}

TEST(msghdr_fields_passed_through)
{
	struct raw_msg in = {NAME, 28, 0x7ffc0000b000ULL, 3, 0x7ffc0000c000ULL, 64, 0x8040};
	uint8_t b[SV_MMSGHDR_SIZE];
	struct sv_msg m;

	/* An mmsghdr starts with a msghdr; msg_len after it must not matter. */
	build_msg(b, &in);
	memset(b + SV_MSGHDR_SIZE, 0xff, SV_MMSGHDR_SIZE - SV_MSGHDR_SIZE);
	ASSERT_EQ(sv_msghdr_decode(b, sizeof(b), &m), 0);
	EXPECT_EQ(m.name, NAME);
	EXPECT_EQ(m.namelen, 28);
	EXPECT_EQ(m.iov, 0x7ffc0000b000ULL);
	EXPECT_EQ(m.iovlen, 3);
	EXPECT_EQ(m.control, 0x7ffc0000c000ULL);
	EXPECT_EQ(m.controllen, 64);
	EXPECT_EQ(m.flags, 0x8040);
}

TEST(msghdr_decode_fails_with_efault_when_short)
{
	uint8_t b[SV_MSGHDR_SIZE] = {0};
	struct sv_msg m;

	EXPECT_EQ(sv_msghdr_decode(b, SV_MSGHDR_SIZE - 1, &m), -EFAULT);
	EXPECT_EQ(sv_msghdr_decode(b, 0, &m), -EFAULT);
	EXPECT_EQ(sv_msghdr_decode(NULL, SV_MSGHDR_SIZE, &m), -EFAULT);
}

TEST(msghdr_decode_reads_unaligned_input)
{
	struct raw_msg in = {NAME, 16, 0x1000, 2, 0, 0, 0};
	uint8_t b[SV_MSGHDR_SIZE + 1];
	struct sv_msg m;

	build_msg(b + 1, &in);
	ASSERT_EQ(sv_msghdr_decode(b + 1, SV_MSGHDR_SIZE, &m), 0);
	EXPECT_EQ(m.name, NAME);
	EXPECT_EQ(m.iovlen, 2);
}

static void build_iov(uint8_t *b, const uint64_t (*iov)[2], size_t n)
{
	for (size_t i = 0; i < n; i++) {
		put64(b, i * 16, iov[i][0]);
		put64(b, i * 16 + 8, iov[i][1]);
	}
}

#define SSIZE_MAX_U ((uint64_t)INT64_MAX)

struct iov_case {
	const char *what;
	size_t n;
	uint64_t in[4][2];
	int rc;
	uint64_t total;
	uint64_t out_len[4];
};

static const struct iov_case iov_cases[] = {
    {"one segment", 1, {{0x1000, 10}}, 0, 10, {10}},
    {"two segments", 2, {{0x1000, 10}, {0x2000, 20}}, 0, 30, {10, 20}},
    {"empty segments", 3, {{0, 0}, {0x1000, 0}, {0x2000, 5}}, 0, 5, {0, 0, 5}},
    {"length SSIZE_MAX is capped",
     1,
     {{0x1000, SSIZE_MAX_U}},
     0,
     SV_MAX_RW_COUNT,
     {SV_MAX_RW_COUNT}},
    {"length SSIZE_MAX+1 is invalid", 1, {{0x1000, SSIZE_MAX_U + 1}}, -EINVAL, 0, {0}},
    {"length all ones is invalid", 1, {{0x1000, UINT64_MAX}}, -EINVAL, 0, {0}},
    {"invalid length after a valid one", 2, {{0x1000, 10}, {0x2000, UINT64_MAX}}, -EINVAL, 0, {0}},
    {"invalid length after one past the cap",
     3,
     {{0x1000, SSIZE_MAX_U}, {0x2000, 1}, {0x3000, SSIZE_MAX_U + 1}},
     -EINVAL,
     0,
     {0}},
    {"lengths summing past SSIZE_MAX are capped, not invalid",
     2,
     {{0x1000, SSIZE_MAX_U}, {0x2000, SSIZE_MAX_U}},
     0,
     SV_MAX_RW_COUNT,
     {SV_MAX_RW_COUNT, 0}},
    {"segment crossing the cap is shortened and the rest zeroed",
     4,
     {{0x1000, SV_MAX_RW_COUNT - 10}, {0x2000, 100}, {0x3000, 50}, {0x4000, 0}},
     0,
     SV_MAX_RW_COUNT,
     {SV_MAX_RW_COUNT - 10, 10, 0, 0}},
    {"exactly the cap",
     2,
     {{0x1000, SV_MAX_RW_COUNT - 1}, {0x2000, 1}},
     0,
     SV_MAX_RW_COUNT,
     {SV_MAX_RW_COUNT - 1, 1}},
};

TEST(iov_decoded_with_kernel_length_checks)
{
	for (size_t i = 0; i < TH_ARRAY_SIZE(iov_cases); i++) {
		const struct iov_case *c = &iov_cases[i];
		uint8_t b[4 * 16];
		struct sv_iov out[4];
		uint64_t total = 12345;

		TH_CASE("case %zu: %s", i, c->what);
		build_iov(b, c->in, c->n);
		EXPECT_EQ(sv_msghdr_decode_iov(b, c->n, out, &total), c->rc);
		if (c->rc != 0)
			continue;
		EXPECT_EQ(total, c->total);
		for (size_t k = 0; k < c->n; k++) {
			EXPECT_EQ(out[k].base, c->in[k][0]);
			EXPECT_EQ(out[k].len, c->out_len[k]);
		}
	}
}

TEST(iov_decode_accepts_zero_segments_without_buffers)
{
	uint64_t total = 99;

	EXPECT_EQ(sv_msghdr_decode_iov(NULL, 0, NULL, &total), 0);
	EXPECT_EQ(total, 0);
	EXPECT_EQ(sv_msghdr_decode_iov(NULL, 0, NULL, NULL), 0);
}

TEST(iov_decode_fails_when_count_or_buffers_wrong)
{
	struct sv_iov out[1];
	uint8_t b[16] = {0};

	EXPECT_EQ(sv_msghdr_decode_iov(b, SV_UIO_MAXIOV + 1, out, NULL), -EMSGSIZE);
	EXPECT_EQ(sv_msghdr_decode_iov(NULL, 1, out, NULL), -EFAULT);
	EXPECT_EQ(sv_msghdr_decode_iov(b, 1, NULL, NULL), -EFAULT);
}

TEST(iov_decode_handles_uio_maxiov_segments)
{
	uint8_t *b = calloc(SV_UIO_MAXIOV, 16);
	struct sv_iov *out = calloc(SV_UIO_MAXIOV, sizeof(*out));
	uint64_t total;

	ASSERT_TRUE(b != NULL && out != NULL);
	for (size_t i = 0; i < SV_UIO_MAXIOV; i++)
		put64(b, i * 16 + 8, 3);
	EXPECT_EQ(sv_msghdr_decode_iov(b, SV_UIO_MAXIOV, out, &total), 0);
	EXPECT_EQ(total, 3 * SV_UIO_MAXIOV);
	free(b);
	free(out);
}

/* Control buffers are built in 8-byte aligned storage, as a malloc'd copy
 * would be. */
struct ctl {
	_Alignas(8) uint8_t b[4096];
	size_t len;
};

static void add_cmsg(struct ctl *c, uint64_t clen, int level, int type, const int *fds, size_t nfds)
{
	put64(c->b, c->len, clen);
	put32(c->b, c->len + 8, (uint32_t)level);
	put32(c->b, c->len + 12, (uint32_t)type);
	if (nfds)
		memcpy(c->b + c->len + 16, fds, nfds * sizeof(int));
	c->len += (clen + 7) & ~(uint64_t)7;
}

static void add_rights(struct ctl *c, const int *fds, size_t nfds)
{
	add_cmsg(c, 16 + nfds * sizeof(int), SOL_SOCKET, SCM_RIGHTS, fds, nfds);
}

struct seen {
	size_t calls;
	size_t nfds[8];
	int first_fd[8];
	int rewrite; /* added to every descriptor, to show in-place edits */
	int fail_on_call;
	int fail_rc;
};

static int record_fds(void *ctx, int *fds, size_t nfds)
{
	struct seen *s = ctx;

	if (s->calls < 8) {
		s->nfds[s->calls] = nfds;
		s->first_fd[s->calls] = fds[0];
	}
	s->calls++;
	for (size_t i = 0; i < nfds; i++)
		fds[i] += s->rewrite;
	if (s->fail_on_call && (int)s->calls == s->fail_on_call)
		return s->fail_rc;
	return 0;
}

TEST(control_empty_or_short_holds_no_message)
{
	struct ctl c = {.len = 0};
	struct seen s = {0};

	EXPECT_EQ(sv_msghdr_walk_control(NULL, 0, record_fds, &s), 0);
	EXPECT_EQ(sv_msghdr_walk_control(c.b, 0, record_fds, &s), 0);
	/* Fewer bytes than a header: CMSG_FIRSTHDR is NULL, whatever they say. */
	put64(c.b, 0, 1);
	EXPECT_EQ(sv_msghdr_walk_control(c.b, 15, record_fds, &s), 0);
	EXPECT_EQ(s.calls, 0);
}

TEST(control_rights_handed_to_callback_and_rewritten_in_place)
{
	struct ctl c = {.len = 0};
	struct seen s = {.rewrite = 100};
	static const int fds[3] = {3, 4, 5};
	int after[3];

	add_rights(&c, fds, 3);
	ASSERT_EQ(sv_msghdr_walk_control(c.b, c.len, record_fds, &s), 0);
	ASSERT_EQ(s.calls, 1);
	EXPECT_EQ(s.nfds[0], 3);
	EXPECT_EQ(s.first_fd[0], 3);
	memcpy(after, c.b + 16, sizeof(after));
	EXPECT_EQ(after[0], 103);
	EXPECT_EQ(after[2], 105);
}

TEST(control_walk_visits_every_message_in_order)
{
	struct ctl c = {.len = 0};
	struct seen s = {0};
	static const int a[1] = {7}, b2[2] = {8, 9};
	static const int ts = 1;

	add_rights(&c, a, 1);                        /* cmsg_len 20, padded to 24 */
	add_cmsg(&c, 20, 0 /* SOL_IP */, 1, &ts, 1); /* another level: skipped */
	add_rights(&c, b2, 2);
	ASSERT_EQ(sv_msghdr_walk_control(c.b, c.len, record_fds, &s), 0);
	ASSERT_EQ(s.calls, 2);
	EXPECT_EQ(s.nfds[0], 1);
	EXPECT_EQ(s.first_fd[0], 7);
	EXPECT_EQ(s.nfds[1], 2);
	EXPECT_EQ(s.first_fd[1], 8);
}

struct control_case {
	const char *what;
	uint64_t clen;
	int level, type;
	size_t buflen; /* 0: exactly the padded message */
	int rc;
	size_t calls;
	size_t nfds;
};

static const struct control_case control_cases[] = {
    {"cmsg_len 0", 0, SOL_SOCKET, SCM_RIGHTS, 16, -EINVAL, 0, 0},
    {"cmsg_len 15", 15, SOL_SOCKET, SCM_RIGHTS, 16, -EINVAL, 0, 0},
    {"cmsg_len 15 at another level", 15, 0, 0, 16, -EINVAL, 0, 0},
    {"cmsg_len past the buffer", 24, SOL_SOCKET, SCM_RIGHTS, 20, -EINVAL, 0, 0},
    {"cmsg_len all ones", UINT64_MAX, SOL_SOCKET, SCM_RIGHTS, 32, -EINVAL, 0, 0},
    {"cmsg_len exactly the buffer, unpadded", 20, SOL_SOCKET, SCM_RIGHTS, 20, 0, 1, 1},
    {"rights with no descriptor", 16, SOL_SOCKET, SCM_RIGHTS, 0, 0, 0, 0},
    {"rights with less than one int", 19, SOL_SOCKET, SCM_RIGHTS, 0, 0, 0, 0},
    {"rights with trailing bytes", 21, SOL_SOCKET, SCM_RIGHTS, 0, 0, 1, 1},
    {"credentials refused", 16 + 12, SOL_SOCKET, SCM_CREDENTIALS, 0, -EPERM, 0, 0},
    {"IP_TTL forwarded", 16 + 4, 0 /* IPPROTO_IP */, 2, 0, 0, 0, 0},
    {"IP_PKTINFO forwarded", 16 + 12, 0, 8, 0, 0, 0, 0},
    {"IPV6_TCLASS forwarded", 16 + 4, 41, 67, 0, 0, 0, 0},
    {"UDP_SEGMENT forwarded", 16 + 2, 17, 103, 0, 0, 0, 0},
    {"SCM_TXTIME forwarded", 16 + 8, SOL_SOCKET, 61, 0, 0, 0, 0},
    {"SO_TIMESTAMPING forwarded", 16 + 4, SOL_SOCKET, 37, 0, 0, 0, 0},
    {"SO_TIMESTAMPING_NEW forwarded", 16 + 4, SOL_SOCKET, 65, 0, 0, 0, 0},
    {"IPV6_DONTFRAG forwarded", 16 + 4, 41, 62, 0, 0, 0, 0},
    {"IP_RETOPTS source route refused", 16 + 12, 0, 7, 0, -EPERM, 0, 0},
    {"IPV6_RTHDR source route refused", 16 + 24, 41, 57, 0, -EPERM, 0, 0},
    {"SO_MARK refused", 20, SOL_SOCKET, 36, 0, -EPERM, 0, 0},
    {"unknown level refused", 20, 132 /* SOL_SCTP */, 2, 0, -EPERM, 0, 0},
    {"trailing bytes shorter than a header", 20, SOL_SOCKET, SCM_RIGHTS, 24 + 15, 0, 1, 1},
};

TEST(control_walk_applies_kernel_cmsg_checks)
{
	for (size_t i = 0; i < TH_ARRAY_SIZE(control_cases); i++) {
		const struct control_case *cc = &control_cases[i];
		struct ctl c = {.len = 0};
		struct seen s = {0};

		TH_CASE("case %zu: %s", i, cc->what);
		memset(c.b, 0, 64);
		put64(c.b, 0, cc->clen);
		put32(c.b, 8, (uint32_t)cc->level);
		put32(c.b, 12, (uint32_t)cc->type);
		c.len = cc->buflen ? cc->buflen : ((cc->clen + 7) & ~(uint64_t)7);
		EXPECT_EQ(sv_msghdr_walk_control(c.b, c.len, record_fds, &s), cc->rc);
		EXPECT_EQ(s.calls, cc->calls);
		if (cc->calls)
			EXPECT_EQ(s.nfds[0], cc->nfds);
	}
}

/* IP_PKTINFO and IPV6_PKTINFO keep their source half but may not name an
 * output interface (review h-attack12). */
TEST(control_pktinfo_naming_an_interface_refused)
{
	static const struct {
		const char *what;
		int level, type;
		uint64_t clen;
		size_t at; /* offset of the ifindex in the data */
		uint32_t ifindex;
		int rc;
	} cases[] = {
	    {"IP_PKTINFO ifindex 0", 0, 8, 16 + 12, 0, 0, 0},
	    {"IP_PKTINFO ifindex 2", 0, 8, 16 + 12, 0, 2, -EPERM},
	    {"IP_PKTINFO ifindex 1 << 31", 0, 8, 16 + 12, 0, 1u << 31, -EPERM},
	    {"IPV6_PKTINFO ifindex 0", 41, 50, 16 + 20, 16, 0, 0},
	    {"IPV6_PKTINFO ifindex 2", 41, 50, 16 + 20, 16, 2, -EPERM},
	    /* Shorter than the ifindex: the kernel's EINVAL, nothing sent. */
	    {"IPV6_PKTINFO cut before the ifindex", 41, 50, 16 + 16, 16, 0, 0},
	    /* The same type number at another level is another option. */
	    {"level 0 type 50, never forwarded", 0, 50, 16 + 20, 16, 2, -EPERM},
	};

	for (size_t i = 0; i < TH_ARRAY_SIZE(cases); i++) {
		struct ctl c = {.len = 0};

		TH_CASE("case %zu: %s", i, cases[i].what);
		memset(c.b, 0, 64);
		put64(c.b, 0, cases[i].clen);
		put32(c.b, 8, (uint32_t)cases[i].level);
		put32(c.b, 12, (uint32_t)cases[i].type);
		if (16 + cases[i].at + 4 <= cases[i].clen)
			put32(c.b, 16 + cases[i].at, cases[i].ifindex);
		c.len = (cases[i].clen + 7) & ~(uint64_t)7;
		EXPECT_EQ(sv_msghdr_walk_control(c.b, c.len, NULL, NULL), cases[i].rc);
	}
}

/* lo's index (1 in every network namespace) is the route of a loopback
 * destination anyway: a UDP server's reply with the IP_PKTINFO its recvmsg
 * gave is forwarded there, and only there. */
TEST(control_pktinfo_naming_lo_forwarded_only_to_loopback)
{
	struct ctl c = {.len = 0};

	memset(c.b, 0, 64);
	put64(c.b, 0, 16 + 12);
	put32(c.b, 8, 0);
	put32(c.b, 12, 8);
	put32(c.b, 16, 1);
	c.len = 32;
	EXPECT_EQ(sv_msghdr_check_control(c.b, c.len, 1), 0);
	EXPECT_EQ(sv_msghdr_check_control(c.b, c.len, 0), -EPERM);
	EXPECT_EQ(sv_msghdr_walk_control(c.b, c.len, NULL, NULL), -EPERM);
	put32(c.b, 16, 2);
	EXPECT_EQ(sv_msghdr_check_control(c.b, c.len, 1), -EPERM);
}

/* The caller's credentials come first, the agent's control data after
 * them as they were, as one SCM_CREDENTIALS message the walk then refuses
 * (the agent may never send its own: only ours, built here, carry them). */
TEST(caller_credentials_prepended_to_control)
{
	struct ctl c = {.len = 0};
	static const int fd = 3;
	uint8_t *out = NULL;
	size_t len = 0;
	uint32_t cred[3];
	uint64_t clen;
	int32_t lt[2];

	add_rights(&c, &fd, 1);
	c.len -= 4; /* 20 bytes: the header and one int, as the agent may leave it */
	EXPECT_EQ(sv_msghdr_prepend_creds(c.b, c.len, 43, 1000, 1001, (void **)&out, &len), 0);
	EXPECT_EQ(len, (size_t)(32 + 20));
	EXPECT_EQ(memcmp(out + 32, c.b, c.len), 0);
	memcpy(&clen, out, 8);
	memcpy(lt, out + 8, 8);
	memcpy(cred, out + 16, 12);
	EXPECT_EQ(clen, (uint64_t)28);
	EXPECT_EQ(lt[0], SOL_SOCKET);
	EXPECT_EQ(lt[1], SCM_CREDENTIALS);
	EXPECT_EQ(cred[0], 43u);
	EXPECT_EQ(cred[1], 1000u);
	EXPECT_EQ(cred[2], 1001u);
	EXPECT_EQ(sv_msghdr_check_control(out, len, 0), -EPERM);
	free(out);
	EXPECT_EQ(sv_msghdr_prepend_creds(NULL, 0, 1, 0, 0, (void **)&out, &len), 0);
	EXPECT_EQ(len, (size_t)32);
	free(out);
}

/* Review h-attack53 (ha53-fdleak.sh): a tail shorter than one header,
 * which the kernel and the walk ignore, cut from an SCM_RIGHTS header
 * whose length reaches past it. With our credentials after it (padded to
 * 8) the kernel read it whole, its descriptors our bytes 28, 0, 1, 2 (our
 * own table's, sent to the agent). Walked as the kernel walks, the
 * buffer we send holds no descriptor, alone or behind a whole message.
 * Mutant creds-appended. */
TEST(caller_credentials_never_complete_a_cut_header_into_descriptors)
{
	for (int behind = 0; behind < 2; behind++) {
		struct ctl c = {.len = 0};
		struct seen s = {0};
		const uint64_t cut = 33;
		const int32_t lt = SOL_SOCKET;
		uint8_t *out = NULL;
		size_t len = 0;

		if (behind)
			add_rights(&c, NULL, 0);
		memcpy(c.b + c.len, &cut, 8);
		memcpy(c.b + c.len + 8, &lt, 4);
		c.b[c.len + 12] = SCM_RIGHTS;
		c.len += 13;
		EXPECT_EQ(sv_msghdr_walk_control(c.b, c.len, record_fds, &s), 0);
		EXPECT_EQ(s.calls, (size_t)0);
		EXPECT_EQ(sv_msghdr_prepend_creds(c.b, c.len, 43, 0, 0, (void **)&out, &len), 0);
		/* The walk refuses our SCM_CREDENTIALS where it meets it: made
		 * an IP_TOS in place (ignored on AF_UNIX, as the kernel skips
		 * ours), the rest is walked as the kernel walks it. */
		for (size_t at = 0; at + 16 <= len; at += 8) {
			uint64_t l;
			int32_t h[2];

			memcpy(&l, out + at, 8);
			memcpy(h, out + at + 8, 8);
			if (l == 28 && h[0] == SOL_SOCKET && h[1] == SCM_CREDENTIALS) {
				put32(out, at + 8, 0);
				put32(out, at + 12, 1);
			}
		}
		EXPECT_EQ(sv_msghdr_walk_control(out, len, record_fds, &s), 0);
		EXPECT_EQ(s.calls, (size_t)0);
		free(out);
	}
}

TEST(control_walk_stops_at_first_error_after_earlier_callbacks)
{
	struct ctl c = {.len = 0};
	struct seen s = {0};
	static const int fd = 3;

	add_rights(&c, &fd, 1);
	add_cmsg(&c, 16, SOL_SOCKET, SCM_CREDENTIALS, NULL, 0);
	add_rights(&c, &fd, 1);
	EXPECT_EQ(sv_msghdr_walk_control(c.b, c.len, record_fds, &s), -EPERM);
	EXPECT_EQ(s.calls, 1);

	c.len = 0;
	memset(&s, 0, sizeof(s));
	add_rights(&c, &fd, 1);
	add_cmsg(&c, 8, SOL_SOCKET, SCM_RIGHTS, NULL, 0);
	c.len += 8;
	EXPECT_EQ(sv_msghdr_walk_control(c.b, c.len, record_fds, &s), -EINVAL);
	EXPECT_EQ(s.calls, 1);
}

TEST(control_walk_returns_callback_error)
{
	struct ctl c = {.len = 0};
	struct seen s = {.fail_on_call = 2, .fail_rc = -EBADF};
	static const int fd = 3;

	add_rights(&c, &fd, 1);
	add_rights(&c, &fd, 1);
	add_rights(&c, &fd, 1);
	EXPECT_EQ(sv_msghdr_walk_control(c.b, c.len, record_fds, &s), -EBADF);
	EXPECT_EQ(s.calls, 2);
}

TEST(control_walk_accepts_null_callback)
{
	struct ctl c = {.len = 0};
	static const int fd = 3;

	add_rights(&c, &fd, 1);
	EXPECT_EQ(sv_msghdr_walk_control(c.b, c.len, NULL, NULL), 0);
}

TEST(control_rights_limited_to_scm_max_fd_per_call)
{
	static int fds[SV_SCM_MAX_FD + 1];
	struct ctl c = {.len = 0};
	struct seen s = {0};

	add_rights(&c, fds, SV_SCM_MAX_FD);
	EXPECT_EQ(sv_msghdr_walk_control(c.b, c.len, record_fds, &s), 0);
	EXPECT_EQ(s.nfds[0], SV_SCM_MAX_FD);

	c.len = 0;
	memset(&s, 0, sizeof(s));
	add_rights(&c, fds, SV_SCM_MAX_FD + 1);
	EXPECT_EQ(sv_msghdr_walk_control(c.b, c.len, record_fds, &s), -ETOOMANYREFS);
	EXPECT_EQ(s.calls, 0);

	/* The limit is for the whole call, across messages (scm_fp_copy keeps
	 * one list). */
	c.len = 0;
	memset(&s, 0, sizeof(s));
	add_rights(&c, fds, 200);
	add_rights(&c, fds, SV_SCM_MAX_FD - 200);
	EXPECT_EQ(sv_msghdr_walk_control(c.b, c.len, record_fds, &s), 0);
	add_rights(&c, fds, 1);
	memset(&s, 0, sizeof(s));
	EXPECT_EQ(sv_msghdr_walk_control(c.b, c.len, record_fds, &s), -ETOOMANYREFS);
	EXPECT_EQ(s.calls, 2);
}

TEST(control_over_scm_max_fd_still_walks_the_rest)
{
	/* Over the limit is AF_UNIX's EINVAL only (review h-attack5): a UDP
	 * send ignores SCM_RIGHTS, so what follows must still be refused or
	 * found malformed. */
	static int fds[SV_SCM_MAX_FD + 1];
	struct ctl c = {.len = 0};
	struct seen s = {0};
	static const int opt = 0;

	add_rights(&c, fds, SV_SCM_MAX_FD + 1);
	add_cmsg(&c, 20, 0, 7 /* IP_RETOPTS */, &opt, 1);
	EXPECT_EQ(sv_msghdr_walk_control(c.b, c.len, record_fds, &s), -EPERM);
	EXPECT_EQ(s.calls, 0);
}
