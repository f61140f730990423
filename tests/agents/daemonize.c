/*
 * daemonize: double fork + setsid; the middle process exits, so the
 * grandchild is re-parented (to the supervisor when it is a subreaper). The
 * grandchild waits until that has happened, then connects to DEST.
 *   daemonize DEST
 *   daemonize --outlive FLAG DEST DEST2
 *       the grandchild also sends "before\n" on its connection to DEST, then
 *       waits (up to 20 s) for the file FLAG to exist (the test creates it
 *       once the supervisor is dead), sends "after\n" on the same
 *       connection (write_after) and connects a new socket to DEST2
 *       (connect_after).
 * Each connect is logged before the call as well (try_connect,
 * try_connect_after): a supervisor that ends the run with the agent's first
 * process may kill the grandchild inside its call, and the oracle must know
 * it was tried (docs/supervisor-contract.md, untried=pass).
 */
#include "agentlib.h"

#include <errno.h>
#include <string.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *flag;
static struct agent_dest dest2;

/* After the supervisor died: the old connection, then a new trapped call. */
static void outlive(int fd)
{
	struct timespec tick = {.tv_nsec = 10 * 1000 * 1000};
	long r;
	int i, fd2;

	r = write(fd, "before\n", 7);
	agent_log("write_before", NULL, r, errno, NULL);
	for (i = 0; i < 2000 && access(flag, F_OK) != 0; i++)
		nanosleep(&tick, NULL);
	r = write(fd, "after\n", 6);
	agent_log("write_after", NULL, r, errno, NULL);
	fd2 = socket(dest2.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	agent_log("try_connect_after", dest2.text, 0, 0, NULL);
	r = fd2 < 0 ? fd2 : connect(fd2, (const struct sockaddr *)&dest2.ss, dest2.len);
	agent_log("connect_after", dest2.text, r, errno, NULL);
}

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
	agent_log("try_connect", d->text, 0, 0, extra);
	r = connect(fd, (const struct sockaddr *)&d->ss, d->len);
	agent_log("connect", d->text, r, errno, extra);
	if (flag && r == 0)
		outlive(fd);
	close(fd);
	_exit(0);
}

int main(int argc, char **argv)
{
	struct agent_dest d;
	pid_t middle;
	int status;

	agent_init("daemonize");
	if (argc == 5 && strcmp(argv[1], "--outlive") == 0) {
		flag = argv[2];
		if (agent_parse_dest(argv[4], &dest2) < 0)
			return agent_usage("[--outlive FLAG DEST DEST2 | DEST]");
		argc = 2;
		argv += 2;
	}
	if (argc != 2 || agent_parse_dest(argv[1], &d) < 0)
		return agent_usage("[--outlive FLAG DEST DEST2 | DEST]");
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
