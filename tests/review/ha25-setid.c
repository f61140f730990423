/* ha25-setid.c (hostile review h-attack25): a root agent's ways around the
 * setid walk (rootfs.c bind_setid) and the mode filter, for ha25-setid.sh.
 * Each subcommand prints what the kernel answered; none is expected to
 * leave a setuid, setgid or capable program the host honours.
 *
 *   tmpfile DIR        openat(DIR, O_TMPFILE|O_RDWR, 04755), then linkat
 *   fchmodat2 FILE     fchmodat2(AT_FDCWD, FILE, 04755, 0) (syscall 452)
 *   procfd FILE        chmod("/proc/self/fd/N", 04755) on an O_PATH fd
 *   mknod FILE         mknod(FILE, S_IFREG|04755)
 *   dedupe SRC DST     FIDEDUPERANGE from SRC (same bytes) into the bound DST
 *   link FILE NEW      linkat(O_PATH fd of FILE, "", NEW, AT_EMPTY_PATH)
 *   userns-cap FILE UID  a user namespace mapping its root to UID (not 0:
 *                      that needs CAP_SETFCAP), setxattr security.capability
 *                      (v2, cap_setuid+ep) on FILE: the kernel writes v3
 *                      with rootid UID; also tries the map "0 0 1"
 *   ovl LOWER UPPER WORK MNT NAME  in a user+mount namespace (root = UID
 *                      100000, 1..65535 identity), an overlay with the
 *                      declared directory holding the bound setuid NAME as
 *                      lower: open NAME O_RDWR (copy-up into UPPER)
 *   try-setuid         (run by uid 1000 on the host) setuid(0), prints ids
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

static void say(const char *what, long rc)
{
	printf("  %s: %s\n", what, rc < 0 ? strerror(errno) : "ok");
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), rc;

	if (fd < 0)
		return -1;
	rc = write(fd, s, strlen(s)) < 0 ? -1 : 0;
	close(fd);
	return rc;
}

/* Child in a new user (+mount) namespace whose uid map the parent writes. */
static int in_userns(const char *uidmap, const char *gidmap, int mnt, int (*fn)(char **),
		     char **arg)
{
	int p[2], q[2];
	pid_t pid;
	char path[64], c = 0;
	int st;

	if (pipe(p) || pipe(q))
		return -1;
	pid = fork();
	if (pid == 0) {
		if (unshare(CLONE_NEWUSER | (mnt ? CLONE_NEWNS : 0)) != 0) {
			printf("  unshare: %s\n", strerror(errno));
			_exit(1);
		}
		write(q[1], "x", 1);
		read(p[0], &c, 1);
		if (c != 'y')
			_exit(1);
		setresgid(0, 0, 0);
		setresuid(0, 0, 0);
		_exit(fn(arg));
	}
	read(q[0], &c, 1);
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	if (write_file(path, uidmap) != 0) {
		printf("  uid_map '%.20s...': %s\n", uidmap, strerror(errno));
		write(p[1], "n", 1);
		waitpid(pid, &st, 0);
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/setgroups", pid);
	write_file(path, "deny");
	snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
	if (write_file(path, gidmap) != 0)
		printf("  gid_map: %s\n", strerror(errno));
	write(p[1], "y", 1);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int set_cap(char **a)
{
	struct vfs_cap_data d = {.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE};

	d.data[0].permitted = 1u << CAP_SETUID | 1u << CAP_SETGID;
	say("setxattr security.capability (v2, cap_setuid,cap_setgid+ep)",
	    setxattr(a[0], "security.capability", &d, XATTR_CAPS_SZ_2, 0));
	return 0;
}

static int overlay(char **a)
{
	char opts[1024], path[512];
	int fd;

	snprintf(opts, sizeof(opts), "userxattr,lowerdir=%s,upperdir=%s,workdir=%s", a[0], a[1],
		 a[2]);
	if (mount("overlay", a[3], "overlay", 0, opts) != 0) {
		printf("  mount overlay %s: %s\n", opts, strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s", a[3], a[4]);
	fd = open(path, O_RDWR);
	say("open the setuid program O_RDWR through the overlay (copy-up)", fd);
	snprintf(path, sizeof(path), "%s/%s", a[1], a[4]);
	{
		struct stat st;
		if (stat(path, &st) == 0)
			printf("  upper copy: mode %o uid %u\n", st.st_mode, st.st_uid);
		else
			printf("  upper copy: none (%s)\n", strerror(errno));
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IONBF, 0);

	if (!strcmp(cmd, "tmpfile")) {
		int fd = openat(AT_FDCWD, argv[2], O_TMPFILE | O_RDWR, 04755);
		say("openat O_TMPFILE 04755", fd);
	} else if (!strcmp(cmd, "fchmodat2")) {
		say("fchmodat2 04755", syscall(452, AT_FDCWD, argv[2], 04755, 0));
	} else if (!strcmp(cmd, "procfd")) {
		char p[64];
		int fd = open(argv[2], O_PATH);
		snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
		say("chmod /proc/self/fd/N 04755", chmod(p, 04755));
	} else if (!strcmp(cmd, "mknod")) {
		say("mknod S_IFREG|04755", mknod(argv[2], S_IFREG | 04755, 0));
	} else if (!strcmp(cmd, "dedupe")) {
		int s = open(argv[2], O_RDONLY), d = open(argv[3], O_RDONLY);
		struct {
			struct file_dedupe_range r;
			struct file_dedupe_range_info i;
		} x = {.r = {.src_offset = 0, .src_length = 4096, .dest_count = 1},
		       .i = {.dest_fd = d, .dest_offset = 0}};
		long rc = ioctl(s, FIDEDUPERANGE, &x);
		printf("  FIDEDUPERANGE: %s, status %d\n", rc < 0 ? strerror(errno) : "ok",
		       x.i.status);
	} else if (!strcmp(cmd, "link")) {
		int fd = open(argv[2], O_PATH);
		say("linkat AT_EMPTY_PATH", linkat(fd, "", AT_FDCWD, argv[3], AT_EMPTY_PATH));
	} else if (!strcmp(cmd, "userns-cap")) {
		char map[64];
		snprintf(map, sizeof(map), "0 %s 1", argv[3]);
		printf(" map \"0 0 1\":\n");
		in_userns("0 0 1", "0 0 1", 0, set_cap, argv + 2);
		printf(" map \"%s\":\n", map);
		in_userns(map, map, 0, set_cap, argv + 2);
	} else if (!strcmp(cmd, "ovl")) {
		in_userns("0 100000 1\n1 1 65535", "0 100000 1\n1 1 65535", 1, overlay, argv + 2);
	} else if (!strcmp(cmd, "try-setuid")) {
		long rc = setuid(0);
		printf("  uid 1000 outside: setuid(0) %s, uid now %d euid %d\n",
		       rc ? strerror(errno) : "ok", getuid(), geteuid());
	} else {
		return 2;
	}
	return 0;
}
