/* ha18-userns.c (hostile review h-attack18, against main 22693ed): a root
 * agent makes a user and mount namespace of its own (unshare is not
 * trapped; as uid 0 it may map 0 to 0) and, holding every capability over
 * them, tries to undo what rootfs.c did: unmount the private /dev, /proc
 * and the /proc/sys bind (to uncover the host's), remount a host mount
 * writable (mount(2) and mount_setattr(2)), clone a covered mount with
 * open_tree, mount a fresh proc, sysfs, and a device-allowing tmpfs.
 * Prints each call's errno; any "OK" on the first six is a finding. */
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		printf("userns: %s: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

static void say(const char *what, int rc)
{
	printf("userns: %-48s %s\n", what, rc == 0 ? "OK" : strerror(errno));
}

int main(void)
{
	struct mount_attr attr = {.attr_clr = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV};
	int fd;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET) != 0) {
		printf("userns: unshare: %s\n", strerror(errno));
		return 1;
	}
	put("/proc/self/setgroups", "deny");
	put("/proc/self/uid_map", "0 0 1");
	put("/proc/self/gid_map", "0 0 1");
	say("umount2 /dev", umount2("/dev", 0));
	say("umount2 /dev MNT_DETACH", umount2("/dev", MNT_DETACH));
	say("umount2 /proc/sys MNT_DETACH", umount2("/proc/sys", MNT_DETACH));
	say("umount2 /proc MNT_DETACH", umount2("/proc", MNT_DETACH));
	say("remount / rw (bind)", mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND, NULL));
	say("mount_setattr / clear ro,nodev (recursive)",
	    (int)syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &attr, sizeof(attr)));
	fd = (int)syscall(SYS_open_tree, AT_FDCWD, "/dev", OPEN_TREE_CLONE | AT_RECURSIVE);
	say("open_tree clone /dev", fd < 0 ? -1 : 0);
	if (fd >= 0) {
		say("  mount_setattr clone clear ro",
		    (int)syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr,
				 sizeof(attr)));
		close(fd);
	}
	say("mount proc on /mnt", mount("proc", "/mnt", "proc", 0, NULL));
	say("mount sysfs on /mnt", mount("sysfs", "/mnt", "sysfs", 0, NULL));
	say("mount tmpfs on /mnt", mount("t", "/mnt", "tmpfs", 0, NULL));
	say("  mknod /mnt/loop0 (b 7 0)", mknod("/mnt/loop0", S_IFBLK | 0600, makedev(7, 0)));
	fd = open("/mnt/loop0", O_RDWR);
	say("  open it O_RDWR", fd < 0 ? -1 : 0);
	return 0;
}
