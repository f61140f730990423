/* The notification loop: a pool of receiver threads on the listener. Each
 * thread receives and answers its own notification (leader/followers): there
 * is no hand-off on the fast path, and before a thread starts on a
 * notification it makes sure another one is receiving, so a call that blocks
 * (a connect that never completes) never stalls the others. */
#ifndef SV_NOTIFY_H
#define SV_NOTIFY_H

#include <linux/seccomp.h>
#include <stdint.h>

#include "policy.h"

/* Starts the pool on listener. on_fatal is called (from a pool thread) when
 * the listener itself fails (receive or send): the supervisor can no longer
 * answer and must end the run. Returns 0 or -errno. */
int sv_notify_start(int listener, const struct sv_policy *policy, void (*on_fatal)(void));

/* Stops every pool thread and waits for them. Returns 0, or -ETIMEDOUT when a
 * thread did not stop (it is left behind; the caller reports it). */
int sv_notify_stop(void);

/* SECCOMP_IOCTL_NOTIF_ID_VALID. Returns 0 while the notification is alive,
 * -ENOENT when it is not (the target died or the call was interrupted), or
 * another -errno when the check itself failed. */
int sv_notify_id_valid(int listener, uint64_t id);

/* SECCOMP_IOCTL_NOTIF_SEND. Returns 0, -ENOENT (the notification died before
 * the answer), or another -errno. */
int sv_notify_send(int listener, struct seccomp_notif_resp *resp);

/* Interrupts (SIGUSR1, no SA_RESTART) every pool thread still working on a
 * notification that has died: a blocking connect performed for an agent
 * whose call was interrupted would otherwise hold a thread and two
 * descriptors until TCP gives up, once per restart of the agent's call.
 * Called periodically by the main thread. */
void sv_notify_reap_dead(void);

/* Reports a failure of the listener: the run cannot go on. */
void sv_notify_fatal(void);

#endif
