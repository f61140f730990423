/* Which AF_UNIX socket a name or a socket file is bound to, and whether a
 * process of the run holds it (sock_diag and /proc), for unixpeer.c. */
#ifndef SV_UNIXDIAG_H
#define SV_UNIXDIAG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What a socket is bound to: an abstract name (the bytes after the
 * leading NUL). */
struct sv_unix_bound {
	const unsigned char *name;
	size_t len;
};

/* A bound socket: its inode (as /proc/PID/fd shows it) and its cookie,
 * which the kernel never gives to another socket. */
struct sv_unix_sock {
	unsigned ino;
	uint64_t cookie;
};

/* The sockets of this type bound to the abstract name want, looked up with
 * sock_diag in the network namespace of socket sock (an abstract name lives
 * there; the agent may have made or joined another one than ours),
 * listeners only for a connection-oriented type. Returns how many (at most
 * max), or -errno (-E2BIG past max; without CONFIG_UNIX_DIAG the lookup is
 * ENOENT). */
int sv_unixdiag_bound(int sock, int type, const struct sv_unix_bound *want,
		      struct sv_unix_sock *out, int max);

/* Where a socket was found held: a duplicate of it (its "pin", which keeps
 * it open, so its name bound), and the process and descriptor it came
 * from. */
struct sv_unix_holder {
	int pin;
	pid_t pid;
	int fd;
};

/* Whether a process of the run of thread tid (runprocs.h) holds socket
 * sock in its descriptor table (its inode, then its cookie, taken with
 * pidfd_getfd). Returns 1 with *holder set (the caller closes its pin),
 * 0, or -errno. */
int sv_unixdiag_run_holds(pid_t tid, const struct sv_unix_sock *sock,
			  struct sv_unix_holder *holder);

/* Whether the kernel refuses a connect of this type to the abstract name
 * want in the network namespace of socket sock, asked of it in one step by
 * a connect of our own that can reach nothing (a dump, which resumes by
 * position, can miss a bound socket): ECONNREFUSED, as for the agent, when
 * nothing is bound there or, for a connection-oriented type, what is bound
 * does not listen. Returns 1 (refused), 0 (a listener or a receiver is
 * there), or -errno (-ENAMETOOLONG for a name longer than sun_path holds,
 * which the caller answers EINVAL before it gets here). */
int sv_unixdiag_name_refused(int sock, int type, const struct sv_unix_bound *want);

/* A new pin of a socket found held before, through the same process and
 * descriptor: the duplicate, or -1 when that descriptor is no longer the
 * socket with this cookie or that pid no longer a process of the run of
 * thread tid (then look again with sv_unixdiag_run_holds). */
int sv_unixdiag_pin(pid_t tid, const struct sv_unix_holder *holder, uint64_t cookie);

#endif
