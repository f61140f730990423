/*
 * model-server: a loopback TCP server standing in for a local model. Binds
 * ADDR:PORT (PORT 0 picks one), logs the bound address, and answers each
 * line on each connection with "ok: LINE". Serves one connection at a time
 * and runs until killed.
 */
#include "agentlib.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static void serve(int c)
{
	struct timeval tv = {.tv_sec = 5};
	char in[1024], out[1100];
	size_t have = 0;

	/* A client that never finishes must not block the next one forever. */
	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (;;) {
		ssize_t r = read(c, in + have, sizeof(in) - 1 - have);
		char *nl;

		if (r <= 0)
			return;
		have += (size_t)r;
		in[have] = '\0';
		while ((nl = strchr(in, '\n'))) {
			*nl = '\0';
			snprintf(out, sizeof(out), "ok: %s\n", in);
			if (write(c, out, strlen(out)) < 0)
				return;
			have -= (size_t)(nl + 1 - in);
			memmove(in, nl + 1, have + 1);
		}
		if (have == sizeof(in) - 1)
			have = 0; /* an overlong line is dropped, not fatal */
	}
}

int main(int argc, char **argv)
{
	struct agent_dest d;
	char extra[96], text[80];
	int one = 1, fd;
	long r;

	agent_init("model-server");
	if (argc != 2 || agent_parse_dest(argv[1], &d) < 0)
		return agent_usage("ADDR:PORT");
	fd = socket(d.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	r = bind(fd, (const struct sockaddr *)&d.ss, d.len);
	if (r == 0)
		r = listen(fd, 64);
	if (r < 0) {
		agent_log("listen", d.text, r, errno, NULL);
		return 0;
	}
	getsockname(fd, (struct sockaddr *)&d.ss, &d.len);
	if (d.family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)&d.ss;

		inet_ntop(AF_INET, &sin->sin_addr, text, sizeof(text));
		snprintf(extra, sizeof(extra), ",\"port\":%d", ntohs(sin->sin_port));
	} else {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)&d.ss;

		inet_ntop(AF_INET6, &sin6->sin6_addr, text, sizeof(text));
		snprintf(extra, sizeof(extra), ",\"port\":%d", ntohs(sin6->sin6_port));
	}
	agent_log("listen", text, 0, 0, extra);
	for (;;) {
		int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			agent_log("accept", text, -1, errno, NULL);
			return 0;
		}
		serve(c);
		close(c);
	}
}
