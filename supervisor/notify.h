/* The notification loop: a pool of receiver threads on the listener. Each
 * thread receives and answers its own notification (leader/followers): there
 * is no hand-off on the fast path, and before a thread starts on a
 * notification it makes sure another one is receiving, so a call that blocks
 * (a connect that never completes) never stalls the others. */
#ifndef SV_NOTIFY_H
#define SV_NOTIFY_H

#include <linux/seccomp.h>
#include <stdint.h>
#include <sys/types.h>

#include "policy.h"

/* Starts the pool on listener. on_fatal is called (from a pool thread) when
 * the listener itself fails (receive or send; sv_listener_fatal): the
 * supervisor can no longer answer and must end the run. Returns 0 or
 * -errno. */
int sv_notify_start(int listener, const struct sv_policy *policy, void (*on_fatal)(void));

/* Stops every pool thread and waits for them. Returns 0, or -ETIMEDOUT when a
 * thread did not stop (it is left behind; the caller reports it). */
int sv_notify_stop(void);

/* Interrupts (SIGUSR1, no SA_RESTART) every pool thread still working on a
 * notification that has died: a blocking connect performed for an agent
 * whose call was interrupted would otherwise hold a thread and two
 * descriptors until TCP gives up, once per restart of the agent's call.
 * Called periodically by the main thread. */
void sv_notify_reap_dead(void);

/* The run's bracketing calls. Notification ids are consecutive per filter
 * from a random start, so the ids no receiver took (calls the kernel
 * withdrew first) can be counted only between two calls known to come
 * before and after every call of the agent. The pid namespace's reaper,
 * which holds the agent's filter and which the agent can neither signal
 * nor trace, makes one before it forks the agent and one once the
 * namespace is empty: sv_notify_sentinel_call(phase) is that call (a
 * trapped connect(-1, phase, 0), phase 1 or 2, answered EBADF). Set before
 * sv_notify_start(), sv_notify_expect_sentinels(reaper) makes the
 * receivers recognize the reaper's calls by its pid, answer them, and note
 * them in the report by phase (never as an event); 0 (the default)
 * recognizes none. */
void sv_notify_sentinel_call(int phase);
void sv_notify_expect_sentinels(pid_t reaper);

#endif
