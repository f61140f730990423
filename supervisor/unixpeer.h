/* A root agent's AF_UNIX peers (docs/design.md, "A root agent's AF_UNIX
 * peers"; issue 11, class 5). A root agent reaches every AF_UNIX socket of
 * the host by its uid alone: systemd's private socket, the system D-Bus,
 * docker.sock run commands as root outside the run, and iscsid or an old
 * containerd-shim answer on abstract names. So in a pid-namespace run (the
 * agent is root, its host mounts read-only: rootfs.h) a unix name is a
 * peer of the run only when the run could have made it: a socket file on a
 * mount the agent may write (a declared path, its own /dev/shm), or an
 * abstract name bound by a socket a process of the run holds; anything else
 * must be declared with --unix-peer, or it is denied as "unix-peer". Other
 * runs keep the uid's own reach (the user's declared environment). */
#ifndef SV_UNIXPEER_H
#define SV_UNIXPEER_H

#include <stddef.h>
#include <linux/types.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "call.h"

/* At most this many --unix-peer specs. */
#define SV_UNIXPEER_MAX_DECLARED 32

/* Whether spec may be given to --unix-peer: 0, or -EINVAL with the reason in
 * why. Pure: an absolute path, or @NAME for the abstract name NAME (1 to
 * 107 bytes). */
int sv_unixpeer_check_declared(const char *spec, char *why, size_t len);

/* Set-up, once, before any child exists: the declared peers (which must
 * outlive the run), each path looked up now in our own namespace (it must
 * be a socket; its device and inode are what a name must lead to). Returns
 * 0, or -errno with the spec and the reason in why. */
int sv_unixpeer_declare(const char *const *specs, int n, char *why, size_t len);

/* Whether names are judged at all: in a pid-namespace run (its agent root,
 * its host mounts read-only). Set before the agent is spawned. */
void sv_unixpeer_set_judged(int judged);

/* The declared specs, for the report. Returns their number and sets *specs. */
int sv_unixpeer_declared(const char *const **specs);

/* The AF_UNIX name of an allowed connect or send, judged as the last step
 * before the act (after sv_call_device_last). A name that is not AF_UNIX,
 * on a run whose names are not judged, is left alone (returns 0, *why
 * untouched). Otherwise the name is looked up where the agent's calling
 * thread would look it up (a path in its root and working directory, an
 * abstract name in the network namespace we share), and:
 * - a path's object is kept open in c->peer_fd and *name / *len are
 *   rewritten to /proc/self/fd/N, so the call reaches exactly the socket
 *   judged, whatever the agent renames meanwhile; an abstract name is kept;
 *   *why is "local" (the run's own) or "declared-peer";
 * - a socket of the host the run did not make and the caller did not
 *   declare sets *deny to "unix-peer";
 * - a name that leads to no socket of the call's type sets *lookup_err to
 *   the kernel's answer (ENOENT, ECONNREFUSED, EPROTOTYPE, ...): the call
 *   is answered with it and nothing is performed.
 * Returns 0 (ID_VALID checked after the lookup, which read /proc of the
 * thread), or -1 with the call finished (a mechanism failure: the lookup
 * could not be made, as on a kernel without openat2). */
int sv_unixpeer_judge(struct sv_call *c, const struct sv_dest *d, const void **name, uint32_t *len,
		      const char **why, const char **deny, int *lookup_err);

/* The act for a name sv_unixpeer_judge judged the run's abstract one
 * (c->peer_nowait): sendmsg(c->dup, msg, flags), or connect(c->dup, name,
 * len) when msg is NULL, made so that the kernel never waits between our
 * judgment and its own lookup. It waits before the lookup for room in the
 * sender's buffer, and after it for a full receive queue or backlog, and
 * then looks the name up again; the agent controls both waits, and may
 * let a host socket bind the name meanwhile (review h-attack25,
 * ha25-rebind.sh). So sends carry MSG_DONTWAIT, a connect runs with
 * O_NONBLOCK on the (shared) description, and a wait the agent's blocking
 * call would have made is made here, with the name judged again before
 * each new try (its SO_SNDTIMEO kept). Returns the kernel's result with
 * errno (EAGAIN where the agent's call would not have waited, or its
 * timeout passed), or -2 with the call finished. */
long long sv_unixpeer_act(struct sv_call *c, const struct msghdr *msg, int flags, const void *name,
			  uint32_t len);

/* A root agent's call that may clear a description's O_NONBLOCK: fcntl
 * F_SETFL (a[2] the flags) or, with fionbio, ioctl FIONBIO (a[2] its
 * value's address). Performed by the supervisor on a duplicate of the
 * calling thread's descriptor, never while sv_unixpeer_act's connect runs
 * with O_NONBLOCK set: an agent's thread that cleared it in between made
 * that connect wait in the kernel, which then looked the name up again
 * (review h-attack27, ha27-nbrace.sh). Recorded as allowed, performed,
 * reason "file-flags"; finishes the call. */
void sv_unixpeer_set_flags(struct sv_call *c, const __u64 *a, int fionbio);

#endif
