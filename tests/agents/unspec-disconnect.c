/*
 * unspec-disconnect: connects a UDP socket to DEST, then dissolves the
 * association with an AF_UNSPEC connect.
 */
#include "agentlib.h"

#include <errno.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr unspec = {.sa_family = AF_UNSPEC};
	struct agent_dest d;
	long r;
	int fd;

	agent_init("unspec-disconnect");
	if (argc != 2 || agent_parse_dest(argv[1], &d) < 0)
		return agent_usage("DEST");
	fd = socket(d.family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		agent_log("socket", d.text, fd, errno, NULL);
		return 0;
	}
	r = connect(fd, (const struct sockaddr *)&d.ss, d.len);
	agent_log("connect", d.text, r, errno, NULL);
	r = connect(fd, &unspec, sizeof(unspec));
	agent_log("connect", "unspec", r, errno, NULL);
	close(fd);
	return 0;
}
