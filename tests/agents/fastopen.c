/*
 * fastopen: sendto(MSG_FASTOPEN) with DEST on an unconnected TCP socket: a
 * connect hidden in a send, with the destination in memory.
 */
#include "agentlib.h"

#include <errno.h>
#include <unistd.h>

#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif

int main(int argc, char **argv)
{
	static const char payload[] = "hello\n";
	struct agent_dest d;
	long r;
	int fd;

	agent_init("fastopen");
	if (argc != 2 || agent_parse_dest(argv[1], &d) < 0)
		return agent_usage("DEST");
	fd = socket(d.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		agent_log("socket", d.text, fd, errno, NULL);
		return 0;
	}
	r = sendto(fd, payload, sizeof(payload) - 1, MSG_FASTOPEN | MSG_NOSIGNAL,
		   (const struct sockaddr *)&d.ss, d.len);
	agent_log("sendto", d.text, r, errno, NULL);
	close(fd);
	return 0;
}
