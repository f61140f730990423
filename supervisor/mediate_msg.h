/* Mediation of sendmsg and sendmmsg: the calls whose destination, payload
 * and control data sit behind a struct msghdr in the agent's memory. */
#ifndef SV_MEDIATE_MSG_H
#define SV_MEDIATE_MSG_H

#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "call.h"

/* sendmsg(fd, msg, flags): finishes the call (see call.h). */
void sv_mediate_sendmsg(struct sv_call *c, const __u64 *a);

/* sendmmsg(fd, vec, vlen, flags): every message is judged; those before the
 * first denied one are sent, as the kernel stops at the first failure.
 * Finishes the call. */
void sv_mediate_sendmmsg(struct sv_call *c, const __u64 *a);

/* The caller's credentials for a performed AF_UNIX send (its tgid, real
 * uid and gid, sv_act_caller_creds), read before the call's validity is
 * checked again: a tid read from /proc names the caller only while the
 * call still waits. Returns 1 with *cr; 0 when ours stay by design (not
 * AF_UNIX, or sv_act_creds_probe refused: a uid-1000 supervisor); or
 * -errno when the caller's ids could not be read (/proc/TID/status refused
 * EMFILE, the thread gone): the caller checks the call's validity, then
 * finishes it as a mechanism failure ("proc_status"), never sends it with
 * ours (review h-attack56 finding 2: a receiver read pid 0, uid 0 from a
 * uid-1000 agent). */
int sv_mediate_caller_creds(struct sv_call *c, struct ucred *cr);

/* The performed send of mh for call c (msg_name already the judged one):
 * the wait loop's act on a listener of the run (c->peer_nowait,
 * sv_unixpeer_act) or one sendmsg on the duplicate; raised: mh's control
 * names the caller's credentials, so CAP_SYS_ADMIN is raised for the
 * syscall (sv_act_sendmsg); where it could not be raised the call is
 * finished as a mechanism failure ("capset"), never sent with ours. plain
 * (plain_len bytes: the control without ours) is what the mutants
 * creds-raise-failed-ours and creds-eperm-retry send again instead.
 * Returns the send's result with errno, or SV_SEND_FINISHED with the call
 * finished. */
#define SV_SEND_FINISHED (-2LL)
long long sv_mediate_send(struct sv_call *c, struct msghdr *mh, int flags, const void *name,
			  uint32_t namelen, int raised, void *plain, size_t plain_len);

#endif
