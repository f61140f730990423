/*
 * fd-launcher: a caller that leaves a socket open for what it runs. Creates
 * a socket of PROTO (udp or tcp) connected to DEST (no close-on-exec), then
 * execs PROGRAM with the remaining arguments. UDP connects send nothing, so
 * the destination (a sink) sees traffic only if the exec'd program, or
 * something it runs, writes to the descriptor.
 *
 *     fd-launcher udp|tcp DEST -- PROGRAM [ARG]...
 */
#include "agentlib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct agent_dest d;
	int fd, type;
	char extra[32];

	agent_init("fd-launcher");
	if (argc < 5 || strcmp(argv[3], "--") != 0 || agent_parse_dest(argv[2], &d) != 0 ||
	    (strcmp(argv[1], "udp") != 0 && strcmp(argv[1], "tcp") != 0))
		return agent_usage("udp|tcp DEST -- PROGRAM [ARG]...");
	type = strcmp(argv[1], "udp") == 0 ? SOCK_DGRAM : SOCK_STREAM;
	fd = socket(d.family, type, 0); /* deliberately not SOCK_CLOEXEC */
	if (fd < 0) {
		agent_log("socket", d.text, fd, errno, NULL);
		return 1;
	}
	snprintf(extra, sizeof(extra), ",\"fd\":%d", fd);
	/* "launcher_connect": the caller's own connect, before any filter
	 * existed; it is not an attempt of the agent. */
	{
		/* Arguments are evaluated in no set order: errno after the call. */
		int r = connect(fd, (const struct sockaddr *)&d.ss, d.len);

		agent_log("launcher_connect", d.text, r, r < 0 ? errno : 0, extra);
	}
	return agent_exec_caller(argv + 4);
}
