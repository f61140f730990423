/*
 * leader-exit: the main thread leaves with pthread_exit (the thread-group
 * leader becomes a zombie) while a second thread connects to each DEST. The
 * kernel then refuses pidfd_getfd on the process (ESRCH) although the calling
 * thread lives: a refusal must still be recorded, and an allowed call the
 * supervisor cannot perform must be a mechanism failure, never a quiet one.
 */
#include "agentlib.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define MAX_DESTS 8

static struct agent_dest dests[MAX_DESTS];
static int ndests;

static void *worker(void *arg)
{
	(void)arg;
	/* Let the leader finish leaving first. */
	usleep(200 * 1000);
	for (int i = 0; i < ndests; i++) {
		int fd = socket(dests[i].family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int r = connect(fd, (const struct sockaddr *)&dests[i].ss, dests[i].len);

		agent_log("connect", dests[i].text, r, errno, NULL);
		close(fd);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	agent_init("leader-exit");
	if (argc < 2 || argc - 1 > MAX_DESTS) {
		fprintf(stderr, "usage: leader-exit DEST...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		if (agent_parse_dest(argv[i], &dests[ndests++]) < 0) {
			fprintf(stderr, "leader-exit: bad DEST '%s'\n", argv[i]);
			return 2;
		}
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	pthread_exit(NULL);
}
