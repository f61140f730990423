/*
 * inherit-fd: writes a line to every socket it finds open above fd 2 with
 * write() (never trapped: no destination), and logs each write with the
 * socket's peer. A socket the caller connected before any filter existed
 * would carry the line to wherever the caller pointed it; the supervisor
 * must have closed every such descriptor before exec. With --stdio it
 * looks at descriptors 0-2 too (which the supervisor keeps for the agent: a
 * socket there must lead where the policy allows, or the run is refused).
 *
 *     inherit-fd [--stdio]
 */
#include "agentlib.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FD 1024

static void peer_text(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN];

	snprintf(buf, len, "fd %d", fd);
	if (getpeername(fd, (struct sockaddr *)&ss, &sl) != 0)
		return;
	if (ss.ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
		snprintf(buf, len, "%s:%u", host, ntohs(a->sin_port));
	} else if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
		snprintf(buf, len, "[%s]:%u", host, ntohs(a->sin6_port));
	}
}

int main(int argc, char **argv)
{
	static int socks[MAX_FD];
	int n = 0, open_fds = 0;
	char extra[64];

	int first = argc == 2 && strcmp(argv[1], "--stdio") == 0 ? 0 : 3;

	/* Before agent_init: its log descriptor is not one we inherited. */
	for (int fd = first; fd < MAX_FD; fd++) {
		struct stat st;

		if (fstat(fd, &st) != 0)
			continue;
		open_fds++;
		if (S_ISSOCK(st.st_mode))
			socks[n++] = fd;
	}
	agent_init("inherit-fd");
	if (argc != 1 && first != 0)
		return agent_usage("[--stdio]");
	snprintf(extra, sizeof(extra), ",\"sockets\":%d", n);
	agent_log("inherited_fds", NULL, open_fds, 0, extra);
	for (int i = 0; i < n; i++) {
		static const char line[] = "inherit-fd: data over an inherited socket\n";
		char peer[96];
		long r = write(socks[i], line, sizeof(line) - 1);

		peer_text(socks[i], peer, sizeof(peer));
		agent_log("write_inherited", peer, r, errno, NULL);
	}
	return 0;
}
