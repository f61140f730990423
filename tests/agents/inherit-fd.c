/*
 * inherit-fd: writes a line to every socket it finds open above fd 2 with
 * write() (never trapped: no destination), and logs each write with the
 * socket's peer. A socket the caller connected before any filter existed
 * would carry the line to wherever the caller pointed it; the supervisor
 * must have closed every such descriptor before exec. With --stdio it
 * looks at descriptors 0-2 too (which the supervisor keeps for the agent: a
 * socket there must lead where the policy allows, or the run is refused).
 * With --rights it first receives (recvmsg, never trapped) whatever
 * descriptors are queued with SCM_RIGHTS on an AF_UNIX socket among 0-2,
 * and writes to those too: a caller's socket one hop away.
 *
 *     inherit-fd [--stdio [--rights]]
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
#define MAX_RIGHTS 8

/* Receives the descriptors queued on the AF_UNIX socket fd into socks;
 * returns how many, or -errno. */
static int receive_rights(int fd, int *socks, int room)
{
	char data[64], cbuf[CMSG_SPACE(sizeof(int) * MAX_RIGHTS)];
	struct iovec iov = {.iov_base = data, .iov_len = sizeof(data)};
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	int n = 0;

	if (recvmsg(fd, &m, MSG_DONTWAIT) < 0)
		return -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int) && n < room; i++)
			memcpy(&socks[n++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
	}
	return n;
}

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

	int first = argc >= 2 && strcmp(argv[1], "--stdio") == 0 ? 0 : 3;
	int rights = first == 0 && argc == 3 && strcmp(argv[2], "--rights") == 0;
	int scanned;

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
	if ((argc != 1 && first != 0) || (first == 0 && argc == 3 && !rights) || argc > 3)
		return agent_usage("[--stdio [--rights]]");
	scanned = n;
	for (int i = 0; rights && i < scanned && socks[i] < 3 && n < MAX_FD - MAX_RIGHTS; i++) {
		int dom = 0, got;
		socklen_t dl = sizeof(dom);

		if (getsockopt(socks[i], SOL_SOCKET, SO_DOMAIN, &dom, &dl) != 0 || dom != AF_UNIX)
			continue;
		got = receive_rights(socks[i], socks + n, MAX_RIGHTS);
		snprintf(extra, sizeof(extra), ",\"fd\":%d", socks[i]);
		agent_log("received_rights", NULL, got < 0 ? -1 : got, got < 0 ? -got : 0, extra);
		if (got > 0)
			n += got;
	}
	snprintf(extra, sizeof(extra), ",\"sockets\":%d", scanned);
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
