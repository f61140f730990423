/* ha23-unix.c (hostile review h-attack23): agents and a stand-in service
 * for ha23-*.sh. Names: "@NAME" abstract, "\0" in NAME written as "\\0"
 * (embedded NULs), "@" alone is the empty abstract name (addrlen 3).
 *
 *   serve-dgram NAME MARKER  stand-in root service: a datagram socket bound
 *       to NAME; writes every datagram it gets to MARKER.
 *   serve NAME MARKER  the same for a stream listener.
 *   own NAME  the agent binds and listens on NAME, a child connects to it
 *       and exchanges a line (the run's own listener).
 *   zombie-leader NAME  the agent's main thread binds and listens on NAME,
 *       starts a thread that accepts, and ends with pthread_exit (the
 *       process lives on in its thread); a child connects.
 *   unshared-table NAME  the listener lives only in a thread that unshared
 *       its descriptor table (stated in design.md; for comparison).
 *   mmsg OWN HOST  one sendmmsg on a datagram socket: message 0 to OWN
 *       (bound by the agent), message 1 to HOST.
 *   serve-forking NAME MARKER  stand-in root service like serve, which on
 *       SIGUSR1 forks a worker that inherits the listener (dup2'd onto
 *       descriptors 3-400) and sleeps 8 s (a pre-forking server respawning one).
 *   reuse NAME  the agent forks a child X (comm "ha23-victim") that sleeps,
 *       connects to NAME after 1.5 s, and 1 s later kills and reaps X
 *       while the supervisor is between reading X's pid namespace and
 *       X's descriptors (ha23-pidreuse.sh); 9 s later, once the
 *       service's worker is gone, connects again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static socklen_t name_of(struct sockaddr_un *a, const char *p)
{
	size_t n = 0;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (p[0] != '@') {
		snprintf(a->sun_path, sizeof(a->sun_path), "%s", p);
		return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(p) + 1);
	}
	a->sun_path[n++] = '\0';
	for (p++; *p && n < sizeof(a->sun_path); p++) {
		if (p[0] == '\\' && p[1] == '0') {
			a->sun_path[n++] = '\0';
			p++;
		} else {
			a->sun_path[n++] = *p;
		}
	}
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
}

static int bound(const char *p, int type)
{
	struct sockaddr_un a;
	socklen_t l = name_of(&a, p);
	int s = socket(AF_UNIX, type, 0);

	if (s < 0 || bind(s, (struct sockaddr *)&a, l) != 0) {
		printf("bind %s: %s\n", p, strerror(errno));
		return -1;
	}
	if (type == SOCK_STREAM && listen(s, 16) != 0)
		return -1;
	return s;
}

static int talk(const char *p)
{
	struct sockaddr_un a;
	socklen_t l = name_of(&a, p);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	char buf[128];
	ssize_t n;

	if (connect(s, (struct sockaddr *)&a, l) != 0) {
		printf("agent: connect %s (addrlen %u): %s\n", p, (unsigned)l, strerror(errno));
		return 1;
	}
	write(s, "agent's line\n", 13);
	n = read(s, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	printf("agent: connect %s (addrlen %u): ok, answer: %s", p, (unsigned)l,
	       n > 0 ? buf : "(none)\n");
	return 0;
}

static void answer_loop(int s)
{
	for (;;) {
		int c = accept(s, NULL, NULL);
		char buf[128];

		if (c < 0)
			return;
		if (read(c, buf, sizeof(buf)) > 0)
			write(c, "own listener\n", 13);
		close(c);
	}
}

static void *acceptor(void *arg)
{
	answer_loop(*(int *)arg);
	return NULL;
}

static int serve(const char *p, const char *marker, int type)
{
	int s = bound(p, type);

	if (s < 0)
		return 1;
	printf("service: on %s\n", p);
	fflush(stdout);
	for (;;) {
		int c = type == SOCK_STREAM ? accept(s, NULL, NULL) : s, m;
		char buf[512];
		ssize_t n;

		if (c < 0)
			return 1;
		n = read(c, buf, sizeof(buf));
		m = open(marker, O_WRONLY | O_CREAT | O_APPEND, 0644);
		dprintf(m, "service outside the run got: %.*s\n", n > 0 ? (int)n : 0, buf);
		close(m);
		if (type == SOCK_STREAM) {
			write(c, "host service\n", 13);
			close(c);
		}
	}
}

static int zombie_leader(const char *p)
{
	static int s;
	pthread_t t;

	s = bound(p, SOCK_STREAM);
	if (s < 0)
		return 1;
	pthread_create(&t, NULL, acceptor, &s);
	if (fork() == 0) {
		close(s);
		usleep(300000);
		_exit(talk(p));
	}
	/* The process goes on in its acceptor thread; the child's status is
	 * collected by the reaper. */
	alarm(3);
	pthread_exit(NULL);
}

static void *unshared(void *arg)
{
	int s;

	(void)arg;
	unshare(CLONE_FILES);
	s = bound((const char *)arg, SOCK_STREAM);
	answer_loop(s);
	return NULL;
}

static int unshared_table(const char *p)
{
	pthread_t t;
	int rc;

	pthread_create(&t, NULL, unshared, (void *)p);
	usleep(300000);
	rc = talk(p);
	return rc;
}

static int own(const char *p)
{
	int s = bound(p, SOCK_STREAM), rc;
	pid_t pid;

	if (s < 0)
		return 1;
	pid = fork();
	if (pid == 0) {
		alarm(5);
		answer_loop(s);
		_exit(0);
	}
	close(s);
	rc = talk(p);
	kill(pid, SIGKILL);
	return rc;
}

static int mmsg(const char *own_name, const char *host)
{
	struct sockaddr_un a[2];
	struct mmsghdr m[2];
	struct iovec io[2] = {{"to own\n", 7}, {"to host via sendmmsg\n", 21}};
	int own_s = bound(own_name, SOCK_DGRAM), s = socket(AF_UNIX, SOCK_DGRAM, 0), n;

	memset(m, 0, sizeof(m));
	for (int i = 0; i < 2; i++) {
		m[i].msg_hdr.msg_namelen = name_of(&a[i], i ? host : own_name);
		m[i].msg_hdr.msg_name = &a[i];
		m[i].msg_hdr.msg_iov = &io[i];
		m[i].msg_hdr.msg_iovlen = 1;
	}
	n = sendmmsg(s, m, 2, 0);
	printf("agent: sendmmsg: %d (%s)\n", n, n < 0 ? strerror(errno) : "count");
	(void)own_s;
	return 0;
}

static volatile sig_atomic_t fork_worker;

static void on_usr1(int sig)
{
	(void)sig;
	fork_worker = 1;
}

static int serve_forking(const char *p, const char *marker)
{
	struct sigaction sa = {.sa_handler = on_usr1};
	int s = bound(p, SOCK_STREAM);

	if (s < 0)
		return 1;
	sigaction(SIGUSR1, &sa, NULL); /* no SA_RESTART: accept returns EINTR */
	printf("service: on %s (pid %d)\n", p, (int)getpid());
	for (;;) {
		int c = accept(s, NULL, NULL), m;
		char buf[512];
		ssize_t n;

		if (c < 0 && errno == EINTR && fork_worker) {
			pid_t w;

			fork_worker = 0;
			w = fork();
			if (w == 0) {
				for (int fd = 3; fd <= 400; fd++)
					if (fd != s)
						dup2(s, fd);
				sleep(8);
				_exit(0);
			}
			printf("service: forked worker %d\n", (int)w);
			continue;
		}
		if (c < 0)
			continue;
		n = read(c, buf, sizeof(buf));
		m = open(marker, O_WRONLY | O_CREAT | O_APPEND, 0644);
		dprintf(m, "service outside the run got: %.*s\n", n > 0 ? (int)n : 0, buf);
		close(m);
		write(c, "host service\n", 13);
		close(c);
	}
}

static void *connector(void *arg)
{
	talk((const char *)arg);
	return NULL;
}

static int reuse(const char *p)
{
	pthread_t t;
	pid_t x = fork();

	if (x == 0) {
		prctl(PR_SET_NAME, "ha23-victim");
		pause();
		_exit(0);
	}
	sleep(1);
	usleep(500000);
	pthread_create(&t, NULL, connector, (void *)p);
	sleep(1);
	kill(x, SIGKILL);
	waitpid(x, NULL, 0);
	printf("agent: X (pid %d here) killed and reaped\n", (int)x);
	pthread_join(t, NULL);
	/* Later connects: the host listener's cookie is cached as the run's. */
	sleep(9);
	printf("agent: again, with no worker of the service left:\n");
	return talk(p);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 4 && !strcmp(argv[1], "serve"))
		return serve(argv[2], argv[3], SOCK_STREAM);
	if (argc == 4 && !strcmp(argv[1], "serve-dgram"))
		return serve(argv[2], argv[3], SOCK_DGRAM);
	if (argc == 3 && !strcmp(argv[1], "own"))
		return own(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "connect"))
		return talk(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "zombie-leader"))
		return zombie_leader(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "unshared-table"))
		return unshared_table(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "mmsg"))
		return mmsg(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "serve-forking"))
		return serve_forking(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "reuse"))
		return reuse(argv[2]);
	fprintf(stderr, "usage: see the header\n");
	return 2;
}
