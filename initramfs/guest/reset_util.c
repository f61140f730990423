/*
 * egress-reset's text and file helpers (reset.h).
 */
#include "reset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void rs_buf_add(struct rs_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);

		if (!p) {
			fputs("egress-reset: out of memory\n", stderr);
			exit(2);
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void rs_buf_printf(struct rs_buf *b, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		rs_buf_add(b, tmp, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);

	if (!big) {
		fputs("egress-reset: out of memory\n", stderr);
		exit(2);
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	rs_buf_add(b, big, (size_t)n);
	free(big);
}

void rs_buf_escape(struct rs_buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\\')
			rs_buf_add(b, "\\\\", 2);
		else if (c == '\n')
			rs_buf_add(b, "\\n", 2);
		else if (c < 0x20 && c != '\t')
			rs_buf_printf(b, "\\x%02x", c);
		else
			rs_buf_add(b, (const char *)&s[i], 1);
	}
}

void rs_buf_free(struct rs_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

struct line {
	const char *p;
	size_t n;
};

static int line_cmp(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	size_t n = x->n < y->n ? x->n : y->n;
	int c = memcmp(x->p, y->p, n);

	return c ? c : (x->n > y->n) - (x->n < y->n);
}

/* The lines of TEXT (each without its newline); *count is set. */
static struct line *lines_of(const char *text, size_t len, size_t *count)
{
	size_t n = 0, cap = 64;
	struct line *v = malloc(cap * sizeof(*v));

	for (size_t i = 0; v && i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len;

		if (n == cap) {
			struct line *w = realloc(v, 2 * cap * sizeof(*v));

			if (!w) {
				free(v);
				v = NULL;
				break;
			}
			v = w;
			cap *= 2;
		}
		v[n].p = text + i;
		v[n++].n = end - i;
		i = end + 1;
	}
	if (!v) {
		fputs("egress-reset: out of memory\n", stderr);
		exit(2);
	}
	*count = n;
	return v;
}

void rs_lines_sort(struct rs_buf *b)
{
	size_t n;
	struct line *v = lines_of(b->p, b->len, &n);
	struct rs_buf out = {0};

	qsort(v, n, sizeof(*v), line_cmp);
	for (size_t i = 0; i < n; i++) {
		rs_buf_add(&out, v[i].p, v[i].n);
		rs_buf_add(&out, "\n", 1);
	}
	free(v);
	rs_buf_free(b);
	*b = out;
}

bool rs_lines_has(const char *set, size_t setlen, const char *l, size_t n)
{
	for (size_t i = 0; i < setlen;) {
		const char *nl = memchr(set + i, '\n', setlen - i);
		size_t end = nl ? (size_t)(nl - set) : setlen;

		if (end - i == n && memcmp(set + i, l, n) == 0)
			return true;
		i = end + 1;
	}
	return false;
}

size_t rs_lines_only_in(struct rs_buf *out, const char *a, size_t alen, const char *b, size_t blen,
			size_t max)
{
	size_t na, nb, found = 0;
	struct line *va = lines_of(a, alen, &na);
	struct line *vb = lines_of(b, blen, &nb);

	qsort(va, na, sizeof(*va), line_cmp);
	qsort(vb, nb, sizeof(*vb), line_cmp);
	/* A multiset difference: a line twice in A and once in B counts once. */
	for (size_t i = 0, j = 0; i < na; i++) {
		while (j < nb && line_cmp(&vb[j], &va[i]) < 0)
			j++;
		if (j < nb && line_cmp(&vb[j], &va[i]) == 0) {
			j++;
			continue;
		}
		if (found < max) {
			if (found)
				rs_buf_add(out, ";", 1);
			rs_buf_add(out, va[i].p, va[i].n);
		}
		found++;
	}
	free(va);
	free(vb);
	return found;
}

int rs_read_file(const char *path, struct rs_buf *b)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	char tmp[8192];
	ssize_t n;

	while ((n = read(fd, tmp, sizeof(tmp))) > 0)
		rs_buf_add(b, tmp, (size_t)n);
	int err = n < 0 ? -errno : 0;

	close(fd);
	return err;
}

int rs_remove_tree(int at, const char *name)
{
	struct stat st;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(at, name, 0) < 0 ? -errno : 0;
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	struct stat dst;

	if (fstat(fd, &dst) < 0 || dst.st_dev != st.st_dev) {
		/* Another filesystem mounted there: left for the read-back. */
		close(fd);
		return -EBUSY;
	}
	DIR *d = fdopendir(fd);

	if (!d) {
		int err = -errno;

		close(fd);
		return err;
	}
	int err = 0;
	struct dirent *e;

	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		int r = rs_remove_tree(dirfd(d), e->d_name);

		if (r < 0 && !err)
			err = r;
	}
	closedir(d);
	if (unlinkat(at, name, AT_REMOVEDIR) < 0 && !err)
		err = -errno;
	return err;
}

bool rs_mount_point(const char *l, size_t n, char *out, size_t outlen)
{
	const char *sp = memchr(l, ' ', n);
	size_t o = 0;

	if (!sp)
		return false;
	for (size_t i = (size_t)(sp + 1 - l); i < n && l[i] != ' ' && o + 1 < outlen; i++) {
		if (l[i] == '\\' && i + 3 < n) {
			out[o++] =
			    (char)((l[i + 1] - '0') * 64 + (l[i + 2] - '0') * 8 + (l[i + 3] - '0'));
			i += 3;
		} else {
			out[o++] = l[i];
		}
	}
	out[o] = '\0';
	return o > 0;
}

int rs_write_escaped(const char *path, const char *esc, size_t n)
{
	struct rs_buf v = {0};

	for (size_t i = 0; i < n; i++) {
		char c = esc[i];

		if (c == '\\' && i + 1 < n) {
			c = esc[++i];
			if (c == 'n') {
				c = '\n';
			} else if (c == 'x' && i + 2 < n) {
				c = (char)strtol((char[]){esc[i + 1], esc[i + 2], 0}, NULL, 16);
				i += 2;
			}
		}
		rs_buf_add(&v, &c, 1);
	}
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		err = -errno;
	else if (write(fd, v.p ? v.p : "", v.len) < 0)
		err = -errno;
	if (fd >= 0)
		close(fd);
	rs_buf_free(&v);
	return err;
}
