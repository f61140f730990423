/* ha29-unix.c (hostile review h-attack29): agent and stand-ins for ha29-*.sh.
 *
 *   connect @NAME        a stream connect to @NAME, then a line written;
 *                        prints what connect said.
 *   sendto @NAME         a datagram to @NAME; prints what sendto said.
 *   service @S @D MARK -- CMD...
 *                        stand-in host service: a stream listener on @S and
 *                        a datagram socket bound to @D, both kept open in
 *                        this process; whatever reaches either is appended
 *                        to MARK. It starts CMD (the job runner that starts
 *                        the supervisor) with both sockets left open in it
 *                        (a descriptor leaked to a child: no
 *                        close-on-exec), waits for it, and exits with its
 *                        status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static socklen_t name_of(struct sockaddr_un *a, const char *p)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (p[0] == '@') {
		memcpy(a->sun_path + 1, p + 1, strlen(p + 1));
		return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(p));
	}
	strcpy(a->sun_path, p);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(p) + 1);
}

static int bound(int type, const char *name)
{
	struct sockaddr_un a;
	socklen_t l = name_of(&a, name);
	int s = socket(AF_UNIX, type, 0); /* no SOCK_CLOEXEC: leaked on purpose */

	if (s < 0 || bind(s, (struct sockaddr *)&a, l) != 0 ||
	    (type == SOCK_STREAM && listen(s, 16) != 0)) {
		perror("service: bind");
		exit(2);
	}
	return s;
}

static void note(const char *mark, const char *what, const char *buf, ssize_t n)
{
	FILE *f = fopen(mark, "a");

	if (!f)
		return;
	fprintf(f, "%s: %.*s\n", what, n > 0 ? (int)n : 0, buf);
	fclose(f);
}

static int service(int argc, char **argv)
{
	int ls, ds;
	pid_t job;
	int status = 0;

	if (argc < 6 || strcmp(argv[4], "--") != 0)
		return 2;
	ls = bound(SOCK_STREAM, argv[1]);
	ds = bound(SOCK_DGRAM, argv[2]);
	job = fork();
	if (job == 0) {
		execvp(argv[5], argv + 5);
		_exit(127);
	}
	for (;;) {
		struct pollfd p[2] = {{.fd = ls, .events = POLLIN}, {.fd = ds, .events = POLLIN}};
		char buf[256];
		ssize_t n;

		if (waitpid(job, &status, WNOHANG) == job)
			break;
		if (poll(p, 2, 50) <= 0)
			continue;
		if (p[0].revents & POLLIN) {
			int c = accept(ls, NULL, NULL);

			if (c >= 0) {
				struct pollfd q = {.fd = c, .events = POLLIN};

				n = poll(&q, 1, 500) > 0 ? read(c, buf, sizeof(buf)) : 0;
				note(argv[3], "stream", buf, n);
				close(c);
			}
		}
		if (p[1].revents & POLLIN) {
			n = recv(ds, buf, sizeof(buf), 0);
			note(argv[3], "dgram", buf, n);
		}
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	struct sockaddr_un a;
	socklen_t l;
	int s, rc;

	if (argc >= 2 && strcmp(argv[1], "service") == 0)
		return service(argc - 1, argv + 1);
	if (argc != 3)
		return 2;
	l = name_of(&a, argv[2]);
	if (strcmp(argv[1], "connect") == 0) {
		s = socket(AF_UNIX, SOCK_STREAM, 0);
		rc = connect(s, (struct sockaddr *)&a, l);
		printf("agent: connect %s: %s\n", argv[2], rc == 0 ? "connected" : strerror(errno));
		if (rc == 0)
			(void)!write(s, "agent was here (stream)", 23);
	} else if (strcmp(argv[1], "sendto") == 0) {
		s = socket(AF_UNIX, SOCK_DGRAM, 0);
		rc = (int)sendto(s, "agent was here (dgram)", 22, 0, (struct sockaddr *)&a, l);
		printf("agent: sendto %s: %s\n", argv[2], rc >= 0 ? "sent" : strerror(errno));
	} else {
		return 2;
	}
	return 0;
}
