/*
 * What the supervisor's caller hands it besides its argv and environment
 * (scenario keys stdio= and mount=, docs/scenarios.md and
 * docs/supervisor-contract.md): the objects on its descriptors 0-2 and the
 * file systems mounted where it runs. egress-envexec sets them up in the
 * run's own mount namespace, so every supervisor bundle gets the same.
 * Every function returns 0 or -errno and, on failure, writes what failed
 * into ERR.
 */
#ifndef EGRESS_GUEST_CALLER_H
#define EGRESS_GUEST_CALLER_H

#include <stddef.h>

/* The file the io_uring_params of a ring on descriptor N are written to
 * (the caller's own record of its ring; an agent needs the offsets to map
 * it, and io_uring_setup, which would tell them, is trapped). */
#define EV_CALLER_PARAMS_FMT "/tmp/egress-stdio.%d.params"

/* Which caller-side objects a cell file may name. */
enum ev_stdio_kind {
	EV_STDIO_TCP,
	EV_STDIO_UDP,
	EV_STDIO_IO_URING,
	EV_STDIO_PTY,
	EV_STDIO_PTY_NOSESSION,
	/* An AF_UNIX stream (or datagram) socketpair end whose queue holds a
	 * UDP socket the caller connected to ADDR:PORT, sent with SCM_RIGHTS
	 * (with one byte, or as an empty datagram). */
	EV_STDIO_UNIX_RIGHTS,
	EV_STDIO_UNIX_DGRAM_RIGHTS,
};

struct ev_stdio {
	int fd; /* 0, 1 or 2 */
	enum ev_stdio_kind kind;
	char dest[64]; /* tcp, udp: ADDR:PORT ([V6]:PORT) */
};

/* Parses a cell's `stdio=FD KIND [ADDR:PORT]` value. */
int ev_caller_parse_stdio(const char *val, struct ev_stdio *s, char *err, size_t errlen);

/*
 * `mount=TYPE PATH` (TYPE proc or sysfs, PATH absolute under /tmp): makes
 * PATH and mounts a fresh TYPE there (nosuid, nodev, noexec). Root with
 * CAP_SYS_ADMIN, in the run's own mount namespace, so the mount goes with
 * it and init's view never has it.
 */
int ev_caller_mount(const char *val, char *err, size_t errlen);

/*
 * Puts S's object on descriptor S->fd, made with the caller's (the
 * supervisor's) credentials: a socket connected to S->dest, an io_uring
 * ring of 4 entries (its params in EV_CALLER_PARAMS_FMT), or TTY_FD (the
 * terminal init holds the master of) as the caller's controlling terminal:
 * the caller leads a session of its own with it, as a login shell does.
 * DETAIL says what was done.
 */
int ev_caller_stdio(const struct ev_stdio *s, int tty_fd, char *detail, size_t len);

#endif
