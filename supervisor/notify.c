#include "notify.h"

#include <errno.h>
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

#include "fault.h"
#include "mediate.h"
#include "report.h"

/* The pre-5.9 number of ID_VALID (_IOR instead of _IOW); kernels from 5.9
 * (and 5.4.59) accept both. */
#define SECCOMP_IOCTL_NOTIF_ID_VALID_OLD _IOR(SECCOMP_IOC_MAGIC, 2, __u64)
/* Beyond this many threads no receiver is added: each agent thread can hold
 * at most one notification, so this only bounds a pathological agent. */
#define MAX_THREADS 1024
/* Idle receivers above this many leave, so a burst does not pin threads. */
#define SPARE_RECEIVERS 2
#define THREAD_STACK (256 * 1024)
/* Linux 6.6: wake the other side on the current CPU (the headers of older
 * distributions lack the names). */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

static struct {
	int listener;
	const struct sv_policy *pol;
	void (*on_fatal)(void);
	size_t notif_size;
	atomic_int stop;
	atomic_int receiving;
	atomic_int fatal;
	pthread_mutex_t lock;
	int nthreads;
	pid_t tids[MAX_THREADS];
} P = {.lock = PTHREAD_MUTEX_INITIALIZER};

int sv_notify_id_valid(int listener, uint64_t id)
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
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0)
		return 0;
	if (errno == EINVAL || errno == ENOTTY) {
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID_OLD, &id) == 0)
			return 0;
	}
	return -errno;
}

int sv_notify_send(int listener, struct seccomp_notif_resp *resp)
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

void sv_notify_fatal(void)
{
	if (atomic_exchange(&P.fatal, 1) == 0 && P.on_fatal)
		P.on_fatal();
}

/* Slots are reserved by spawn_receiver (tid 0) and filled in here, so the
 * count can never pass MAX_THREADS however many spawn at once. */
static void register_self(int add)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);

	pthread_mutex_lock(&P.lock);
	if (add) {
		for (int i = 0; i < P.nthreads; i++)
			if (P.tids[i] == 0) {
				P.tids[i] = tid;
				break;
			}
	} else {
		for (int i = 0; i < P.nthreads; i++)
			if (P.tids[i] == tid) {
				P.tids[i] = P.tids[--P.nthreads];
				break;
			}
	}
	pthread_mutex_unlock(&P.lock);
}

static int spawn_receiver(void);

/* A receive that failed has no notification id: it is still a trapped call
 * whose fate we know (abandoned for ENOENT) or do not (a mechanism failure). */
static void record_recv_failure(int err)
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
		ev.mechanism = "recv";
		ev.mech_err = err;
	}
	ev.action = SV_ACT_NONE;
	sv_report_record(&ev);
}

static int listener_hung_up(void)
{
	struct pollfd pfd = {.fd = P.listener, .events = POLLIN};

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLHUP) && !(pfd.revents & POLLIN);
}

static void *receiver(void *arg)
{
	struct seccomp_notif *req = arg;

	register_self(1);
	while (!atomic_load(&P.stop)) {
		int rc, err = 0, left;

		atomic_fetch_add(&P.receiving, 1);
		/* The kernel requires a zeroed buffer (EINVAL otherwise). */
		memset(req, 0, P.notif_size);
		rc = sv_fault("recv");
		if (rc == 0)
			rc = ioctl(P.listener, SECCOMP_IOCTL_NOTIF_RECV, req) == 0 ? 0 : -errno;
		left = atomic_fetch_sub(&P.receiving, 1) - 1;
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
			record_recv_failure(err);
			if (err == ENOENT)
				continue;
			sv_notify_fatal();
			break;
		}
		/* Leader/followers: someone must be receiving while we work. */
#ifdef SV_MUTANT_SINGLE_THREADED
		/* MUTANT single-threaded-blocking: one receiver does everything. */
		left = 1;
#endif
		if (left == 0 && spawn_receiver() < 0)
			sv_report_internal_error("could not start a receiver thread", EAGAIN);
		sv_mediate(P.listener, req, P.pol);
		if (atomic_load(&P.receiving) >= SPARE_RECEIVERS)
			break;
	}
	register_self(0);
	free(req);
	return NULL;
}

static void unreserve(void)
{
	pthread_mutex_lock(&P.lock);
	for (int i = 0; i < P.nthreads; i++)
		if (P.tids[i] == 0) {
			P.tids[i] = P.tids[--P.nthreads];
			break;
		}
	pthread_mutex_unlock(&P.lock);
}

static int spawn_receiver(void)
{
	pthread_attr_t attr;
	pthread_t t;
	struct seccomp_notif *req;
	int rc;

	pthread_mutex_lock(&P.lock);
	rc = P.nthreads >= MAX_THREADS ? -EAGAIN : 0;
	if (!rc)
		P.tids[P.nthreads++] = 0;
	pthread_mutex_unlock(&P.lock);
	if (rc)
		return rc;
	req = calloc(1, P.notif_size);
	if (!req) {
		unreserve();
		return -ENOMEM;
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, THREAD_STACK);
	rc = -pthread_create(&t, &attr, receiver, req);
	pthread_attr_destroy(&attr);
	if (rc) {
		free(req);
		unreserve();
	}
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

	P.listener = listener;
	P.pol = policy;
	P.on_fatal = on_fatal;
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
	return spawn_receiver();
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
		for (int i = 0; i < P.nthreads; i++)
			if (P.tids[i])
				syscall(SYS_tgkill, getpid(), P.tids[i], SIGUSR1);
		left = P.nthreads;
		pthread_mutex_unlock(&P.lock);
		if (left)
			nanosleep(&pause, NULL);
	}
	return left ? -ETIMEDOUT : 0;
}
