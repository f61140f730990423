/*
 * exit-storm: ROUNDS times, a child process runs THREADS threads that connect
 * to DEST (and close) in a loop, and its main thread ends the whole child with
 * _exit after a pseudo-random 10..MS ms: calls that the supervisor received
 * but had not finished die with their task, again and again. A supervisor that
 * trusts its copies without ID_VALID then blames the host for a target that
 * merely went away. The parent logs one line per round; exit 0 when every
 * round ran.
 */
#include "agentlib.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static struct agent_dest dest;

static void *hammer(void *arg)
{
	(void)arg;
	for (;;) {
		int fd = socket(dest.family, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			continue;
		connect(fd, (const struct sockaddr *)&dest.ss, dest.len);
		close(fd);
	}
	return NULL;
}

static void child(long threads, long ms, unsigned seed)
{
	struct timespec ts;
	long wait_ms = 10 + (long)(seed % (unsigned)(ms > 10 ? ms - 9 : 1));

	for (long i = 0; i < threads; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, hammer, NULL) != 0)
			_exit(3);
	}
	ts.tv_sec = wait_ms / 1000;
	ts.tv_nsec = (wait_ms % 1000) * 1000000L;
	nanosleep(&ts, NULL);
	_exit(0);
}

int main(int argc, char **argv)
{
	long rounds, threads, ms;
	unsigned seed = 12345;
	char extra[96];

	agent_init("exit-storm");
	if (argc != 5 || (rounds = atol(argv[1])) < 1 || (threads = atol(argv[2])) < 1 ||
	    threads > 64 || (ms = atol(argv[3])) < 10 || agent_parse_dest(argv[4], &dest) < 0) {
		fprintf(stderr, "usage: exit-storm ROUNDS THREADS MS DEST\n");
		return 2;
	}
	for (long r = 0; r < rounds; r++) {
		int status = 0;
		pid_t pid;

		seed = seed * 1103515245u + 12345u;
		pid = fork();
		if (pid < 0) {
			agent_log("fork", NULL, -1, errno, NULL);
			return 1;
		}
		if (pid == 0)
			child(threads, ms, seed >> 8);
		waitpid(pid, &status, 0);
		snprintf(extra, sizeof(extra), ",\"round\":%ld,\"status\":%d", r, status);
		agent_log("round", dest.text, 0, 0, extra);
	}
	return 0;
}
