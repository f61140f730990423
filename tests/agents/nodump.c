/*
 * nodump: makes itself non-dumpable (PR_SET_DUMPABLE 0), which takes away
 * ptrace-level access from anyone without CAP_SYS_PTRACE, then connects.
 */
#include "agentlib.h"

#include <errno.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct agent_dest d;
	long r;
	int fd;

	agent_init("nodump");
	if (argc != 2 || agent_parse_dest(argv[1], &d) < 0)
		return agent_usage("DEST");
	r = prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	agent_log("prctl_set_dumpable", NULL, r, errno, NULL);
	fd = socket(d.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		agent_log("socket", d.text, fd, errno, NULL);
		return 0;
	}
	r = connect(fd, (const struct sockaddr *)&d.ss, d.len);
	agent_log("connect", d.text, r, errno, NULL);
	close(fd);
	return 0;
}
