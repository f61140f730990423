/*
 * daemonize: double fork + setsid; the middle process exits, so the
 * grandchild is re-parented (to the supervisor when it is a subreaper). The
 * grandchild waits until that has happened, then connects to DEST.
 */
#include "agentlib.h"

#include <errno.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void grandchild(const struct agent_dest *d, pid_t middle)
{
	struct timespec tick = {.tv_nsec = 10 * 1000 * 1000};
	char extra[64];
	long r;
	int i, fd;

	for (i = 0; i < 500 && getppid() == middle; i++)
		nanosleep(&tick, NULL);
	snprintf(extra, sizeof(extra), ",\"ppid\":%d", (int)getppid());
	fd = socket(d->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		agent_log("socket", d->text, fd, errno, extra);
		_exit(0);
	}
	r = connect(fd, (const struct sockaddr *)&d->ss, d->len);
	agent_log("connect", d->text, r, errno, extra);
	close(fd);
	_exit(0);
}

int main(int argc, char **argv)
{
	struct agent_dest d;
	pid_t middle;
	int status;

	agent_init("daemonize");
	if (argc != 2 || agent_parse_dest(argv[1], &d) < 0)
		return agent_usage("DEST");
	middle = fork();
	if (middle < 0) {
		agent_log("fork", NULL, -1, errno, NULL);
		return 0;
	}
	if (middle == 0) {
		pid_t me = getpid(), g;

		setsid();
		g = fork();
		if (g == 0)
			grandchild(&d, me);
		agent_log("fork", NULL, g, errno, NULL);
		_exit(0);
	}
	waitpid(middle, &status, 0);
	return 0;
}
