/*
 * model-client: asks the model server at SERVER one question and logs the
 * answer, then tries UNDECLARED (an address the run did not declare).
 */
#include "agentlib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static int dial(const struct agent_dest *d)
{
	int fd = socket(d->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	long r;

	if (fd < 0) {
		agent_log("socket", d->text, fd, errno, NULL);
		return -1;
	}
	r = connect(fd, (const struct sockaddr *)&d->ss, d->len);
	agent_log("connect", d->text, r, errno, NULL);
	if (r < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	static const char question[] = "what is egress?\n";
	struct timeval tv = {.tv_sec = 5};
	struct agent_dest server, other;
	char buf[512], esc[1100], extra[1200];
	long r;
	int fd;

	agent_init("model-client");
	if (argc != 3 || agent_parse_dest(argv[1], &server) < 0 ||
	    agent_parse_dest(argv[2], &other) < 0)
		return agent_usage("SERVER UNDECLARED");
	fd = dial(&server);
	if (fd >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		r = send(fd, question, sizeof(question) - 1, MSG_NOSIGNAL);
		agent_log("send", server.text, r, errno, NULL);
		r = recv(fd, buf, sizeof(buf) - 1, 0);
		buf[r > 0 ? r : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		snprintf(extra, sizeof(extra), ",\"reply\":\"%s\"",
			 agent_json_escape(buf, esc, sizeof(esc)));
		agent_log("recv", server.text, r, errno, extra);
		close(fd);
	}
	fd = dial(&other);
	if (fd >= 0)
		close(fd);
	return 0;
}
