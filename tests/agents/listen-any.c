/*
 * listen-any: binds a TCP socket to ADDR (the wildcard 0.0.0.0:PORT, a local
 * address, or loopback) and listens. If listening works and LINE is given,
 * it waits up to 2 s for one inbound connection and writes LINE to that
 * peer, which nobody judged. Logs bind, listen, accept and send. Exits 0 when listen's answer is
 * WANT (an errno name, or "ok"), 1 otherwise.
 */
#include "agentlib.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct agent_dest d;
	struct pollfd pfd;
	const char *got;
	long r;
	int fd, one = 1;

	agent_init("listen-any");
	if (argc < 3 || argc > 4 || agent_parse_dest(argv[2], &d) < 0)
		return agent_usage("WANT ADDR:PORT [LINE]");
	fd = socket(d.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	r = bind(fd, (const struct sockaddr *)&d.ss, d.len);
	agent_log("bind", d.text, r, errno, NULL);
	if (r < 0)
		return 1;
	r = listen(fd, 4);
	agent_log("listen", d.text, r, errno, NULL);
	got = r == 0 ? "ok" : agent_errno_name(errno);
	if (r == 0 && argc == 4) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 2000) == 1) {
			int c = accept(fd, NULL, NULL);

			agent_log("accept", d.text, c, errno, NULL);
			if (c >= 0) {
				/* send() to an accepted peer: "connected-peer" to the
				 * supervisor, which judged nothing about it. */
				r = send(c, argv[3], strlen(argv[3]), MSG_NOSIGNAL);
				agent_log("send", d.text, r, errno, NULL);
				close(c);
			}
		}
	}
	close(fd);
	return strcmp(got, argv[1]) == 0 ? 0 : 1;
}
