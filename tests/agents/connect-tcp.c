/*
 * connect-tcp: connects a TCP socket to each DEST in turn; with --send, sends
 * LINE plus a newline on each connected socket and logs the reply line.
 */
#include "agentlib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static void try_dest(const struct agent_dest *d, const char *line)
{
	struct timeval tv = {.tv_sec = 5};
	char buf[512], esc[1100], extra[1200];
	long r;
	int fd = socket(d->family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		agent_log("socket", d->text, fd, errno, NULL);
		return;
	}
	r = connect(fd, (const struct sockaddr *)&d->ss, d->len);
	agent_log("connect", d->text, r, errno, NULL);
	if (r == 0 && line) {
		/* A reply that never comes must not hang the agent. */
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		snprintf(buf, sizeof(buf), "%s\n", line);
		/* send() is sendto() with a NULL destination: a trapped call too. */
		r = send(fd, buf, strlen(buf), MSG_NOSIGNAL);
		agent_log("send", d->text, r, errno, NULL);
		if (r >= 0) {
			r = recv(fd, buf, sizeof(buf) - 1, 0);
			buf[r > 0 ? r : 0] = '\0';
			buf[strcspn(buf, "\n")] = '\0';
			snprintf(extra, sizeof(extra), ",\"reply\":\"%s\"",
				 agent_json_escape(buf, esc, sizeof(esc)));
			agent_log("recv", d->text, r, errno, extra);
		}
	}
	close(fd);
}

int main(int argc, char **argv)
{
	const char *line = NULL;
	static struct agent_dest d[64];
	int i = 1, n, k;

	agent_init("connect-tcp");
	if (i + 1 < argc && strcmp(argv[i], "--send") == 0) {
		line = argv[i + 1];
		i += 2;
	}
	n = argc - i;
	if (n < 1 || n > 64)
		return agent_usage("[--send LINE] DEST... (1..64)");
	/* Parse everything first: bad arguments must not leave half a run. */
	for (k = 0; k < n; k++)
		if (agent_parse_dest(argv[i + k], &d[k]) < 0)
			return agent_usage("[--send LINE] DEST... (1..64)");
	for (k = 0; k < n; k++)
		try_dest(&d[k], line);
	return 0;
}
