/*
 * exec-chain: optionally connects to DEST, then execs PROGRAM (another
 * agent): the filter and the mediation must survive the exec.
 */
#include "agentlib.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct agent_dest d;
	int a = 1;

	agent_init("exec-chain");
	if (a + 1 < argc && strcmp(argv[a], "--connect") == 0) {
		int fd;
		long r;

		if (agent_parse_dest(argv[a + 1], &d) < 0)
			return agent_usage("[--connect DEST] PROGRAM [ARG...]");
		fd = socket(d.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		r = connect(fd, (const struct sockaddr *)&d.ss, d.len);
		agent_log("connect", d.text, r, errno, NULL);
		close(fd);
		a += 2;
	}
	if (a >= argc)
		return agent_usage("[--connect DEST] PROGRAM [ARG...]");
	agent_log("execve", argv[a], 0, 0, NULL);
	execv(argv[a], &argv[a]);
	agent_log("execve", argv[a], -1, errno, NULL);
	return 0;
}
