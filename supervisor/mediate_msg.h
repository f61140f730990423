/* Mediation of sendmsg and sendmmsg: the calls whose destination, payload
 * and control data sit behind a struct msghdr in the agent's memory. */
#ifndef SV_MEDIATE_MSG_H
#define SV_MEDIATE_MSG_H

#include <linux/types.h>

#include "call.h"

/* sendmsg(fd, msg, flags): finishes the call (see call.h). */
void sv_mediate_sendmsg(struct sv_call *c, const __u64 *a);

/* sendmmsg(fd, vec, vlen, flags): every message is judged; those before the
 * first denied one are sent, as the kernel stops at the first failure.
 * Finishes the call. */
void sv_mediate_sendmmsg(struct sv_call *c, const __u64 *a);

#endif
