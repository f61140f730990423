/*
 * mapped-v6: connects an AF_INET6 TCP socket to the IPv4-mapped form
 * [::ffff:a.b.c.d]:port of the IPv4 DEST given.
 */
#include "agentlib.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6};
	const struct sockaddr_in *sin;
	struct agent_dest d;
	char text[96];
	long r;
	int fd;

	agent_init("mapped-v6");
	if (argc != 2 || agent_parse_dest(argv[1], &d) < 0 || d.family != AF_INET)
		return agent_usage("A.B.C.D:PORT");
	sin = (const struct sockaddr_in *)&d.ss;
	sin6.sin6_port = sin->sin_port;
	sin6.sin6_addr.s6_addr[10] = 0xff;
	sin6.sin6_addr.s6_addr[11] = 0xff;
	memcpy(&sin6.sin6_addr.s6_addr[12], &sin->sin_addr, 4);
	snprintf(text, sizeof(text), "[::ffff:%.*s]:%s", (int)(strrchr(d.text, ':') - d.text),
		 d.text, strrchr(d.text, ':') + 1);
	fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		agent_log("socket", text, fd, errno, NULL);
		return 0;
	}
	r = connect(fd, (const struct sockaddr *)&sin6, sizeof(sin6));
	agent_log("connect", text, r, errno, NULL);
	close(fd);
	return 0;
}
