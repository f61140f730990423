/* The caller's descriptors 0-2, which the agent keeps (only those above 2
 * are closed before its exec): what may be there. The threat model is in
 * docs/design.md ("Threat model: the agent process", the stdio rows). */
#ifndef SV_STDFDS_H
#define SV_STDFDS_H

#include <stddef.h>
#include <sys/types.h>

#include "policy.h"

/* Checks every socket on descriptors 0-2 before the agent exists. An inet
 * (or any other non-local) socket must be connected to a destination pol
 * allows, and an inet one must be TCP with no IP options or IPv6 routing
 * header (a datagram or raw socket holds per-send state that no getsockopt
 * shows whole). An AF_UNIX socket is local IPC, but whatever is already queued on
 * it (bytes, a message, a pending connection) may carry SCM_RIGHTS
 * descriptors the caller put there, which the agent would receive with an
 * untrapped recvmsg: its queue must be empty. AF_NETLINK sockets carry no
 * descriptors. Returns 0, or -EACCES with why (len bytes) naming the
 * descriptor and what is wrong; the run must then be refused. */
int sv_stdfds_check(const struct sv_policy *pol, char *why, size_t len);

/* Says on stderr which sockets above descriptor 2 (but keep, the caller's
 * report channel) the agent will not get: every descriptor above 2 is
 * closed before it runs, and a service given its listener by socket
 * activation (LISTEN_FDS, from descriptor 3) otherwise fails with EBADF
 * while the run passes, with nothing said (review h-realprog3). A warning
 * only: nothing is refused. */
void sv_stdfds_note_closed(int keep);

#endif
