/*
 * fork-storm: N children, each connects once; child i to DEST number i modulo
 * the number of DESTs. The parent reaps all.
 */
#include "agentlib.h"

#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static struct agent_dest d[16];
	long n, i, nd;

	agent_init("fork-storm");
	nd = argc - 2;
	if (nd < 1 || nd > 16 || (n = agent_parse_count(argv[1])) < 1)
		return agent_usage("N DEST... (1..16)");
	for (i = 0; i < nd; i++)
		if (agent_parse_dest(argv[2 + i], &d[i]) < 0)
			return agent_usage("N DEST... (1..16)");
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			agent_log("fork", NULL, -1, errno, NULL);
			break;
		}
		if (pid == 0) {
			const struct agent_dest *c = &d[i % nd];
			int fd = socket(c->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
			long r = connect(fd, (const struct sockaddr *)&c->ss, c->len);

			agent_log("connect", c->text, r, errno, NULL);
			close(fd);
			_exit(0);
		}
	}
	while (wait(NULL) > 0 || errno == EINTR)
		;
	return 0;
}
