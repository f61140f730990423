/* The seccomp listener's requests that answer one notification, and the
 * report of its failure. */
#ifndef SV_LISTENER_H
#define SV_LISTENER_H

#include <linux/seccomp.h>
#include <stdint.h>

/* SECCOMP_IOCTL_NOTIF_ID_VALID. Returns 0 while the notification is alive,
 * -ENOENT when it is not (the target died or the call was interrupted), or
 * another -errno when the check itself failed. */
int sv_listener_id_valid(int listener, uint64_t id);

/* SECCOMP_IOCTL_NOTIF_SEND. Returns 0, -ENOENT (the notification died before
 * the answer), or another -errno. */
int sv_listener_send(int listener, struct seccomp_notif_resp *resp);

/* Reports a failure of the listener (receive or send): the run cannot go
 * on. Calls the hook sv_listener_on_fatal set, once for the whole run. */
void sv_listener_fatal(void);

/* The hook sv_listener_fatal calls (the pool's, sv_notify_start). */
void sv_listener_on_fatal(void (*on_fatal)(void));

#endif
