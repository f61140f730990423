/* ha31-probe.c (hostile review h-attack31, against 36264ec): the bind probe
 * of sv_unixdiag_name_free (unixdiag.c), seen from both sides.
 *
 *   hammer @NAME TYPE THREADS SECONDS [HOGS]
 *       the agent: THREADS threads connect (stream, seqpacket) or sendto
 *       (dgram) to @NAME in a loop for SECONDS, HOGS threads spin on the
 *       CPU meanwhile; prints how each call ended (errno counts).
 *   binder @NAME TYPE SECONDS [GAP_US]
 *       the host's side: a service that binds @NAME (and lets it go at
 *       once) every GAP_US microseconds (default 200) for SECONDS; prints
 *       how many binds found the name taken (EADDRINUSE): the chance that
 *       a host service starting at a random moment fails to bind.
 *   restart @NAME TYPE SECONDS [DOWN_MS]
 *       a host service in a restart loop (systemd Restart=always): bound
 *       and listening, closed, DOWN_MS later (default 100) bound again;
 *       prints how many of its starts failed with EADDRINUSE.
 *   rebind @NAME TYPE TRIES
 *       the agent, a job of its own: binds and listens on @NAME, connects
 *       once, closes the listener and binds again at once, TRIES times;
 *       prints how many binds found the name taken (the kernel alone:
 *       none; supervised, the pin of the connect outlives its answer).
 *   clientrebind @NAME TYPE TRIES @CLIENT
 *       the agent, a job of its own: a receiver (listener) on @NAME, and
 *       TRIES times a client socket bound to @CLIENT that sends (connects)
 *       to it, closed, bound again at once; prints how many client binds
 *       found @CLIENT taken.
 *   hold @NAME TYPE [listen]
 *       binds @NAME (listening if asked) and sleeps: a host's name.
 *   nolisten @NAME TYPE
 *       the agent: binds a stream or seqpacket socket to @NAME without
 *       listen(), connects another socket to it and prints what connect
 *       said (the kernel: ECONNREFUSED).
 *   connect @NAME TYPE
 *       the agent: one connect (or sendto) to @NAME, prints the errno.
 *   selfstart @NAME TYPE TRIES [POLL_US]
 *       the agent, a job of its own: a client thread polls connect to
 *       @NAME every POLL_US (default 0: back to back), as a job waits for
 *       the server it started, while the server binds and listens on
 *       @NAME after 0-5 ms; prints how many of TRIES server binds failed
 *       with EADDRINUSE (the kernel alone: none) and how the client's
 *       connects ended.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static struct sockaddr_un A;
static socklen_t AL;
static int TYPE;
static atomic_int stop;
static atomic_long counts[256];

static void set_name(const char *n)
{
	if (n[0] == '@')
		n++;
	memset(&A, 0, sizeof(A));
	A.sun_family = AF_UNIX;
	memcpy(A.sun_path + 1, n, strlen(n));
	AL = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(n));
}

static int type_of(const char *t)
{
	return !strcmp(t, "dgram")       ? SOCK_DGRAM
	       : !strcmp(t, "seqpacket") ? SOCK_SEQPACKET
					 : SOCK_STREAM;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One call as the agent makes it: 0 or an errno. */
static int one_call(void)
{
	int s = socket(AF_UNIX, TYPE | SOCK_CLOEXEC, 0), rc, e;

	if (s < 0)
		return errno;
	if (TYPE == SOCK_DGRAM)
		rc = (int)sendto(s, "x", 1, MSG_DONTWAIT, (struct sockaddr *)&A, AL);
	else
		rc = connect(s, (struct sockaddr *)&A, AL);
	e = rc < 0 ? errno : 0;
	close(s);
	return e;
}

static void *hammer_thread(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		int e = one_call();

		atomic_fetch_add(&counts[e & 255], 1);
	}
	return NULL;
}

static void *hog_thread(void *arg)
{
	volatile unsigned long x = 0;

	(void)arg;
	while (!atomic_load(&stop))
		x++;
	return NULL;
}

static void print_counts(const char *what)
{
	printf("%s:", what);
	for (int i = 0; i < 256; i++)
		if (counts[i])
			printf(" %s=%ld", i ? strerrorname_np(i) : "ok", counts[i]);
	printf("\n");
	fflush(stdout);
}

static int hammer(int threads, int secs, int hogs)
{
	pthread_t t[256];
	int n = 0;

	for (int i = 0; i < hogs && n < 256; i++)
		pthread_create(&t[n++], NULL, hog_thread, NULL);
	for (int i = 0; i < threads && n < 256; i++)
		pthread_create(&t[n++], NULL, hammer_thread, NULL);
	sleep((unsigned)secs);
	atomic_store(&stop, 1);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	print_counts("hammer");
	return 0;
}

static int binder(int secs, int gap)
{
	long ok = 0, inuse = 0, other = 0;
	double end = now() + secs;

	while (now() < end) {
		int s = socket(AF_UNIX, TYPE | SOCK_CLOEXEC, 0);

		if (bind(s, (struct sockaddr *)&A, AL) == 0)
			ok++;
		else if (errno == EADDRINUSE)
			inuse++;
		else
			other++;
		close(s);
		usleep((useconds_t)(gap / 2 + rand() % (gap + 1)));
	}
	printf("binder: %ld binds, %ld EADDRINUSE (%.3f%%), %ld other\n", ok + inuse + other, inuse,
	       100.0 * (double)inuse / (double)(ok + inuse + other ? ok + inuse + other : 1),
	       other);
	return 0;
}

static int restart(int secs, int down_ms)
{
	long starts = 0, failed = 0;
	double end = now() + secs;

	while (now() < end) {
		int s = socket(AF_UNIX, TYPE | SOCK_CLOEXEC, 0);

		starts++;
		if (bind(s, (struct sockaddr *)&A, AL) != 0) {
			failed++;
			fprintf(stderr, "restart: start %ld: bind: %s\n", starts, strerror(errno));
		} else {
			if (TYPE != SOCK_DGRAM)
				listen(s, 8);
			usleep(20 * 1000); /* up a while */
		}
		close(s);
		usleep((useconds_t)down_ms * 1000);
	}
	printf("restart: %ld starts, %ld failed EADDRINUSE\n", starts, failed);
	return 0;
}

static int poll_us;

static void *poller(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		int e = one_call();

		atomic_fetch_add(&counts[e & 255], 1);
		if (e == 0)
			break;
		if (poll_us)
			usleep((useconds_t)poll_us);
	}
	return NULL;
}

static int selfstart(int tries)
{
	int failed = 0;

	for (int i = 0; i < tries; i++) {
		pthread_t t;
		int s;

		atomic_store(&stop, 0);
		pthread_create(&t, NULL, poller, NULL);
		usleep((useconds_t)(rand() % 5000));
		s = socket(AF_UNIX, TYPE | SOCK_CLOEXEC, 0);
		if (bind(s, (struct sockaddr *)&A, AL) != 0) {
			failed++;
			fprintf(stderr, "selfstart: try %d: server bind: %s\n", i, strerror(errno));
		} else if (TYPE != SOCK_DGRAM) {
			listen(s, 64);
		}
		/* Up until the client got in (or 1 s). */
		for (int w = 0; w < 1000 && atomic_load(&counts[0]) <= i; w++)
			usleep(1000);
		atomic_store(&stop, 1);
		pthread_join(t, NULL);
		close(s);
	}
	printf("selfstart: %d of %d server binds failed\n", failed, tries);
	print_counts("client connects");
	return 0;
}

/* A server the job closes and starts again at once on the same name (a
 * test suite's fixture), one client connect each time. */
static int rebind(int tries)
{
	int failed = 0, refused = 0;

	for (int i = 0; i < tries; i++) {
		int s = socket(AF_UNIX, TYPE | SOCK_CLOEXEC, 0), e;

		if (bind(s, (struct sockaddr *)&A, AL) != 0) {
			failed++;
			close(s);
			usleep(10 * 1000); /* let the name go, then on */
			continue;
		}
		if (TYPE != SOCK_DGRAM)
			listen(s, 8);
		e = getenv("NOCLIENT") ? 0 : one_call();
		refused += e != 0;
		close(s);
	}
	printf("rebind: %d of %d binds EADDRINUSE, %d client calls failed\n", failed, tries,
	       refused);
	return 0;
}

/* A client bound to a name of its own (to get replies), sending to the
 * job's own receiver @NAME, closed and bound again at once: the socket
 * the supervisor duplicated for the call (its dup) may outlive the
 * answer too. */
static int clientrebind(const char *cli, int tries)
{
	struct sockaddr_un c;
	socklen_t cl;
	int r = socket(AF_UNIX, TYPE | SOCK_CLOEXEC, 0), failed = 0, bad = 0;

	if (bind(r, (struct sockaddr *)&A, AL) != 0 || (TYPE != SOCK_DGRAM && listen(r, 4096)))
		return perror("clientrebind: server"), 1;
	memset(&c, 0, sizeof(c));
	c.sun_family = AF_UNIX;
	memcpy(c.sun_path + 1, cli + 1, strlen(cli + 1));
	cl = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(cli));
	for (int i = 0; i < tries; i++) {
		int s = socket(AF_UNIX, TYPE | SOCK_CLOEXEC, 0), rc;
		char buf[8];

		if (bind(s, (struct sockaddr *)&c, cl) != 0) {
			failed++;
			close(s);
			usleep(10 * 1000);
			continue;
		}
		if (TYPE == SOCK_DGRAM)
			rc = (int)sendto(s, "x", 1, MSG_DONTWAIT, (struct sockaddr *)&A, AL);
		else
			rc = connect(s, (struct sockaddr *)&A, AL);
		bad += rc < 0;
		close(s);
		if (TYPE == SOCK_DGRAM)
			(void)!recv(r, buf, sizeof(buf), MSG_DONTWAIT);
		else
			close(accept(r, NULL, NULL));
	}
	printf("clientrebind: %d of %d client binds EADDRINUSE, %d calls failed\n", failed, tries,
	       bad);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	set_name(argv[2]);
	TYPE = type_of(argv[3]);
	srand((unsigned)getpid());
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "hammer") && argc >= 6)
		return hammer(atoi(argv[4]), atoi(argv[5]), argc > 6 ? atoi(argv[6]) : 0);
	if (!strcmp(argv[1], "binder") && argc >= 5)
		return binder(atoi(argv[4]), argc > 5 ? atoi(argv[5]) : 200);
	if (!strcmp(argv[1], "restart") && argc >= 5)
		return restart(atoi(argv[4]), argc > 5 ? atoi(argv[5]) : 100);
	if (!strcmp(argv[1], "selfstart") && argc >= 5)
		return poll_us = argc > 5 ? atoi(argv[5]) : 0, selfstart(atoi(argv[4]));
	if (!strcmp(argv[1], "rebind") && argc >= 5)
		return rebind(atoi(argv[4]));
	if (!strcmp(argv[1], "clientrebind") && argc >= 6)
		return clientrebind(argv[5], atoi(argv[4]));
	if (!strcmp(argv[1], "hold")) {
		int s = socket(AF_UNIX, TYPE | SOCK_CLOEXEC, 0);

		if (bind(s, (struct sockaddr *)&A, AL) != 0) {
			perror("hold: bind");
			return 1;
		}
		if (argc > 4 && !strcmp(argv[4], "listen"))
			listen(s, 8);
		pause();
		return 0;
	}
	if (!strcmp(argv[1], "nolisten")) {
		int s = socket(AF_UNIX, TYPE | SOCK_CLOEXEC, 0), e;

		if (bind(s, (struct sockaddr *)&A, AL) != 0) {
			perror("nolisten: bind");
			return 1;
		}
		e = one_call();
		printf("nolisten: connect: %s\n", e ? strerrorname_np(e) : "ok");
		return 0;
	}
	if (!strcmp(argv[1], "connect")) {
		int e = one_call();

		printf("connect: %s\n", e ? strerrorname_np(e) : "ok");
		return 0;
	}
	return 2;
}
