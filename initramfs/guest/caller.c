/*
 * The caller's side of a run (caller.h). Why each piece: a supervisor keeps
 * descriptors 0-2 for its agent (only those above 2 are closed), so a
 * careless caller's socket, io_uring ring or terminal there reaches the
 * agent; and a chroot builder's second proc mount is a way to the kernel's
 * knobs that a rule written for /proc alone misses (docs/design.md, "Threat
 * model: the agent process").
 */
#include "caller.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "names.h"

#include <linux/io_uring.h>

#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#endif

int ev_caller_parse_stdio(const char *val, struct ev_stdio *s, char *err, size_t errlen)
{
	char kind[24] = "", dest[64] = "", extra[2] = "";
	int n;

	memset(s, 0, sizeof(*s));
	n = sscanf(val, "%d %23s %63s %1s", &s->fd, kind, dest, extra);
	if (n < 2 || n > 3 || s->fd < 0 || s->fd > 2)
		return ev_fail(err, errlen, EINVAL, "stdio=%s: want FD KIND [ADDR:PORT], FD 0-2",
			       val);
	if (strcmp(kind, "tcp") == 0 || strcmp(kind, "udp") == 0 ||
	    strcmp(kind, "unix-rights") == 0 || strcmp(kind, "unix-dgram-rights") == 0) {
		if (n != 3)
			return ev_fail(err, errlen, EINVAL, "stdio=%s: %s needs ADDR:PORT", val,
				       kind);
		s->kind = strcmp(kind, "tcp") == 0           ? EV_STDIO_TCP
			  : strcmp(kind, "udp") == 0         ? EV_STDIO_UDP
			  : strcmp(kind, "unix-rights") == 0 ? EV_STDIO_UNIX_RIGHTS
							     : EV_STDIO_UNIX_DGRAM_RIGHTS;
		memcpy(s->dest, dest, sizeof(s->dest));
		return 0;
	}
	if (n != 2)
		return ev_fail(err, errlen, EINVAL, "stdio=%s: %s takes no argument", val, kind);
	if (strcmp(kind, "io_uring") == 0)
		s->kind = EV_STDIO_IO_URING;
	else if (strcmp(kind, "pty") == 0)
		s->kind = EV_STDIO_PTY;
	else if (strcmp(kind, "pty-nosession") == 0)
		s->kind = EV_STDIO_PTY_NOSESSION;
	else
		return ev_fail(err, errlen, EINVAL,
			       "stdio=%s: kind %s is not tcp, udp, unix-rights, "
			       "unix-dgram-rights, io_uring, pty or pty-nosession",
			       val, kind);
	return 0;
}

int ev_caller_mount(const char *val, char *err, size_t errlen)
{
	char type[16] = "", path[256] = "", extra[2] = "";
	const unsigned long flags = MS_NOSUID | MS_NODEV | MS_NOEXEC;

	if (sscanf(val, "%15s %255s %1s", type, path, extra) != 2 ||
	    (strcmp(type, "proc") != 0 && strcmp(type, "sysfs") != 0) ||
	    strncmp(path, "/tmp/", 5) != 0 || strstr(path, "/.."))
		return ev_fail(
		    err, errlen, EINVAL,
		    "mount=%s: want proc|sysfs /tmp/PATH (no ..): / is read-only in the run", val);
	/* mkdir -p: each parent under /tmp, which is writable. */
	for (char *p = path + 5;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST)
			return ev_fail(err, errlen, errno, "mount=%s: mkdir %s", val, path);
		*p = c;
		if (!c)
			break;
	}
	if (mount(type, path, type, flags, NULL) != 0)
		return ev_fail(err, errlen, errno, "mount=%s: mount -t %s %s", val, type, path);
	return 0;
}

static int parse_dest(const char *text, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[64];
	const char *colon = strrchr(text, ':');
	long port;
	size_t hl;

	if (!colon || (port = strtol(colon + 1, NULL, 10)) < 1 || port > 65535)
		return -EINVAL;
	hl = (size_t)(colon - text);
	if (text[0] == '[' && hl >= 2 && text[hl - 1] == ']') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		if (hl - 2 >= sizeof(host))
			return -EINVAL;
		memcpy(host, text + 1, hl - 2);
		host[hl - 2] = '\0';
		memset(a, 0, sizeof(*a));
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((unsigned short)port);
		*len = sizeof(*a);
		return inet_pton(AF_INET6, host, &a->sin6_addr) == 1 ? 0 : -EINVAL;
	}
	if (hl >= sizeof(host))
		return -EINVAL;
	memcpy(host, text, hl);
	host[hl] = '\0';
	{
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		memset(a, 0, sizeof(*a));
		a->sin_family = AF_INET;
		a->sin_port = htons((unsigned short)port);
		*len = sizeof(*a);
		return inet_pton(AF_INET, host, &a->sin_addr) == 1 ? 0 : -EINVAL;
	}
}

/* Moves OBJ onto FD (dup2 leaves the copy without close-on-exec). */
static int place(int obj, int fd)
{
	if (obj == fd)
		return 0;
	if (dup2(obj, fd) != fd) {
		int e = errno;

		close(obj);
		return -e;
	}
	close(obj);
	return 0;
}

static int connected_socket(const struct ev_stdio *s, char *detail, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = 0;
	int type = s->kind == EV_STDIO_TCP ? SOCK_STREAM : SOCK_DGRAM, sock, r;

	if (parse_dest(s->dest, &ss, &sl) != 0)
		return ev_fail(detail, len, EINVAL, "stdio %d: bad ADDR:PORT %s", s->fd, s->dest);
	sock = socket(ss.ss_family, type | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return ev_fail(detail, len, errno, "stdio %d: socket", s->fd);
	if (connect(sock, (struct sockaddr *)&ss, sl) != 0) {
		int e = errno;

		close(sock);
		return ev_fail(detail, len, e, "stdio %d: connect %s", s->fd, s->dest);
	}
	if ((r = place(sock, s->fd)) < 0)
		return ev_fail(detail, len, -r, "stdio %d: dup2", s->fd);
	snprintf(detail, len, "descriptor %d: a %s socket connected to %s by the caller", s->fd,
		 type == SOCK_STREAM ? "TCP" : "UDP", s->dest);
	return 0;
}

/* A socketpair end on FD whose queue holds the caller's UDP socket to
 * s->dest, passed with SCM_RIGHTS: a stream pair sends it with one byte (a
 * stream carries descriptors only with data), a datagram pair as an empty
 * message (nothing for SIOCINQ to count). The other end and the UDP socket
 * are closed: only the queued copy is left. */
static int queued_socket(const struct ev_stdio *s, char *detail, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = 0;
	int stream = s->kind == EV_STDIO_UNIX_RIGHTS, pair[2], udp, r;
	char one = 'x', cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {.iov_base = &one, .iov_len = stream ? 1 : 0};
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *c;

	if (parse_dest(s->dest, &ss, &sl) != 0)
		return ev_fail(detail, len, EINVAL, "stdio %d: bad ADDR:PORT %s", s->fd, s->dest);
	udp = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (udp < 0)
		return ev_fail(detail, len, errno, "stdio %d: socket", s->fd);
	if (connect(udp, (struct sockaddr *)&ss, sl) != 0 ||
	    socketpair(AF_UNIX, (stream ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC, 0, pair) != 0) {
		int e = errno;

		close(udp);
		return ev_fail(detail, len, e, "stdio %d: connect %s or socketpair", s->fd,
			       s->dest);
	}
	memset(cbuf, 0, sizeof(cbuf));
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &udp, sizeof(int));
	r = sendmsg(pair[1], &m, 0) < 0 ? -errno : 0;
	close(udp);
	close(pair[1]);
	if (r < 0) {
		close(pair[0]);
		return ev_fail(detail, len, -r, "stdio %d: sendmsg SCM_RIGHTS", s->fd);
	}
	if ((r = place(pair[0], s->fd)) < 0)
		return ev_fail(detail, len, -r, "stdio %d: dup2", s->fd);
	snprintf(detail, len,
		 "descriptor %d: an AF_UNIX %s socket whose queue holds a UDP socket connected "
		 "to %s by the caller (SCM_RIGHTS, %s)",
		 s->fd, stream ? "stream" : "datagram", s->dest,
		 stream ? "with one byte" : "an empty datagram");
	return 0;
}

static int ring(const struct ev_stdio *s, char *detail, size_t len)
{
	struct io_uring_params p;
	char path[64];
	long fd;
	int out, r;

	memset(&p, 0, sizeof(p));
	fd = syscall(SYS_io_uring_setup, 4, &p);
	if (fd < 0)
		return ev_fail(detail, len, errno, "stdio %d: io_uring_setup", s->fd);
	snprintf(path, sizeof(path), EV_CALLER_PARAMS_FMT, s->fd);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0 || write(out, &p, sizeof(p)) != (ssize_t)sizeof(p) || close(out) != 0) {
		int e = errno;

		close((int)fd);
		return ev_fail(detail, len, e, "stdio %d: writing %s", s->fd, path);
	}
	if ((r = place((int)fd, s->fd)) < 0)
		return ev_fail(detail, len, -r, "stdio %d: dup2", s->fd);
	snprintf(detail, len,
		 "descriptor %d: an io_uring ring (4 entries, no SQPOLL) set up by the caller, "
		 "its params in %s",
		 s->fd, path);
	return 0;
}

static int terminal(const struct ev_stdio *s, int tty_fd, char *detail, size_t len)
{
	if (tty_fd < 0)
		return ev_fail(detail, len, EBADF, "stdio %d: no terminal from init (--tty)",
			       s->fd);
	if (dup2(tty_fd, s->fd) != s->fd)
		return ev_fail(detail, len, errno, "stdio %d: dup2", s->fd);
	/* A harness's pty (Python's pty.openpty() and Popen, a serial
	 * console before its getty): no session's controlling terminal
	 * (hostile review h-attack40). */
	if (s->kind == EV_STDIO_PTY_NOSESSION) {
		snprintf(detail, len,
			 "descriptor %d: a pty init holds the master of, no session's "
			 "controlling terminal",
			 s->fd);
		return 0;
	}
	/* A login's terminal: the caller leads its session and the terminal
	 * is that session's controlling terminal. Not a process group leader
	 * (init's background subshell), so setsid keeps this pid. A second pty
	 * descriptor finds the session made already. */
	if (getsid(0) != getpid() && setsid() < 0)
		return ev_fail(detail, len, errno, "stdio %d: setsid", s->fd);
	/* The session leader's process group becomes the foreground one. */
	if (ioctl(s->fd, TIOCSCTTY, 0) != 0)
		return ev_fail(detail, len, errno, "stdio %d: TIOCSCTTY", s->fd);
	snprintf(detail, len,
		 "descriptor %d: the caller's terminal (a pty init holds the master of), the "
		 "controlling terminal of the session the supervisor leads",
		 s->fd);
	return 0;
}

int ev_caller_stdio(const struct ev_stdio *s, int tty_fd, char *detail, size_t len)
{
	switch (s->kind) {
	case EV_STDIO_TCP:
	case EV_STDIO_UDP:
		return connected_socket(s, detail, len);
	case EV_STDIO_UNIX_RIGHTS:
	case EV_STDIO_UNIX_DGRAM_RIGHTS:
		return queued_socket(s, detail, len);
	case EV_STDIO_IO_URING:
		return ring(s, detail, len);
	case EV_STDIO_PTY:
	case EV_STDIO_PTY_NOSESSION:
		return terminal(s, tty_fd, detail, len);
	}
	return ev_fail(detail, len, EINVAL, "stdio %d: unknown kind", s->fd);
}
