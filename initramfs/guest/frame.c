/*
 * egress-frame: writes the sections of a cell's result frame (docs/guest.md
 * "The result") in one process, where init forked four busybox processes a
 * section (wc, sha256sum, gzip, base64: tens of milliseconds each under
 * TCG, most of a batch cell's emit).
 *
 *   egress-frame NAME=FILE...
 *
 * For each FILE that exists, in order:
 *
 *     @@section NAME SIZE SHA256 gzip
 *     base64 of FILE.gz, 76 columns
 *     @@end NAME
 *
 * SIZE and SHA256 are FILE's own bytes; FILE.gz is its gzip, made by init
 * beforehand (one `gzip -k` for all the files). A FILE that is missing is
 * skipped, as before; a FILE whose .gz is missing or that cannot be read is
 * an error (exit 1, named on stderr), and the sections before it stay
 * written: the host refuses the frame (it has no @@egress-end line).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* SHA-256 (FIPS 180-4). */
struct sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char buf[64];
	size_t used;
};

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static void sha256_block(struct sha256 *s, const unsigned char *p)
{
	uint32_t w[64], v[8];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, s->h, sizeof(v));
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) +
			      ((v[4] & v[5]) ^ (~v[4] & v[6])) + K[i] + w[i];
		uint32_t t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) +
			      ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));

		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		s->h[i] += v[i];
}

static void sha256_init(struct sha256 *s)
{
	static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
				       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

	memcpy(s->h, h0, sizeof(h0));
	s->len = 0;
	s->used = 0;
}

static void sha256_add(struct sha256 *s, const unsigned char *p, size_t n)
{
	s->len += n;
	while (n) {
		size_t take = 64 - s->used < n ? 64 - s->used : n;

		memcpy(s->buf + s->used, p, take);
		s->used += take;
		p += take;
		n -= take;
		if (s->used == 64) {
			sha256_block(s, s->buf);
			s->used = 0;
		}
	}
}

static void sha256_hex(struct sha256 *s, char out[65])
{
	uint64_t bits = s->len * 8;
	unsigned char pad = 0x80, zero = 0, len[8];

	sha256_add(s, &pad, 1);
	while (s->used != 56)
		sha256_add(s, &zero, 1);
	for (int i = 0; i < 8; i++)
		len[i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_add(s, len, 8);
	for (int i = 0; i < 8; i++)
		snprintf(out + 8 * i, 9, "%08x", s->h[i]);
}

/* The whole of PATH in *P (malloc'd), its length in *N; -errno. */
static int slurp(const char *path, unsigned char **p, size_t *n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 65536, len = 0;
	unsigned char *b = malloc(cap);

	if (fd < 0 || !b) {
		int err = fd < 0 ? -errno : -ENOMEM;

		free(b);
		if (fd >= 0)
			close(fd);
		return err;
	}
	for (;;) {
		if (len == cap) {
			unsigned char *nb = realloc(b, cap * 2);

			if (!nb) {
				free(b);
				close(fd);
				return -ENOMEM;
			}
			b = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, b + len, cap - len);

		if (r < 0) {
			int err = -errno;

			free(b);
			close(fd);
			return err;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	*p = b;
	*n = len;
	return 0;
}

static void base64(FILE *out, const unsigned char *p, size_t n)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	int col = 0;

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);
		char q[4] = {a[v >> 18], a[(v >> 12) & 63], i + 1 < n ? a[(v >> 6) & 63] : '=',
			     i + 2 < n ? a[v & 63] : '='};

		fwrite(q, 1, 4, out);
		col += 4;
		if (col == 76) {
			fputc('\n', out);
			col = 0;
		}
	}
	if (col)
		fputc('\n', out);
}

/* One section; 0, -ENOENT when FILE is missing (skipped), another -errno. */
static int section(FILE *out, const char *name, const char *file)
{
	unsigned char *raw, *gz;
	size_t nraw, ngz;
	char gzpath[4096], sum[65];
	struct sha256 s;
	int err = slurp(file, &raw, &nraw);

	if (err)
		return err;
	snprintf(gzpath, sizeof(gzpath), "%s.gz", file);
	err = slurp(gzpath, &gz, &ngz);
	if (err) {
		free(raw);
		fprintf(stderr, "egress-frame: %s: %s\n", gzpath, strerror(-err));
		return err == -ENOENT ? -EIO : err;
	}
	sha256_init(&s);
	sha256_add(&s, raw, nraw);
	sha256_hex(&s, sum);
	fprintf(out, "@@section %s %zu %s gzip\n", name, nraw, sum);
	base64(out, gz, ngz);
	fprintf(out, "@@end %s\n", name);
	free(raw);
	free(gz);
	return 0;
}

int main(int argc, char **argv)
{
	static char obuf[65536];

	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	for (int i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq || eq == argv[i] || !eq[1]) {
			fprintf(stderr, "egress-frame: argument %d '%s': want NAME=FILE\n", i,
				argv[i]);
			return 2;
		}
		*eq = '\0';
		int err = section(stdout, argv[i], eq + 1);

		if (err && err != -ENOENT) {
			fprintf(stderr, "egress-frame: section %s (%s): %s\n", argv[i], eq + 1,
				strerror(-err));
			fflush(stdout);
			return 1;
		}
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
