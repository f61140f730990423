/* ha41-agent.c: hostile review h-attack41's agent. Built static with
 * musl-gcc by the scripts. Modes:
 *
 *   burst N DELAY_US EXIT_MS ADDR PORT
 *       the receiver pool below its cap (notify.c, 16384): N threads wait
 *       on one barrier, then all at once make a blocking TCP connect to a
 *       loopback listener of ours whose accept queue is full (allowed:
 *       each receiver that takes one performs it and waits in the SYN
 *       retries). One more thread, released by the same barrier, waits
 *       DELAY_US and makes a UDP connect to ADDR:PORT (undeclared: denied,
 *       sends nothing). The main thread, EXIT_MS after the release, exits
 *       (exit_group). The kernel's queue is FIFO and every receiver that
 *       takes a call is then stuck in it, so the N-th call is received only
 *       after N receivers were started one after another (leader/followers:
 *       the one that takes a call starts the next); the denied connect,
 *       queued behind them, waits that long and is withdrawn with its task.
 *   ttyioctl
 *       on fd 0 (a terminal): the ioctls other than TIOCSTI/TIOCLINUX
 *       that reach a terminal's input or its session, each tried, errno
 *       printed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static struct sockaddr_in listen_addr, deny_addr;
static pthread_barrier_t go;
static long delay_us;

static void *one_connect(void *arg)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	(void)arg;
	pthread_barrier_wait(&go);
	if (fd >= 0)
		(void)connect(fd, (struct sockaddr *)&listen_addr, sizeof(listen_addr));
	return NULL;
}

static void *denied_connect(void *arg)
{
	int u = socket(AF_INET, SOCK_DGRAM, 0), rc;

	(void)arg;
	pthread_barrier_wait(&go);
	if (delay_us > 0)
		usleep((useconds_t)delay_us);
	rc = connect(u, (struct sockaddr *)&deny_addr, sizeof(deny_addr));
	printf("ha41 burst: denied connect returned %d (%s)\n", rc, rc ? strerror(errno) : "ok");
	fflush(stdout);
	return NULL;
}

static int burst(int n, long dus, long exit_ms, const char *addr, int port)
{
	socklen_t len = sizeof(listen_addr);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	struct rlimit rl = {65536, 65536};
	struct timespec ts = {.tv_sec = exit_ms / 1000, .tv_nsec = (exit_ms % 1000) * 1000000L};
	pthread_attr_t attr;
	pthread_t t;

	delay_us = dus;
	setrlimit(RLIMIT_NOFILE, &rl);
	deny_addr.sin_family = AF_INET;
	deny_addr.sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, addr, &deny_addr.sin_addr);
	listen_addr.sin_family = AF_INET;
	listen_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&listen_addr, sizeof(listen_addr)) != 0 ||
	    getsockname(lfd, (struct sockaddr *)&listen_addr, &len) != 0 || listen(lfd, 0) != 0)
		return 2;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_barrier_init(&go, NULL, (unsigned)n + 2);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t, &attr, one_connect, NULL) != 0) {
			printf("ha41 burst: only %d threads\n", i);
			return 2;
		}
	if (pthread_create(&t, &attr, denied_connect, NULL) != 0)
		return 2;
	printf("ha41 burst: %d threads ready, release\n", n);
	fflush(stdout);
	pthread_barrier_wait(&go);
	nanosleep(&ts, NULL);
	printf("ha41 burst: exit_group\n");
	fflush(stdout);
	_exit(0);
}

static void try_ioctl(const char *name, unsigned long cmd, void *arg)
{
	int rc = ioctl(0, cmd, arg);

	printf("ha41 ioctl %s: %s\n", name, rc < 0 ? strerror(errno) : "ok");
	fflush(stdout);
}

static int ttyioctl(void)
{
	int one = 1, disc;
	struct termios t;

	try_ioctl("TIOCSCTTY", TIOCSCTTY, 0);
	if (ioctl(0, TIOCGETD, &disc) == 0)
		printf("ha41 ldisc %d\n", disc);
	tcgetattr(0, &t);
	try_ioctl("TCSETS (same)", TCSETS, &t);
	try_ioctl("TIOCPKT", TIOCPKT, &one);
	try_ioctl("TIOCSTI", TIOCSTI, "x");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 7 && strcmp(argv[1], "burst") == 0)
		return burst(atoi(argv[2]), atol(argv[3]), atol(argv[4]), argv[5], atoi(argv[6]));
	if (argc == 2 && strcmp(argv[1], "ttyioctl") == 0)
		return ttyioctl();
	fprintf(stderr, "usage: see the comment in ha41-agent.c\n");
	return 2;
}
