/*
 * listen-race: rebinds a listening socket to the wildcard while the
 * supervisor judges a second listen() of it. A TCP socket is bound to
 * 127.0.0.1 with a kernel-chosen port P and listens (allowed: loopback).
 * Then the main thread calls listen() again (trapped) while a second thread,
 * DELAY_MS later, shuts the socket down (shutdown(SHUT_RD) on a listener runs
 * tcp_disconnect, which gives a kernel-chosen port back) and binds it to
 * 0.0.0.0:P. If the rebind lands between the supervisor's judgement and its
 * listen, and the supervisor does not look at the name again, the socket
 * listens on the wildcard: any peer could connect in.
 * Logs listen (both), shutdown, bind, and "listening" with the final bound
 * name and SO_ACCEPTCONN as the kernel reports them (the ground truth).
 * Exits 1 when the socket ends up listening on a non-loopback name, else 0.
 */
#include "agentlib.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fd;
static long delay_ms;
static unsigned short port;

static void *rebind(void *arg)
{
	struct sockaddr_in any = {.sin_family = AF_INET, .sin_port = htons(port)};
	struct timespec ts = {.tv_sec = delay_ms / 1000, .tv_nsec = (delay_ms % 1000) * 1000000L};
	char name[32];
	long r;

	(void)arg;
	nanosleep(&ts, NULL);
	r = shutdown(fd, SHUT_RD);
	agent_log("shutdown", "SHUT_RD", r, errno, NULL);
	snprintf(name, sizeof(name), "0.0.0.0:%u", port);
	r = bind(fd, (const struct sockaddr *)&any, sizeof(any));
	agent_log("bind", name, r, errno, NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_in lo = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sockaddr_in now;
	socklen_t len = sizeof(lo), il = sizeof(int);
	char name[48], extra[32];
	int listening = 0;
	pthread_t t;
	long r;

	agent_init("listen-race");
	if (argc != 2 || (delay_ms = agent_parse_count(argv[1])) < 0)
		return agent_usage("DELAY_MS");
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (const struct sockaddr *)&lo, sizeof(lo)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&lo, &len) < 0)
		return 2;
	port = ntohs(lo.sin_port);
	snprintf(name, sizeof(name), "127.0.0.1:%u", port);
	r = listen(fd, 4);
	agent_log("listen", name, r, errno, NULL);
	if (r < 0)
		return 2;
	if (pthread_create(&t, NULL, rebind, NULL) != 0)
		return 2;
	r = listen(fd, 8);
	agent_log("listen", name, r, errno, ",\"which\":\"second\"");
	pthread_join(t, NULL);

	len = sizeof(now);
	memset(&now, 0, sizeof(now));
	if (getsockname(fd, (struct sockaddr *)&now, &len) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &il) < 0)
		return 2;
	snprintf(name, sizeof(name), "%s:%u", inet_ntoa(now.sin_addr), ntohs(now.sin_port));
	snprintf(extra, sizeof(extra), ",\"acceptconn\":%d", listening);
	agent_log("listening", name, listening, 0, extra);
	close(fd);
	return listening && now.sin_addr.s_addr != htonl(INADDR_LOOPBACK) ? 1 : 0;
}
