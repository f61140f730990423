/* The listener's own requests (ID_VALID, SEND) and its failure, apart from
 * the receiver pool (notify.c) so that the code answering a call (call.c,
 * nsjoin.c, probe.c) needs nothing of the pool that runs it. */
#include "listener.h"

#include <errno.h>
#include <stdatomic.h>
#include <sys/ioctl.h>

#include "fault.h"
#include "seccomp_compat.h"

/* The pre-5.9 number of ID_VALID (_IOR instead of _IOW); kernels from 5.9
 * (and 5.4.59) accept both. */
#define SECCOMP_IOCTL_NOTIF_ID_VALID_OLD _IOR(SECCOMP_IOC_MAGIC, 2, __u64)
/* Set by the pool (sv_notify_start); called once, by the first failure. */
static void (*fatal_hook)(void);
static atomic_int fatal;

int sv_listener_id_valid(int listener, uint64_t id)
{
	int err = sv_fault("id_valid");

#ifdef SV_MUTANT_NO_ID_VALID
	/* MUTANT no-id-valid: every notification is taken to be alive. */
	(void)listener;
	(void)id;
	return err;
#endif
	if (err)
		return err;
	for (int first = 1;; first = 0) {
		/* The kernel takes the filter's notify_lock interruptibly
		 * (mutex_lock_interruptible in seccomp_notify_id_valid), so a
		 * signal to this thread while the other receivers hold it is
		 * EINTR before anything was checked: ask again. Seen in the
		 * matrix as exit-storm's capability-error on 7.3. */
		if (first && sv_fault("id_valid_intr"))
			errno = EINTR;
		else if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0)
			return 0;
		else if ((errno == EINVAL || errno == ENOTTY) &&
			 ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID_OLD, &id) == 0)
			return 0;
#ifndef SV_MUTANT_ID_VALID_EINTR
		if (errno == EINTR)
			continue;
#endif
		return -errno;
	}
}

int sv_listener_send(int listener, struct seccomp_notif_resp *resp)
{
	int err = sv_fault("send");

	if (err)
		return err;
	for (;;) {
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp) == 0)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

void sv_listener_on_fatal(void (*on_fatal)(void))
{
	fatal_hook = on_fatal;
}

void sv_listener_fatal(void)
{
	if (atomic_exchange(&fatal, 1) == 0 && fatal_hook)
		fatal_hook();
}
