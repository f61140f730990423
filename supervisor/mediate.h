/* Mediation of one notification: decode, copy, check, decide, act, answer,
 * record. */
#ifndef SV_MEDIATE_H
#define SV_MEDIATE_H

#include <linux/seccomp.h>

#include "policy.h"

/* Handles req completely: the agent gets exactly one answer (or none, when
 * the notification died first) and the report gets exactly one event in
 * exactly one bucket. Never exits; may block while performing an allowed
 * call on a blocking socket. */
void sv_mediate(int listener, const struct seccomp_notif *req, const struct sv_policy *pol);

#endif
