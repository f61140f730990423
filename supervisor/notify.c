#include "notify.h"

#include <errno.h>
#include <linux/audit.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "act.h"
#include "caps.h"
#include "fault.h"
#include "listener.h"
#include "mediate.h"
#include "report.h"
#include "seccomp_compat.h"

/* Beyond this many threads no receiver is added: each agent thread can hold
 * at most one notification, so this only bounds a pathological agent, and
 * reaching it is an internal error (see receiver()). 1024 was reached by
 * a thread-per-connection client (review h-attack34's ha34-threads.sh);
 * what a receiver costs is a thread and a descriptor while it waits. */
#define MAX_THREADS SV_REPORT_RECEIVERS
/* The cap the test seam's receivers_cap sets, so the full pool can be shown
 * with a hundred threads. */
#define SEAM_THREADS 64
/* How long the test seam's recv_pause holds each receiver before it
 * receives, and sentinel_pause before it answers a bracketing call: many
 * times the interval of the signals in the tests. */
#define RECV_PAUSE_NS (20 * 1000 * 1000)
/* Idle receivers above this many leave, so a burst does not pin threads.
 * Two, not one: the answer wakes the agent, whose next call may come before
 * the answering thread is back in its receive; with a single spare the
 * other receiver would then spawn a thread and one would exit, per call. */
#define SPARE_RECEIVERS 2
#define THREAD_STACK (256 * 1024)

enum slot_state { SLOT_FREE, SLOT_RESERVED, SLOT_RUNNING };

/* One per receiver thread. busy/id/gen say which notification it is
 * mediating, so the reaper can interrupt a call whose agent went away. */
struct slot {
	enum slot_state state;
	pid_t tid;
	int busy;
	uint64_t id;
	unsigned gen;
	struct seccomp_notif *req;
};

static struct {
	int listener;
	const struct sv_policy *pol;
	size_t notif_size;
	atomic_int stop;
	atomic_int receiving;
	pthread_mutex_t lock;
	int nthreads;
	int hi;             /* slots below this were ever used: the loops over them stop here */
	pid_t sentinel_pid; /* the reaper whose calls bracket the run's, or 0 */
	struct slot slots[MAX_THREADS];
} P = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void set_busy(struct slot *sl, int busy, uint64_t id)
{
	pthread_mutex_lock(&P.lock);
	sl->busy = busy;
	sl->id = id;
	sl->gen++;
	pthread_mutex_unlock(&P.lock);
}

static void release_slot(struct slot *sl)
{
	pthread_mutex_lock(&P.lock);
	free(sl->req);
	memset(sl, 0, sizeof(*sl));
	P.nthreads--;
	pthread_mutex_unlock(&P.lock);
}

static int spawn_receiver(void);

/* A receive that failed has no notification id: it is still a trapped call
 * whose fate we know (abandoned for ENOENT) or do not (a mechanism failure
 * of mechanism, "recv" or the receiver's own set-up). */
static void record_recv_failure(const char *mechanism, int err)
{
	struct sv_event ev = {.t_ms = sv_report_now_ms(), .syscall = "unknown", .abi = "unknown"};

	if (err == ENOENT) {
		/* The task was killed or its call interrupted between the wake-up
		 * and our receive. */
		ev.bucket = SV_ABANDONED;
		ev.reason = "died-before-receive";
	} else {
		ev.bucket = SV_MECH_FAILURE;
		ev.reason = "mechanism";
		ev.mechanism = mechanism;
		ev.mech_err = err;
	}
	ev.action = SV_ACT_NONE;
	sv_report_record(&ev);
}

void sv_notify_expect_sentinels(pid_t reaper)
{
	P.sentinel_pid = reaper;
}

void sv_notify_sentinel_call(int phase)
{
	/* Its answer does not matter to the reaper: EBADF from us, ENOSYS
	 * from the kernel once the listener is gone.
	 * The phase rides in the address, which nothing reads (length 0): a
	 * copy restarted under a new id (a stop from outside) still says which
	 * call it is (review h-attack44). */
	(void)syscall(SYS_connect, -1, (long)phase, 0);
}

/* The reaper's bracketing call: its pid in our namespace, which no process
 * of the agent's can have while the reaper lives, and exactly the call
 * sv_notify_sentinel_call makes. Answered here, never an event. */
static int answered_sentinel(const struct seccomp_notif *req)
{
	struct seccomp_notif_resp resp = {.id = req->id, .error = -EBADF};
	int rc;

	if (P.sentinel_pid <= 0 || (pid_t)req->pid != P.sentinel_pid ||
	    req->data.arch != AUDIT_ARCH_X86_64 || req->data.nr != SYS_connect ||
	    (int)req->data.args[0] != -1 || (req->data.args[1] != 1 && req->data.args[1] != 2) ||
	    req->data.args[2] != 0)
		return 0;
	/* Test seam: time for a stop from outside to interrupt the reaper
	 * after the receive, so its call is made again under a new id. */
	if (sv_fault("sentinel_pause"))
		nanosleep(&(struct timespec){.tv_nsec = RECV_PAUSE_NS}, NULL);
	rc = sv_listener_send(P.listener, &resp);
	if (rc < 0 && rc != -ENOENT) {
		/* The reaper would wait for ever: the run cannot end well. */
		record_recv_failure("send", -rc);
		sv_listener_fatal();
	}
	sv_report_note_sentinel(req->id, (int)req->data.args[1]);
	return 1;
}

static int listener_hung_up(void)
{
	struct pollfd pfd = {.fd = P.listener, .events = POLLIN};

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLHUP) && !(pfd.revents & POLLIN);
}

static void *receiver(void *arg)
{
	struct slot *sl = arg;
	struct seccomp_notif *req = sl->req;

	pthread_mutex_lock(&P.lock);
	sl->tid = (pid_t)syscall(SYS_gettid);
	sl->state = SLOT_RUNNING;
	pthread_mutex_unlock(&P.lock);
#ifndef SV_MUTANT_NETLINK_DEPUTY
	/* Before the first call we perform: a receiver that kept our
	 * capabilities would lend them to the agent (netlink's sender checks).
	 * One that cannot lower them must not perform anything. */
	{
		int err = sv_caps_lower_thread();

		if (err != 0) {
			record_recv_failure("capset", -err);
			sv_listener_fatal();
			atomic_store(&P.stop, 1);
		}
	}
#endif
	while (!atomic_load(&P.stop)) {
		int rc, err = 0, left;

		atomic_fetch_add(&P.receiving, 1);
		/* The kernel requires a zeroed buffer (EINVAL otherwise). */
		memset(req, 0, P.notif_size);
		/* Test seam: a receiver slow to come back lets notifications
		 * queue, so a signal withdraws some before anyone takes them
		 * (the id gaps receivers.withdrawn_unseen counts). */
		if (sv_fault("recv_pause"))
			nanosleep(&(struct timespec){.tv_nsec = RECV_PAUSE_NS}, NULL);
		rc = sv_fault("recv");
		if (rc == 0)
			rc = ioctl(P.listener, SECCOMP_IOCTL_NOTIF_RECV, req) == 0 ? 0 : -errno;
		left = atomic_fetch_sub(&P.receiving, 1) - 1;
		if (rc == 0)
			sv_report_note_id(req->id);
		if (rc < 0) {
			err = -rc;
			if (err == EINTR)
				continue;
			if (atomic_load(&P.stop))
				break;
			/* Newer kernels answer ENOENT at once when no task uses the
			 * filter any more: that is the end of the run, not a call. */
			if (err == ENOENT && listener_hung_up())
				break;
			record_recv_failure("recv", err);
			if (err == ENOENT)
				continue;
			sv_listener_fatal();
			break;
		}
		/* The reaper's bracketing calls are ours to answer, never a call
		 * to mediate. */
		if (answered_sentinel(req)) {
			continue;
		}
		/* Leader/followers: someone must be receiving while we work. */
#ifdef SV_MUTANT_SINGLE_THREADED
		/* MUTANT single-threaded-blocking: one receiver does everything. */
		left = 1;
#endif
		if (left == 0) {
			int spawned = spawn_receiver();

			/* At MAX_THREADS every receiver is mediating a call, and
			 * the next notifications wait in the kernel's queue with
			 * no one receiving: a call whose thread dies meanwhile
			 * (exit_group from another thread) is withdrawn unseen,
			 * however long the wait (review h-attack39's
			 * ha39-saturate.sh: an undeclared connect, pass 10 of 10
			 * when a full pool was only counted). An internal error,
			 * as any receiver that cannot be started. */
			if (spawned > 0) {
				sv_report_count_receivers_capped();
#ifndef SV_MUTANT_RECEIVERS_CAPPED_COUNTED
				/* MUTANT receivers-capped-counted: a full pool is
				 * only counted, as in 1260e78. */
				sv_report_internal_error("the receiver pool is full: a call "
							 "withdrawn meanwhile goes unseen",
							 EAGAIN);
#endif
			} else if (spawned < 0) {
				sv_report_internal_error("could not start a receiver thread",
							 -spawned);
			}
		}
		set_busy(sl, 1, req->id);
		sv_mediate(P.listener, req, P.pol);
		set_busy(sl, 0, 0);
		/* A capability raised for one send and not lowered again would be
		 * lent to every later call: the run ends here (a mechanism
		 * failure of ours, never a pass). */
#ifndef SV_MUTANT_CAPS_STUCK_IGNORED
		/* MUTANT caps-stuck-ignored: the receiver goes on with it. */
		if (sv_act_caps_stuck()) {
			record_recv_failure("capset", EPERM);
			sv_listener_fatal();
			atomic_store(&P.stop, 1);
			break;
		}
#endif
		if (atomic_load(&P.receiving) > SPARE_RECEIVERS)
			break;
	}
	release_slot(sl);
	return NULL;
}

/* Reserves a free slot under the lock, so the count can never pass
 * MAX_THREADS however many threads spawn at once. */
static struct slot *reserve_slot(void)
{
	struct slot *sl = NULL;

	int cap = sv_fault("receivers_cap") ? SEAM_THREADS : MAX_THREADS;

	pthread_mutex_lock(&P.lock);
	for (int i = 0; i < cap && !sl; i++)
		if (P.slots[i].state == SLOT_FREE) {
			sl = &P.slots[i];
			sl->state = SLOT_RESERVED;
			P.nthreads++;
			if (i >= P.hi)
				P.hi = i + 1;
		}
	pthread_mutex_unlock(&P.lock);
	return sl;
}

/* Starts one more receiver: 0, 1 when MAX_THREADS are running already (none
 * started), or the -errno of the allocation or pthread_create. */
static int spawn_receiver(void)
{
	pthread_attr_t attr;
	pthread_t t;
	struct slot *sl = reserve_slot();
	int rc;

	if (!sl)
		return 1;
	sl->req = calloc(1, P.notif_size);
	if (!sl->req) {
		release_slot(sl);
		return -ENOMEM;
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, THREAD_STACK);
	rc = -pthread_create(&t, &attr, receiver, sl);
	pthread_attr_destroy(&attr);
	if (rc)
		release_slot(sl);
	return rc;
}

static void on_wake(int sig)
{
	(void)sig;
}

int sv_notify_start(int listener, const struct sv_policy *policy, void (*on_fatal)(void))
{
	struct seccomp_notif_sizes sizes = {0};
	struct sigaction sa = {0};
	int rc;

	P.listener = listener;
	P.pol = policy;
	sv_listener_on_fatal(on_fatal);
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0)
		return -errno;
	/* The kernel's structure may be larger than our headers' one. */
	P.notif_size = sizes.seccomp_notif > sizeof(struct seccomp_notif)
			   ? sizes.seccomp_notif
			   : sizeof(struct seccomp_notif);
	/* Only a latency optimisation: kernels before 6.6 answer EINVAL or
	 * ENOTTY and mediation is the same without it. */
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	/* SIGUSR1 only interrupts a blocked receive when we stop: no SA_RESTART. */
	sa.sa_handler = on_wake;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) != 0)
		return -errno;
	rc = spawn_receiver();
	return rc > 0 ? -EAGAIN : rc;
}

int sv_notify_stop(void)
{
	struct timespec pause = {.tv_nsec = 2 * 1000 * 1000};
	int left = 1;

	atomic_store(&P.stop, 1);
	/* A receive blocks in the kernel until a notification or a signal comes;
	 * repeat the signal, since one sent just before the ioctl is lost. */
	for (int round = 0; round < 2500 && left; round++) {
		pthread_mutex_lock(&P.lock);
		for (int i = 0; i < P.hi; i++)
			if (P.slots[i].state == SLOT_RUNNING)
				syscall(SYS_tgkill, getpid(), P.slots[i].tid, SIGUSR1);
		left = P.nthreads;
		pthread_mutex_unlock(&P.lock);
		if (left)
			nanosleep(&pause, NULL);
	}
	return left ? -ETIMEDOUT : 0;
}

void sv_notify_reap_dead(void)
{
	int hi;

	pthread_mutex_lock(&P.lock);
	hi = P.hi;
	pthread_mutex_unlock(&P.lock);
	for (int i = 0; i < hi; i++) {
		struct slot *sl = &P.slots[i];
		uint64_t id;
		unsigned gen;
		int busy;

		pthread_mutex_lock(&P.lock);
		busy = sl->state == SLOT_RUNNING && sl->busy;
		id = sl->id;
		gen = sl->gen;
		pthread_mutex_unlock(&P.lock);
		if (!busy || sv_listener_id_valid(P.listener, id) != -ENOENT)
			continue;
		/* Still on the same notification (the generation did not move):
		 * interrupt its blocking call. A signal that lands just after the
		 * call finished only interrupts an ioctl that retries. */
		pthread_mutex_lock(&P.lock);
		if (sl->state == SLOT_RUNNING && sl->busy && sl->gen == gen)
			syscall(SYS_tgkill, getpid(), sl->tid, SIGUSR1);
		pthread_mutex_unlock(&P.lock);
	}
}
