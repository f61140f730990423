/* Which AF_UNIX socket a name or a socket file is bound to, and whether a
 * process of the run holds it (sock_diag and /proc), for unixpeer.c. */
#ifndef SV_UNIXDIAG_H
#define SV_UNIXDIAG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What a socket is bound to: an abstract name (name, len: the bytes after
 * the leading NUL), or, with name NULL, the socket file with that device
 * and inode (as stat shows them). */
struct sv_unix_bound {
	const unsigned char *name;
	size_t len;
	dev_t dev;
	ino_t ino;
};

/* A bound socket: its inode (as /proc/PID/fd shows it) and its cookie,
 * which the kernel never gives to another socket. */
struct sv_unix_sock {
	unsigned ino;
	uint64_t cookie;
};

/* The sockets of this type bound as want says, looked up with sock_diag in
 * the network namespace of socket sock (an abstract name lives there; the
 * agent may have made or joined another one than ours), listeners only
 * for a connection-oriented type. Returns how many (at most max), or
 * -errno (-E2BIG past max). */
int sv_unixdiag_bound(int sock, int type, const struct sv_unix_bound *want,
		      struct sv_unix_sock *out, int max);

/* Whether a process of the run holds the socket with inode ino in its
 * descriptor table. With reaper > 0 (init of the run's pid namespace) the
 * run's processes are those the /proc of the reaper's mount namespace
 * lists (nested pid namespaces included); else those of our /proc in the
 * pid namespace of thread tid. Returns 1, 0, or -errno. */
int sv_unixdiag_run_holds(pid_t reaper, pid_t tid, unsigned ino);

#endif
