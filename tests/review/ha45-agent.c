/* Review h-attack45: agent for the sort-probe rule (d7e44ca).
 *
 *   ha45-agent gai NAME            getaddrinfo(NAME, NULL): the libc's own
 *                                  sorting probe (musl: port 65535)
 *   ha45-agent udp0 ADDR PROTO     socket(family, SOCK_DGRAM, PROTO), connect
 *                                  ADDR with port 0, then getpeername and a
 *                                  send without a name: does anything follow?
 *   ha45-agent connected DECL UND  a UDP socket connected to DECL:9, then a
 *                                  connect to UND:0, then send(): where to?
 *   ha45-agent race UND N          thread A connects fd K to UND:0 N times,
 *                                  thread B dup2()s a TCP and a UDP socket
 *                                  over K in turn: every connect must fail,
 *                                  and none may leave a socket connected
 *   ha45-agent tcp0 ADDR           a TCP connect to ADDR:0 (control)
 *   ha45-agent phase N             the reaper's bracketing call forged:
 *                                  connect(-1, 1 or 2, 0) N times each, from
 *                                  the agent and from its child
 *
 * Prints one line per call: "name rc errno". Exit 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef IPPROTO_UDPLITE
#define IPPROTO_UDPLITE 136
#endif

static int parse(const char *s, int port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, s, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((unsigned short)port);
		*len = sizeof(*s4);
		return AF_INET;
	}
	if (inet_pton(AF_INET6, s, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((unsigned short)port);
		*len = sizeof(*s6);
		return AF_INET6;
	}
	fprintf(stderr, "bad address %s\n", s);
	exit(2);
}

static void say(const char *what, int rc)
{
	printf("%s %d %s\n", what, rc, rc < 0 ? strerror(errno) : "-");
	fflush(stdout);
}

static int race_fd = 100;
static atomic_int race_stop;

static void *swapper(void *arg)
{
	int *socks = arg;

	for (unsigned i = 0; !atomic_load(&race_stop); i++)
		dup2(socks[i & 1], race_fd);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ss, peer;
	socklen_t len, plen = sizeof(peer);
	int fam, fd, rc;

	if (argc >= 3 && strcmp(argv[1], "gai") == 0) {
		struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res, *p;
		char buf[INET6_ADDRSTRLEN];

		rc = getaddrinfo(argv[2], NULL, &hints, &res);
		printf("getaddrinfo %d\n", rc);
		for (p = rc == 0 ? res : NULL; p; p = p->ai_next) {
			void *a = p->ai_family == AF_INET
				      ? (void *)&((struct sockaddr_in *)p->ai_addr)->sin_addr
				      : (void *)&((struct sockaddr_in6 *)p->ai_addr)->sin6_addr;
			printf("  %s\n", inet_ntop(p->ai_family, a, buf, sizeof(buf)));
		}
		return 0;
	}
	if (argc >= 4 && strcmp(argv[1], "udp0") == 0) {
		fam = parse(argv[2], 0, &ss, &len);
		fd = socket(fam, SOCK_DGRAM, atoi(argv[3]));
		say("socket", fd);
		say("connect", connect(fd, (struct sockaddr *)&ss, len));
		say("getpeername", getpeername(fd, (struct sockaddr *)&peer, &plen));
		say("send", (int)send(fd, "x", 1, 0));
		return 0;
	}
	if (argc >= 4 && strcmp(argv[1], "connected") == 0) {
		fam = parse(argv[2], 9, &ss, &len);
		fd = socket(fam, SOCK_DGRAM, 0);
		say("connect-declared", connect(fd, (struct sockaddr *)&ss, len));
		parse(argv[3], 0, &ss, &len);
		say("connect-undeclared-0", connect(fd, (struct sockaddr *)&ss, len));
		rc = getpeername(fd, (struct sockaddr *)&peer, &plen);
		say("getpeername", rc);
		if (rc == 0) {
			char buf[INET6_ADDRSTRLEN];
			void *a = peer.ss_family == AF_INET
				      ? (void *)&((struct sockaddr_in *)&peer)->sin_addr
				      : (void *)&((struct sockaddr_in6 *)&peer)->sin6_addr;
			printf("  peer %s:%u\n", inet_ntop(peer.ss_family, a, buf, sizeof(buf)),
			       ntohs(((struct sockaddr_in *)&peer)->sin_port));
		}
		say("send", (int)send(fd, "x", 1, 0));
		return 0;
	}
	if (argc >= 4 && strcmp(argv[1], "race") == 0) {
		int socks[2], n = atoi(argv[3]), ok = 0, conn = 0, eacces = 0, other = 0;
		pthread_t t;

		fam = parse(argv[2], 0, &ss, &len);
		socks[0] = socket(fam, SOCK_STREAM, 0);
		socks[1] = socket(fam, SOCK_DGRAM, 0);
		dup2(socks[1], race_fd);
		pthread_create(&t, NULL, swapper, socks);
		for (int i = 0; i < n; i++) {
			rc = connect(race_fd, (struct sockaddr *)&ss, len);
			if (rc == 0)
				ok++;
			else if (errno == EACCES)
				eacces++;
			else
				other++;
		}
		atomic_store(&race_stop, 1);
		pthread_join(t, NULL);
		for (int i = 0; i < 2; i++) {
			plen = sizeof(peer);
			if (getpeername(socks[i], (struct sockaddr *)&peer, &plen) == 0)
				conn++;
		}
		printf("race connects %d ok %d eacces %d other %d connected-after %d\n", n, ok,
		       eacces, other, conn);
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "tcp0") == 0) {
		fam = parse(argv[2], 0, &ss, &len);
		fd = socket(fam, SOCK_STREAM, 0);
		say("connect", connect(fd, (struct sockaddr *)&ss, len));
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "phase") == 0) {
		int n = atoi(argv[2]);
		pid_t pid = fork();

		for (int i = 0; i < n; i++) {
			syscall(SYS_connect, -1, 1L, 0);
			syscall(SYS_connect, -1, 2L, 0);
		}
		if (pid == 0)
			_exit(0);
		printf("phase %d calls each from 2 processes\n", n);
		return 0;
	}
	fprintf(stderr, "usage: see the comment at the top\n");
	return 2;
}
