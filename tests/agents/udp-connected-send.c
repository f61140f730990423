/*
 * udp-connected-send: connects a UDP socket to DEST, then send()s PAYLOAD
 * with no address (sendto with a NULL destination: the peer was judged at
 * connect time).
 */
#include "agentlib.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *payload = argc > 2 ? argv[2] : "ping";
	struct agent_dest d;
	long r;
	int fd;

	agent_init("udp-connected-send");
	if (argc < 2 || argc > 3 || agent_parse_dest(argv[1], &d) < 0)
		return agent_usage("DEST [PAYLOAD]");
	fd = socket(d.family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		agent_log("socket", d.text, fd, errno, NULL);
		return 0;
	}
	r = connect(fd, (const struct sockaddr *)&d.ss, d.len);
	agent_log("connect", d.text, r, errno, NULL);
	r = send(fd, payload, strlen(payload), 0);
	agent_log("send", NULL, r, errno, NULL);
	close(fd);
	return 0;
}
