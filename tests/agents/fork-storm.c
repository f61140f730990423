/* fork-storm: N children, each connects once to DEST; the parent reaps all. */
#include "agentlib.h"

#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct agent_dest d;
	long n, i;

	agent_init("fork-storm");
	if (argc != 3 || (n = agent_parse_count(argv[1])) < 1 || agent_parse_dest(argv[2], &d) < 0)
		return agent_usage("N DEST");
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			agent_log("fork", NULL, -1, errno, NULL);
			break;
		}
		if (pid == 0) {
			int fd = socket(d.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
			long r = connect(fd, (const struct sockaddr *)&d.ss, d.len);

			agent_log("connect", d.text, r, errno, NULL);
			close(fd);
			_exit(0);
		}
	}
	while (wait(NULL) > 0 || errno == EINTR)
		;
	return 0;
}
