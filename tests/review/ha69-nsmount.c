/* ha69-nsmount: hostile review h-attack69. Joins the user and mount
 * namespaces of PID (a rootless container's, owned by our uid: setns gives
 * us every capability in it, no exec after, so none is lost) and mounts
 * one thing there:
 *   root  binds / onto itself: a mount over the namespace's root, which
 *         makes current_chrooted() true for every process already in it,
 *         so unshare(CLONE_NEWUSER) is EPERM there
 *   proc  binds a file over /proc/cpuinfo (what lxcfs does): proc is then
 *         not fully visible, so a new proc mount in a child user namespace
 *         is EPERM (mount_too_revealing)
 *   undo  unmounts what root or proc mounted
 * Usage: ha69-nsmount PID root|proc|undo */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

static int join(const char *pid, const char *kind, int type)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/ns/%s", pid, kind);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, type) != 0) {
		perror(path);
		return -1;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc != 3)
		return 2;
	if (join(argv[1], "user", CLONE_NEWUSER) || join(argv[1], "mnt", CLONE_NEWNS))
		return 1;
	if (!strcmp(argv[2], "root"))
		rc = mount("/", "/", NULL, MS_BIND | MS_REC, NULL);
	else if (!strcmp(argv[2], "proc"))
		rc = mount("/etc/hostname", "/proc/cpuinfo", NULL, MS_BIND, NULL);
	else if (!strcmp(argv[2], "undo"))
		rc = umount2("/proc/cpuinfo", MNT_DETACH) == 0 || umount2("/", MNT_DETACH) == 0
			 ? 0
			 : -1;
	else
		return 2;
	if (rc != 0) {
		perror(argv[2]);
		return 1;
	}
	printf("mounted %s\n", argv[2]);
	return 0;
}
