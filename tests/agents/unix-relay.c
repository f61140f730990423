/*
 * unix-relay: a root service on an AF_UNIX name that carries what its
 * client sends to the network, and the agents that reach it (docs/design.md,
 * "A root agent's AF_UNIX peers"). docker.sock, systemd's private socket or
 * a D-Bus activation are such services: the client's bytes leave by the
 * service's own socket, outside the run, where no filter of the run looks.
 *
 *   unix-relay serve NAME HOST:PORT
 *       the service: binds and listens on NAME (a path: missing parent
 *       directories made and a stale file unlinked first; @NAME: the
 *       abstract name NAME), then binds a UDP socket on 127.0.0.1:0 (the
 *       guest's readiness signal for a service). For each connection it
 *       opens a TCP connection to HOST:PORT and copies bytes both ways
 *       until either side closes or 2 s pass without any. Serves until
 *       killed.
 *   unix-relay send NAME [--want-reply] [--cd DIR] [--away chroot|detach]
 *       the agent: connects a stream socket to NAME, writes a marker line
 *       and waits up to 2 s for a reply line (the sink's, through the
 *       relay). Exit 0 whatever happened; with --want-reply, 1 unless a
 *       reply came back (the marker reached the relay's peer). --cd DIR:
 *       chdir(DIR) first (a relative NAME is then under DIR). --away: the
 *       working directory moved out of where its name leads, in a user
 *       and mount namespace of the agent's own (reviews h-attack48/49):
 *       chroot puts the root at /agents and leaves the working directory
 *       DIR outside it; detach binds DIR on itself, enters it and detaches
 *       the bind, which renames it "/". Exit 2 if that cannot be done.
 *   unix-relay self NAME [--cd DIR] [--want-own]
 *       the agent with a listener of its own: chdir(DIR) first when given
 *       (a relative NAME is then under DIR), binds and listens on NAME (a
 *       path's missing parents made), connects to NAME, writes the marker,
 *       accepts on its own listener (2 s) and answers what arrived there,
 *       then waits up to 2 s for the reply on its client. Exit 0 whatever
 *       happened; with --want-own, 1 unless the marker reached its own
 *       listener.
 *
 * Attempts are logged with dest "unix:PATH" or "unix:@NAME".
 */
#include "agentlib.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define MARKER "unix-relay marker\n"
#define OWN_REPLY "own listener\n"
#define WAIT_MS 2000

struct unix_name {
	struct sockaddr_un sun;
	socklen_t len;
	int abstract;
	const char *arg;
	char text[sizeof(((struct sockaddr_un *)0)->sun_path) + 8];
};

/* A path, or @NAME for the abstract name NAME (no trailing NUL counted, as
 * ss and systemd write them). Returns 0 or -EINVAL. */
static int parse_name(const char *s, struct unix_name *u)
{
	size_t n = strlen(s);

	memset(u, 0, sizeof(*u));
	u->sun.sun_family = AF_UNIX;
	u->arg = s;
	if (n == 0 || n >= sizeof(u->sun.sun_path) || (s[0] == '@' && n < 2))
		return -EINVAL;
	u->abstract = s[0] == '@';
	/* An abstract name's sun_path starts with its NUL: the '@' slot. */
	memcpy(u->sun.sun_path + u->abstract, s + u->abstract, n - (size_t)u->abstract);
	u->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (u->abstract ? 0 : 1));
	snprintf(u->text, sizeof(u->text), "unix:%s", s);
	return 0;
}

/* Whether fd is readable within WAIT_MS. */
static int readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int n;

	while ((n = poll(&p, 1, WAIT_MS)) < 0 && errno == EINTR)
		;
	return n == 1;
}

/* Reads one short message within WAIT_MS and logs it as CALL. Returns the
 * byte count (0 on EOF or when nothing came, -1 on an error). */
static long read_logged(int fd, const char *call, const char *dest, char *buf, size_t size)
{
	char esc[300], extra[340];
	ssize_t n;

	if (!readable(fd)) {
		agent_log(call, dest, -1, ETIMEDOUT, NULL);
		return 0;
	}
	n = read(fd, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
	snprintf(extra, sizeof(extra), ",\"data\":\"%s\"",
		 agent_json_escape(buf, esc, sizeof(esc)));
	agent_log(call, dest, (long)n, errno, n > 0 ? extra : NULL);
	return (long)n;
}

/* A listening stream socket on u: its descriptor, or -1 (logged). */
static int listen_on(const struct unix_name *u)
{
	int l, rc;

	if (!u->abstract) {
		rc = agent_make_parent(u->arg);
		if (rc < 0)
			agent_log("mkdir", u->text, -1, -rc, NULL);
		unlink(u->arg);
	}
	l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	rc = l < 0 ? -1 : bind(l, (const struct sockaddr *)&u->sun, u->len);
	agent_log("bind", u->text, rc, errno, NULL);
	if (rc == 0) {
		rc = listen(l, 8);
		agent_log("listen", u->text, rc, errno, NULL);
	}
	if (rc != 0) {
		if (l >= 0)
			close(l);
		return -1;
	}
	return l;
}

/* One client: a TCP connection to `to`, then bytes both ways until either
 * side closes or WAIT_MS pass quietly. */
static void relay(int c, const struct agent_dest *to)
{
	int t = socket(to->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	long r = t < 0 ? -1 : connect(t, (const struct sockaddr *)&to->ss, to->len);

	agent_log("connect", to->text, r, errno, NULL);
	if (r < 0) {
		if (t >= 0)
			close(t);
		return;
	}
	(void)agent_pump(c, t, to->text, WAIT_MS);
	close(t);
}

static int serve(const struct unix_name *u, const struct agent_dest *to)
{
	struct sockaddr_in lo = {.sin_family = AF_INET};
	int l = listen_on(u), ready;

	if (l < 0)
		return 1;
	/* A root agent has CAP_DAC_OVERRIDE; anyone else needs the mode. */
	if (!u->abstract)
		chmod(u->arg, 0666);
	lo.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ready = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (ready < 0 || bind(ready, (struct sockaddr *)&lo, sizeof(lo)) != 0) {
		agent_log("bind", "127.0.0.1:0", -1, errno, NULL);
		return 1;
	}
	for (;;) {
		int c = accept4(l, NULL, NULL, SOCK_CLOEXEC);

		agent_log("accept", u->text, c, errno, NULL);
		if (c < 0)
			continue;
		relay(c, to);
		close(c);
	}
}

/* Connects a stream socket to u and writes the marker: the socket, or -1
 * when socket() itself failed. */
static int connect_and_mark(const struct unix_name *u, long *wrote)
{
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	long r;

	*wrote = -1;
	if (s < 0) {
		agent_log("socket", u->text, -1, errno, NULL);
		return -1;
	}
	r = connect(s, (const struct sockaddr *)&u->sun, u->len);
	agent_log("connect", u->text, r, errno, NULL);
	/* Written even after a failed connect: what the call left the socket
	 * able to do is part of the record. */
	*wrote = write(s, MARKER, strlen(MARKER));
	agent_log("write", u->text, *wrote, errno, NULL);
	return s;
}

/* chdir(dir), after moving it out of where its name leads (away: chroot
 * or detach; NULL: nowhere). Returns 0 or -1, logged. */
static int enter(const char *dir, const char *away)
{
	long r = 0;

	if (away) {
		r = unshare(CLONE_NEWUSER | CLONE_NEWNS);
		agent_log("unshare", "user+mount", r, errno, NULL);
	}
	if (r == 0 && away && strcmp(away, "detach") == 0) {
		r = mount(dir, dir, NULL, MS_BIND | MS_REC, NULL);
		agent_log("bind", dir, r, errno, NULL);
	}
	if (r == 0) {
		r = chdir(dir);
		agent_log("chdir", dir, r, errno, NULL);
	}
	if (r == 0 && away && strcmp(away, "detach") == 0) {
		r = umount2(".", MNT_DETACH);
		agent_log("detach", dir, r, errno, NULL);
	}
	if (r == 0 && away && strcmp(away, "chroot") == 0) {
		r = chroot("/agents");
		agent_log("chroot", "/agents", r, errno, NULL);
	}
	return r == 0 ? 0 : -1;
}

static int send_marker(const struct unix_name *u, int want_reply)
{
	char buf[256];
	long wrote, got = 0;
	int s = connect_and_mark(u, &wrote);

	if (s >= 0 && wrote > 0)
		got = read_logged(s, "read", u->text, buf, sizeof(buf));
	if (s >= 0)
		close(s);
	return want_reply && got <= 0;
}

static int self_marker(const struct unix_name *u, const char *dir, int want_own)
{
	char buf[256];
	long wrote;
	int l, s, c, own = 0;

	if (dir) {
		int r = chdir(dir);

		agent_log("chdir", dir, r, errno, NULL);
		if (r != 0)
			return want_own;
	}
	l = listen_on(u);
	if (l < 0)
		return want_own;
	s = connect_and_mark(u, &wrote);
	if (readable(l)) {
		c = accept4(l, NULL, NULL, SOCK_CLOEXEC);
		agent_log("accept", u->text, c, errno, NULL);
		if (c >= 0) {
			own = read_logged(c, "own-read", u->text, buf, sizeof(buf)) > 0 &&
			      strcmp(buf, MARKER) == 0;
			if (own && write(c, OWN_REPLY, strlen(OWN_REPLY)) < 0)
				agent_log("own-write", u->text, -1, errno, NULL);
			close(c);
		}
	} else {
		agent_log("accept", u->text, -1, ETIMEDOUT, NULL);
	}
	/* Whoever answered the client: its own listener, or a peer the call
	 * was taken to instead. */
	if (s >= 0 && wrote > 0)
		read_logged(s, "read", u->text, buf, sizeof(buf));
	if (s >= 0)
		close(s);
	close(l);
	return want_own && !own;
}

int main(int argc, char **argv)
{
	static const char usage[] =
	    "serve NAME HOST:PORT | send NAME [--want-reply] [--cd DIR] [--away chroot|detach] | "
	    "self NAME [--cd DIR] [--want-own]   (NAME: PATH or @ABSTRACT)";
	struct unix_name u;
	struct agent_dest to;
	const char *dir = NULL, *away = NULL;
	int want = 0;

	agent_init("unix-relay");
	/* A relay's client or a peer that went away answers EPIPE, never a
	 * signal. */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 3 || parse_name(argv[2], &u) < 0)
		return agent_usage(usage);
	if (strcmp(argv[1], "serve") == 0) {
		if (argc != 4 || agent_parse_dest(argv[3], &to) < 0)
			return agent_usage(usage);
		return serve(&u, &to);
	}
	for (int i = 3; i < argc; i++) {
		if (strcmp(argv[1], "send") == 0 && strcmp(argv[i], "--want-reply") == 0)
			want = 1;
		else if (strcmp(argv[1], "self") == 0 && strcmp(argv[i], "--want-own") == 0)
			want = 1;
		else if (strcmp(argv[i], "--cd") == 0 && i + 1 < argc)
			dir = argv[++i];
		else if (strcmp(argv[1], "send") == 0 && strcmp(argv[i], "--away") == 0 &&
			 i + 1 < argc &&
			 (strcmp(argv[i + 1], "chroot") == 0 || strcmp(argv[i + 1], "detach") == 0))
			away = argv[++i];
		else
			return agent_usage(usage);
	}
	if (strcmp(argv[1], "send") == 0 && (away || dir) && (!dir || enter(dir, away) != 0))
		return 2;
	if (strcmp(argv[1], "send") == 0)
		return send_marker(&u, want);
	if (strcmp(argv[1], "self") == 0)
		return self_marker(&u, dir, want);
	return agent_usage(usage);
}
