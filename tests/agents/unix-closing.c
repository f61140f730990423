/*
 * unix-closing: the run's own listener on an abstract name closes while
 * connects to it are under way, as a server that shuts down does (review
 * h-attack28, ha28-closed.sh). The kernel ends each such connect connected
 * or ECONNREFUSED; anything else is a false error (EACCES: a supervisor
 * that judged the run's own closed listener a host's, because its own
 * pins still held it bound).
 *
 *   unix-closing @NAME wait
 *       backlog 0, one connect fills the queue, and a thread's blocking
 *       connect waits on it (under the supervisor: its emulated wait, which
 *       judges the name again); the listener closes after CLOSE_MS. Exit 0
 *       when the waiting connect ended ECONNREFUSED after the close, 3 when
 *       it ended before the close (it never waited: the check proves
 *       nothing), 1 on any other answer.
 *   unix-closing @NAME race
 *       8 threads connect in a loop (backlog 4096); the listener closes
 *       after CLOSE_MS and they stop RACE_TAIL_MS later. Exit 0 when every
 *       connect ended connected or ECONNREFUSED and at least one of each
 *       happened, 3 when none was refused (the close never met a connect),
 *       1 on any other answer.
 *
 * Logged: the filling connect, the waiting one (with "ms"), every racing
 * connect with another answer, and one summary line per mode. Exit 2 on
 * bad arguments or a failed set-up.
 */
#include "agentlib.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* Long enough under TCG for the waiting connect to be inside the
 * supervisor's wait before the close. */
#define CLOSE_MS 1000
#define RACE_TAIL_MS 500
#define RACERS 8

static struct sockaddr_un addr;
static socklen_t addr_len;
static char dest[sizeof(addr.sun_path) + 8];
static atomic_int stop;
static atomic_long connected, refused, other;
static double closed_at;

static void pause_ms(long ms)
{
	struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
}

static void *waiter(void *arg)
{
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), rc, err;
	double t0 = agent_now_ms();
	char extra[64];

	rc = connect(s, (struct sockaddr *)&addr, addr_len);
	err = errno;
	snprintf(extra, sizeof(extra), ",\"ms\":%.1f", agent_now_ms() - t0);
	agent_log("connect", dest, rc, err, extra);
	*(double *)arg = agent_now_ms();
	atomic_fetch_add(rc == 0 ? &connected : err == ECONNREFUSED ? &refused : &other, 1);
	close(s);
	return NULL;
}

static void *racer(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int rc = connect(s, (struct sockaddr *)&addr, addr_len), err = errno;

		atomic_fetch_add(rc == 0 ? &connected : err == ECONNREFUSED ? &refused : &other, 1);
		if (rc != 0 && err != ECONNREFUSED)
			agent_log("connect", dest, rc, err, NULL);
		close(s);
	}
	return NULL;
}

static void summary(const char *mode)
{
	char extra[160];

	snprintf(extra, sizeof(extra),
		 ",\"mode\":\"%s\",\"connected\":%ld,\"refused\":%ld,\"other\":%ld", mode,
		 atomic_load(&connected), atomic_load(&refused), atomic_load(&other));
	agent_log("summary", dest, 0, 0, extra);
}

int main(int argc, char **argv)
{
	static const char usage[] = "@NAME wait|race";
	pthread_t t[RACERS];
	double ended = 0;
	int wait_mode, l, fill;
	size_t n;

	agent_init("unix-closing");
	if (argc != 3 || argv[1][0] != '@' || (n = strlen(argv[1] + 1)) == 0 ||
	    n >= sizeof(addr.sun_path) ||
	    (strcmp(argv[2], "wait") != 0 && strcmp(argv[2], "race") != 0))
		return agent_usage(usage);
	wait_mode = strcmp(argv[2], "wait") == 0;
	addr.sun_family = AF_UNIX;
	memcpy(addr.sun_path + 1, argv[1] + 1, n);
	addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	snprintf(dest, sizeof(dest), "unix:%s", argv[1]);
	l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&addr, addr_len) != 0 ||
	    listen(l, wait_mode ? 0 : 4096) != 0) {
		agent_log("listen", dest, -1, errno, NULL);
		return 2;
	}
	if (wait_mode) {
		/* Backlog 0 holds one connection: the next one waits. */
		fill = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (connect(fill, (struct sockaddr *)&addr, addr_len) != 0) {
			agent_log("connect", dest, -1, errno, ",\"role\":\"fill\"");
			return 1;
		}
		agent_log("connect", dest, 0, 0, ",\"role\":\"fill\"");
		if (pthread_create(&t[0], NULL, waiter, &ended) != 0)
			return 2;
		pause_ms(CLOSE_MS);
		closed_at = agent_now_ms();
		close(l);
		pthread_join(t[0], NULL);
		summary("wait");
		if (atomic_load(&other) || atomic_load(&connected))
			return 1;
		return ended >= closed_at ? 0 : 3;
	}
	for (int i = 0; i < RACERS; i++)
		if (pthread_create(&t[i], NULL, racer, NULL) != 0)
			return 2;
	pause_ms(CLOSE_MS);
	close(l);
	pause_ms(RACE_TAIL_MS);
	atomic_store(&stop, 1);
	for (int i = 0; i < RACERS; i++)
		pthread_join(t[i], NULL);
	summary("race");
	if (atomic_load(&other))
		return 1;
	return atomic_load(&refused) && atomic_load(&connected) ? 0 : 3;
}
