/* The report's two channels as files: the path, rewritten whole and
 * atomically for each version, and the caller's descriptor, a record
 * appended for each. report.c decides what is written and when. */
#include "reportfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fault.h"

/* A clock for the temporary names: they need only differ between runs
 * and attempts (O_EXCL and the retries make them safe). */
static unsigned long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000000000ULL + (unsigned long long)t.tv_nsec;
}

/* The directory part of path ("." when there is none). */
void sv_reportfile_dir_of(const char *path, char *dir, size_t len)
{
	char *slash;

	snprintf(dir, len, "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	else
		snprintf(dir, len, ".");
}

#ifdef SV_MUTANT_REPORT_PATH_RESOLVED
/* MUTANT report-path-resolved: every write looks FILE's directory up
 * again, as before review h-attack34. */
static int report_dir(const struct sv_reportfile *rf)
{
	char dir[PATH_MAX];

	sv_reportfile_dir_of(rf->path, dir, sizeof(dir));
	return open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}
#else
/* The directory opened at set-up, still where FILE names it: an agent that
 * moved it aside and put another in its place would have the report written
 * where the caller does not look, and its own file read at FILE (review
 * h-attack36's ha36-swapdir.sh); that is an error (ESTALE), so the exit
 * status and the descriptor's record say capability-error. */
static int report_dir(const struct sv_reportfile *rf)
{
	char dir[PATH_MAX];
	struct stat now, then;

	sv_reportfile_dir_of(rf->path, dir, sizeof(dir));
	if (fstat(rf->dirfd, &then) != 0)
		return -1;
#ifndef SV_MUTANT_REPORT_DIR_MOVED_TRUSTED
	/* MUTANT report-dir-moved-trusted: the directory opened at set-up is
	 * written wherever it now is, as after review h-attack34's fix and
	 * before h-attack36's ha36-swapdir.sh. */
	if (stat(dir, &now) != 0 || now.st_dev != then.st_dev || now.st_ino != then.st_ino) {
		errno = ESTALE;
		return -1;
	}
#else
	(void)now;
#endif
	return fcntl(rf->dirfd, F_DUPFD_CLOEXEC, 0);
}
#endif

/* A random name "BASE.XXXXXX" for the next version in tmp. */
static void next_name(const char *base, char *tmp, size_t len, int attempt)
{
	unsigned long long r =
	    now_ns() * 2654435761ULL + (unsigned long long)attempt * 40503ULL + (unsigned)getpid();
	char x[7];

	for (int i = 0; i < 6; i++, r /= 26)
		x[i] = (char)('a' + r % 26);
	x[6] = '\0';
	snprintf(tmp, len, "%s.%s", base, x);
}

/* A file for the next version of the report in dir: an unnamed O_TMPFILE
 * (the agent cannot open it by name while it is written), or, where the
 * filesystem has none, a new file of a random name (O_EXCL, O_NOFOLLOW: a
 * link or FIFO the agent planted is never followed), named in tmp. */
static int open_next(const char *base, int dir, char *tmp, size_t len, int *unnamed)
{
	int fd;

	/* Seam: a filesystem without O_TMPFILE (EOPNOTSUPP). */
	fd = sv_fault("tmpfile");
	if (fd < 0)
		errno = -fd;
	else
		fd = openat(dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	if (fd >= 0) {
		*unnamed = 1;
		return fd;
	}
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOENT)
		return -errno;
	*unnamed = 0;
	for (int attempt = 0; attempt < 16; attempt++) {
		next_name(base, tmp, len, attempt);
		fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

/* Gives the unnamed file fd a name in dir, into tmp (O_TMPFILE files are
 * linked through /proc/self/fd: AT_EMPTY_PATH would need
 * CAP_DAC_READ_SEARCH). */
static int name_tmpfile(const char *base, int dir, int fd, char *tmp, size_t len)
{
	char proc[40];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (int attempt = 0; attempt < 16; attempt++) {
		next_name(base, tmp, len, attempt);
		if (linkat(AT_FDCWD, proc, dir, tmp, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int sv_reportfile_write_path(const struct sv_reportfile *rf, sv_reportfile_body body, int complete)
{
	char tmp[NAME_MAX + 1];
	int dir, fd, err = 0, unnamed = 0, named;
	FILE *f;

	if (strlen(rf->base) + 8 > sizeof(tmp))
		return -ENAMETOOLONG;
	dir = report_dir(rf);
	if (dir < 0)
		return -errno;
	fd = open_next(rf->base, dir, tmp, sizeof(tmp), &unnamed);
	if (fd < 0) {
		close(dir);
		return fd;
	}
	f = fdopen(fd, "w");
	if (!f || fchmod(fd, 0644) != 0) {
		err = -errno;
		if (f)
			fclose(f);
		else
			close(fd);
		if (!unnamed)
			unlinkat(dir, tmp, 0);
		close(dir);
		return err;
	}
	body(f, complete);
	if (fflush(f) != 0 || ferror(f) || fsync(fd) != 0)
		err = -(errno ? errno : EIO);
	if (!err && unnamed)
		err = name_tmpfile(rf->base, dir, fd, tmp, sizeof(tmp));
	named = !unnamed || !err;
	if (fclose(f) != 0 && !err)
		err = -errno;
	if (!err && renameat(dir, tmp, dir, rf->base) != 0)
		err = -errno;
	if (err) {
		if (named)
			unlinkat(dir, tmp, 0);
		close(dir);
		return err;
	}
	/* The rename is only durable once the directory is synced. */
	if (fsync(dir) != 0)
		err = -errno;
	close(dir);
	return err;
}

/* The report is streamed, never held whole in memory (200,000 events are
 * tens of MB): a record's length comes from a first pass that only counts. */
static ssize_t count_bytes(void *cookie, const char *buf, size_t n)
{
	(void)buf;
	*(size_t *)cookie += n;
	return (ssize_t)n;
}

struct fd_sink {
	int fd;
	int err; /* first -errno */
};

static ssize_t to_fd(void *cookie, const char *buf, size_t n)
{
	struct fd_sink *k = cookie;

	for (size_t off = 0; off < n;) {
		ssize_t w = write(k->fd, buf + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			k->err = w < 0 ? -errno : -EIO;
			return -1;
		}
		off += (size_t)w;
	}
	return (ssize_t)n;
}

/* One record on the caller's descriptor: a header line naming the record and
 * its length, then the JSON. Appended, never rewritten, so a supervisor
 * killed mid-write leaves the previous record whole and a short last one
 * that a reader can tell from its length. */
int sv_reportfile_write_record(int fd, sv_reportfile_body body, int complete)
{
	cookie_io_functions_t counting = {.write = count_bytes}, writing = {.write = to_fd};
	struct fd_sink k = {.fd = fd};
	size_t len = 0;
	FILE *f = fopencookie(&len, "w", counting);

	if (!f)
		return -errno;
	body(f, complete);
	if (fclose(f) != 0)
		return -EIO;
	f = fopencookie(&k, "w", writing);
	if (!f)
		return -errno;
	fprintf(f, "%s %s %zu\n", SV_REPORT_RECORD_MAGIC, complete ? "final" : "provisional", len);
	body(f, complete);
	if (fclose(f) != 0 && !k.err)
		k.err = -EIO;
	return k.err;
}
