/*
 * blocking-connect: one thread makes a blocking connect to BLACKHOLE (a
 * declared address that never answers, bounded by SO_SNDTIMEO, default 5 s)
 * while the main thread makes N (default 1000) connects to DECLARED. Logs
 * each side's timing and whether the N finished while the blocker still
 * waited.
 *
 * Once the N are done, a blocker that still waits is released: the main
 * thread shuts its socket down, which ends a connect in SYN_SENT at once
 * (ECONNRESET) on every descriptor of that socket, the duplicate a
 * supervisor connects on included; the timeout is only the bound for when
 * the N never finish.
 *
 * Exit status: 0 when all N connected while the blocker still waited, 1
 * otherwise (a supervisor that serves one call at a time holds the N behind
 * the blocked one).
 */
#include "agentlib.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static struct agent_dest blackhole, declared;
static long timeout_s = 5;
static atomic_int blocker_started, blocker_done, blocker_fd = -1;

static void *blocker(void *arg)
{
	struct timeval tv = {.tv_sec = timeout_s};
	char extra[64];
	double t0;
	int fd = socket(blackhole.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	long r;

	(void)arg;
	/* connect() honours SO_SNDTIMEO: the blocked call ends by itself. */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	atomic_store(&blocker_fd, fd);
	t0 = agent_now_ms();
	atomic_store(&blocker_started, 1);
	r = connect(fd, (const struct sockaddr *)&blackhole.ss, blackhole.len);
	atomic_store(&blocker_done, 1);
	snprintf(extra, sizeof(extra), ",\"ms\":%.3f", agent_now_ms() - t0);
	agent_log("blocking_connect", blackhole.text, r, errno, extra);
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	static const char usage[] = "[-n N] [--timeout SEC] BLACKHOLE DECLARED";
	struct timespec settle = {.tv_nsec = 200 * 1000 * 1000};
	double t0, worst = 0, total;
	long n = 1000, i, ok = 0, fail = 0, first_err = 0;
	char extra[256];
	pthread_t th;
	int a = 1, still_blocked;

	agent_init("blocking-connect");
	while (a + 1 < argc && argv[a][0] == '-') {
		if (strcmp(argv[a], "-n") == 0)
			n = agent_parse_count(argv[a + 1]);
		else if (strcmp(argv[a], "--timeout") == 0)
			timeout_s = agent_parse_count(argv[a + 1]);
		else
			return agent_usage(usage);
		a += 2;
	}
	if (argc - a != 2 || n < 0 || timeout_s < 1 || agent_parse_dest(argv[a], &blackhole) < 0 ||
	    agent_parse_dest(argv[a + 1], &declared) < 0)
		return agent_usage(usage);
	if (pthread_create(&th, NULL, blocker, NULL)) {
		agent_log("pthread_create", NULL, -1, errno, NULL);
		return 0;
	}
	/* Give the blocker time to be stuck inside its connect first. */
	while (!atomic_load(&blocker_started))
		nanosleep(&settle, NULL);
	nanosleep(&settle, NULL);
	t0 = agent_now_ms();
	for (i = 0; i < n; i++) {
		double c0 = agent_now_ms(), dt;
		int fd = socket(declared.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int r = connect(fd, (const struct sockaddr *)&declared.ss, declared.len);

		if (r == 0)
			ok++;
		else if (fail++ == 0)
			first_err = errno;
		close(fd);
		dt = agent_now_ms() - c0;
		if (dt > worst)
			worst = dt;
	}
	total = agent_now_ms() - t0;
	still_blocked = !atomic_load(&blocker_done);
	snprintf(extra, sizeof(extra),
		 ",\"attempts\":%ld,\"ok\":%ld,\"failed\":%ld,\"first_errno\":\"%s\",\"ms\":%.3f,"
		 "\"worst_ms\":%.3f,\"while_blocked\":%s",
		 n, ok, fail, fail ? agent_errno_name((int)first_err) : "", total, worst,
		 still_blocked ? "true" : "false");
	agent_log("connect_summary", declared.text, ok, 0, extra);
	if (still_blocked) {
		long r = shutdown(atomic_load(&blocker_fd), SHUT_RDWR);

		agent_log("release_blocker", blackhole.text, r, errno, NULL);
	}
	pthread_join(th, NULL);
	return ok == n && still_blocked ? 0 : 1;
}
