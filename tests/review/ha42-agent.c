/* ha42-agent.c: hostile review h-attack42, the agent. Modes:
 *   flock FILE SECS
 *       opens FILE read-only (the host's files are read-only to the agent:
 *       that is enough) and takes flock(LOCK_EX) on it, holds SECS s. A
 *       host process that then flocks FILE (iptables's /run/xtables.lock,
 *       a cron job's `flock`, dpkg's frontend lock...) waits or fails.
 *   posix FILE SECS
 *       the same with an fcntl F_RDLCK (a record lock needs only a
 *       descriptor open for reading): a host writer's F_SETLKW F_WRLCK
 *       (sqlite's writers, lckpwdf's...) waits.
 *   ofd FILE SECS
 *       the same with F_OFD_SETLK F_RDLCK.
 *   inotify SECS
 *       makes inotify instances until EMFILE, holds them SECS s: the
 *       limit (fs.inotify.max_user_instances, 128) is per uid and user
 *       namespace, shared with every process of the host with the same
 *       uid (root's daemons for a root agent).
 *   lease32 FILE SECS
 *       F_SETLEASE F_RDLCK through the i386 ABI (int $0x80: fcntl 55 and
 *       fcntl64 221), then natively; prints each answer.
 *   lease FILE SECS
 *       a read lease (F_SETLEASE F_RDLCK) on FILE, SIGIO ignored, held SECS
 *       s: 05525a1 neutralizes it for a root agent only; a uid-1000 agent
 *       needs no capability on a file its uid owns (the caller's own).
 *   caps
 *       things a normal root program does that need a capability caps.c
 *       drops: prints each answer (the verdict is what the run says).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/klog.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static long sys32(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
	return ret;
}

static int open_ro(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		printf("open %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return fd;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(mode, "flock") == 0 && argc == 4) {
		int fd = open_ro(argv[2]);

		printf("flock LOCK_EX: %s\n",
		       flock(fd, LOCK_EX | LOCK_NB) == 0 ? "ok" : strerror(errno));
		sleep((unsigned)atoi(argv[3]));
		return 0;
	}
	if ((strcmp(mode, "posix") == 0 || strcmp(mode, "ofd") == 0) && argc == 4) {
		int fd = open_ro(argv[2]);
		struct flock fl = {.l_type = F_RDLCK, .l_whence = SEEK_SET};
		int cmd = mode[0] == 'o' ? F_OFD_SETLK : F_SETLK;

		printf("%s F_RDLCK: %s\n", mode, fcntl(fd, cmd, &fl) == 0 ? "ok" : strerror(errno));
		sleep((unsigned)atoi(argv[3]));
		return 0;
	}
	if (strcmp(mode, "inotify") == 0 && argc == 3) {
		int n = 0;

		while (inotify_init1(IN_CLOEXEC) >= 0)
			n++;
		printf("inotify instances: %d, then %s\n", n, strerror(errno));
		sleep((unsigned)atoi(argv[2]));
		return 0;
	}
	if (strcmp(mode, "lease32") == 0 && argc == 4) {
		int fd = open_ro(argv[2]);
		long r;

		r = sys32(55, fd, F_SETLEASE, F_RDLCK);
		printf("i386 fcntl F_SETLEASE: %ld\n", r);
		if (r == 0)
			sys32(55, fd, F_SETLEASE, F_UNLCK);
		r = sys32(221, fd, F_SETLEASE, F_RDLCK);
		printf("i386 fcntl64 F_SETLEASE: %ld\n", r);
		if (r == 0)
			sys32(221, fd, F_SETLEASE, F_UNLCK);
		r = fcntl(fd, F_SETLEASE, F_RDLCK);
		printf("native fcntl F_SETLEASE: %s\n", r == 0 ? "ok" : strerror(errno));
		if (r == 0)
			fcntl(fd, F_SETLEASE, F_UNLCK);
		sleep((unsigned)atoi(argv[3]));
		return 0;
	}
	if (strcmp(mode, "lease") == 0 && argc == 4) {
		int fd = open_ro(argv[2]);

		signal(SIGIO, SIG_IGN);
		printf("lease F_RDLCK: %s\n",
		       fcntl(fd, F_SETLEASE, F_RDLCK) == 0 ? "ok" : strerror(errno));
		sleep((unsigned)atoi(argv[3]));
		return 0;
	}
	if (strcmp(mode, "caps") == 0) {
		struct rlimit rl;
		char buf[64];
		void *p;
		int fd;

		errno = 0;
		printf("nice(-5): %s\n", nice(-5) == -1 && errno ? strerror(errno) : "ok");
		getrlimit(RLIMIT_NOFILE, &rl);
		rl.rlim_max = rl.rlim_max == RLIM_INFINITY ? rl.rlim_max : rl.rlim_max + 1;
		printf("setrlimit NOFILE hard+1: %s\n",
		       setrlimit(RLIMIT_NOFILE, &rl) == 0 ? "ok" : strerror(errno));
		printf("klog read (dmesg): %s\n",
		       klogctl(3, buf, sizeof(buf)) >= 0 ? "ok" : strerror(errno));
		p = mmap(NULL, 64 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			 0);
		printf("mlock 64 MiB: %s\n", mlock(p, 64 << 20) == 0 ? "ok" : strerror(errno));
		fd = timerfd_create(CLOCK_BOOTTIME_ALARM, 0);
		printf("timerfd BOOTTIME_ALARM: %s\n", fd >= 0 ? "ok" : strerror(errno));
		fd = open("/tmp/ha42-own", O_RDWR | O_CREAT, 0600);
		printf("lease on its own file: %s\n",
		       fd >= 0 && fcntl(fd, F_SETLEASE, F_WRLCK) == 0 ? "ok" : strerror(errno));
		return 0;
	}
	fprintf(stderr, "usage: see the comment\n");
	return 2;
}
