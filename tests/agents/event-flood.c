/*
 * event-flood: fills the report's event list before it does what decides
 * the verdict. N connects of an AF_UNIX socket to a name that does not
 * exist (each one trapped, judged local and allowed, answered ENOENT), then
 * one TCP connect to DEST. Only the last one is logged; exit status 0 when
 * the N connects were made, 2 on bad arguments.
 *
 *     event-flood N DEST
 */
#include "agentlib.h"

#include <errno.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_un u = {.sun_family = AF_UNIX};
	struct agent_dest d;
	long n, r;
	int fd;

	agent_init("event-flood");
	n = argc == 3 ? agent_parse_count(argv[1]) : -1;
	if (n < 0 || agent_parse_dest(argv[2], &d) < 0)
		return agent_usage("N DEST");
	strcpy(u.sun_path, "/nonexistent/event-flood");
	for (long i = 0; i < n; i++) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return 1;
		connect(fd, (const struct sockaddr *)&u, sizeof(u));
		close(fd);
	}
	agent_log("flood", NULL, n, 0, NULL);
	fd = socket(d.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	r = fd < 0 ? fd : connect(fd, (const struct sockaddr *)&d.ss, d.len);
	agent_log("connect", d.text, r, errno, NULL);
	return 0;
}
