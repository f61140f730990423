/*
 * ha78-agent MODE (ha78-passrights.py; guest: ha78-guest.sh): SO_PASSRIGHTS (83, 6.16) on
 * descriptor 0, an AF_UNIX socket the supervisor turned off (stdfds.c), every spelling the brief of
 * review h-attack78 lists; then the option read back on 0. One line per try on stderr: "name rc
 * errno".
 *
 *   hostile  racing threads flipping optval 0/1 under setsockopt(0, .., 0);
 *            optlen -1, 0, 1, 3, 0x7fffffff, 0x100000004 (64-bit register);
 *            level with high bits; a CLONE_THREAD thread with its own table
 *            whose 0 is a socketpair end; descriptor 0 swapped by dup2 in a
 *            racing thread; i386 int 0x80 setsockopt and socketcall; x32
 *            setsockopt; io_uring_setup; a uffd page under optval
 *   benign   value 0 on: a TCP socket, a pipe, a closed descriptor, an
 *            own AF_UNIX socketpair with optlen 0x7fffffff
 * The last line is "final-0 <value of SO_PASSRIGHTS on 0>". With no socket
 * on 0 (guest cells) hostile puts an own socketpair end there, turned off.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define SO_PR 83

static volatile int flip;
static atomic_int stop;

static void say(const char *what, long rc)
{
	fprintf(stderr, "%s %ld %s\n", what, rc, rc < 0 ? strerror(errno) : "-");
}

static void *flipper(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		flip ^= 1;
	return NULL;
}

static int swap_sock = -1, saved0 = -1;
static void *swapper(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		dup2(swap_sock, 0);
		dup2(saved0, 0);
	}
	return NULL;
}

static long raw_sso(long fd, long level, long opt, void *val, long len)
{
	return syscall(SYS_setsockopt, fd, level, opt, val, len);
}

static long i386_call(long nr, long a, long b, long c)
{
	long r;
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
	return r;
}

static int own_table_child(void *arg)
{
	int sv[2], one = 1;
	(void)arg;
	/* A thread of the agent without CLONE_FILES: its 0 is its own socket
	 * with the option on; turning it off there is narrowing only. */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0) {
		dup2(sv[0], 0);
		long r = raw_sso(0, SOL_SOCKET, SO_PR, &one, 4);
		fprintf(stderr, "own-table-on %ld\n", r);
		int zero = 0;
		r = raw_sso(0, SOL_SOCKET, SO_PR, &zero, 4);
		fprintf(stderr, "own-table-off %ld\n", r);
	}
	syscall(SYS_exit, 0);
	return 0;
}

static int get0(void)
{
	int v = -1;
	socklen_t l = sizeof(v);
	if (getsockopt(0, SOL_SOCKET, SO_PR, &v, &l) != 0)
		return -errno;
	return v;
}

static void hostile(void)
{
	pthread_t t;
	int one = 1, zero = 0, type;
	socklen_t tl = sizeof(type);
	long r;

	/* No socket on 0 (the appliance's cells): an own AF_UNIX socket in
	 * its place, turned off first (performed), as stdfds.c leaves one. */
	if (getsockopt(0, SOL_SOCKET, SO_TYPE, &type, &tl) != 0) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0) {
			say("stand-in-off", raw_sso(sv[0], SOL_SOCKET, SO_PR, &zero, 4));
			dup2(sv[0], 0);
		}
	}

	/* racing optval */
	pthread_create(&t, NULL, flipper, NULL);
	int ok = 0, bad = 0;
	for (int i = 0; i < 3000; i++) {
		r = raw_sso(0, SOL_SOCKET, SO_PR, (void *)&flip, 4);
		if (r == 0)
			ok++;
		else
			bad++;
		if (get0() != 0) {
			fprintf(stderr, "RACE-WON at %d\n", i);
			break;
		}
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	fprintf(stderr, "race performed=%d denied=%d now=%d\n", ok, bad, get0());
	atomic_store(&stop, 0);

	long lens[] = {-1, 0, 1, 3, 0x7fffffff, 0x100000004L, 0x1ffffffffL};
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		char name[64];
		snprintf(name, sizeof(name), "optlen-%#lx-on", lens[i]);
		say(name, raw_sso(0, SOL_SOCKET, SO_PR, &one, lens[i]));
		snprintf(name, sizeof(name), "optlen-%#lx-off", lens[i]);
		say(name, raw_sso(0, SOL_SOCKET, SO_PR, &zero, lens[i]));
	}
	say("level-highbits-on", raw_sso(0, 0x100000000L | SOL_SOCKET, SO_PR, &one, 4));
	say("opt-highbits-on", raw_sso(0, SOL_SOCKET, 0x100000000L | SO_PR, &one, 4));
	say("fd-highbits-on", raw_sso(0x100000000L, SOL_SOCKET, SO_PR, &one, 4));

	/* own table thread */
	{
		char *stack =
		    mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int tid = clone(own_table_child, stack + (1 << 16),
				CLONE_VM | CLONE_THREAD | CLONE_SIGHAND, NULL);
		say("clone-thread-no-files", tid);
		usleep(300000);
	}

	/* descriptor 0 swapped under the call */
	{
		int sv[2];
		socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
		raw_sso(sv[0], SOL_SOCKET, SO_PR, &one, 4); /* denied or not */
		swap_sock = sv[0];
		saved0 = dup(0);
		pthread_create(&t, NULL, swapper, NULL);
		for (int i = 0; i < 2000; i++)
			raw_sso(0, SOL_SOCKET, SO_PR, &zero, 4);
		atomic_store(&stop, 1);
		pthread_join(t, NULL);
		dup2(saved0, 0);
		fprintf(stderr, "swap done now=%d\n", get0());
		atomic_store(&stop, 0);
	}

	/* i386 */
	{
		int *lo = mmap((void *)0x10000000, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (lo != MAP_FAILED) {
			unsigned int args[5] = {0, SOL_SOCKET, SO_PR, 0x10000000 + 64, 4};
			lo[16] = 1;
			memcpy(lo + 32, args, sizeof(args));
			errno = 0;
			r = i386_call(366, 0, SOL_SOCKET, SO_PR); /* incomplete regs: esi/edi */
			fprintf(stderr, "i386-setsockopt(partial) %ld\n", r);
			r = i386_call(102, 14, 0x10000000 + 128, 0);
			fprintf(stderr, "i386-socketcall-setsockopt %ld\n", r);
		}
	}
	say("x32-setsockopt", syscall(0x40000000L | 541, 0, SOL_SOCKET, SO_PR, &one, 4));
	say("io_uring_setup", syscall(425, 8, calloc(1, 256)));

	/* uffd under optval: the supervisor's read stalls? */
	{
		int uffd =
		    syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | 1 /* UFFD_USER_MODE_ONLY */);
		struct uffdio_api api = {.api = UFFD_API};
		if (uffd >= 0 && ioctl(uffd, UFFDIO_API, &api) == 0) {
			char *pg = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			struct uffdio_register reg = {
			    .range = {.start = (unsigned long)pg, .len = 4096},
			    .mode = UFFDIO_REGISTER_MODE_MISSING};
			if (ioctl(uffd, UFFDIO_REGISTER, &reg) == 0)
				say("uffd-optval-off", raw_sso(0, SOL_SOCKET, SO_PR, pg, 4));
			else
				say("uffd-register", -1);
		} else
			say("uffd", -1);
	}
	fprintf(stderr, "final-0 %d\n", get0());
}

static void benign(void)
{
	int zero = 0, sv[2], p[2];
	int tcp = socket(AF_INET, SOCK_STREAM, 0);

	say("tcp-off", raw_sso(tcp, SOL_SOCKET, SO_PR, &zero, 4));
	pipe(p);
	say("pipe-off", raw_sso(p[0], SOL_SOCKET, SO_PR, &zero, 4));
	close(p[1]);
	say("closed-off", raw_sso(p[1], SOL_SOCKET, SO_PR, &zero, 4));
	socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
	say("own-huge-off", raw_sso(sv[0], SOL_SOCKET, SO_PR, &zero, 0x7fffffff));
	say("stdin-off", raw_sso(0, SOL_SOCKET, SO_PR, &zero, 4));
	fprintf(stderr, "final-0 %d\n", get0());
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "benign") == 0)
		benign();
	else
		hostile();
	return 0;
}
