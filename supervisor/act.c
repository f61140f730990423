#include "act.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "caps.h"
#include "fault.h"
#include "msghdr.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_kcmp
#define SYS_kcmp 312
#endif
/* include/uapi/linux/pidfd.h (6.9): a pidfd for one thread. */
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
/* include/uapi/linux/kcmp.h */
#define SV_KCMP_FILE 0

/* kcmp(KCMP_FILE) of our descriptor ours and tid's descriptor theirs:
 * 0 the same file, > 0 another, -1 with errno. */
static long kcmp_file(pid_t tid, int ours, int theirs)
{
	int err = sv_fault("kcmp");

	if (err) {
		errno = -err;
		return -1;
	}
	return syscall(SYS_kcmp, (pid_t)getpid(), tid, SV_KCMP_FILE, (unsigned long)ours,
		       (unsigned long)theirs);
}

int sv_act_pidfd_open(pid_t tid)
{
	struct sv_status_ids ids;
	long fd;
	int err = sv_fault("pidfd_open");

	if (err)
		return err;
	fd = syscall(SYS_pidfd_open, tid, 0);
	if (fd >= 0)
		return (int)fd;
	/* A thread that is not the group leader: EINVAL before Linux 6.9,
	 * ENOENT after (without PIDFD_THREAD). */
	if (errno != EINVAL && errno != ENOENT)
		return -errno;
	if ((err = sv_act_status_ids(tid, &ids)) < 0)
		return err;
	fd = syscall(SYS_pidfd_open, ids.tgid, 0);
	return fd >= 0 ? (int)fd : -errno;
}

int sv_act_getfd(int pidfd, int targetfd)
{
	long fd;
	int err = sv_fault("pidfd_getfd");

	if (err)
		return err;
	fd = syscall(SYS_pidfd_getfd, pidfd, targetfd, 0);
	return fd >= 0 ? (int)fd : -errno;
}

int sv_act_getfd_as(int pidfd, pid_t check_tid, int targetfd, const char **mech)
{
	int fd = sv_act_getfd(pidfd, targetfd);
	long same;
	int err;

	*mech = "pidfd_getfd";
#ifndef SV_MUTANT_LEADER_EBADF_TRUSTED
	if (fd == -EBADF && check_tid > 0) {
		/* Before 6.9 pidfd_getfd answers EBADF, not ESRCH, when the
		 * leader has exited (its table is gone: __pidfd_fget turns the
		 * missing file into EBADF). Only the thread's own table says
		 * whether the agent named a descriptor it does not have: kcmp
		 * against one of ours answers EBADF then, and 0 or more when
		 * the thread has it, which we could not duplicate. */
		same = kcmp_file(check_tid, pidfd, targetfd);
		if (same >= 0)
			return -ESRCH;
		err = errno;
		if (err == EBADF)
			return -EBADF;
		*mech = "kcmp";
		return -err;
	}
#endif
	if (fd < 0 || check_tid <= 0)
		return fd;
	/* The thread that is waiting cannot change its own table meanwhile
	 * (only it could unshare it, and it is blocked in the call), so a
	 * duplicate that is the same file as its descriptor targetfd now is
	 * the one it asked about. */
	same = kcmp_file(check_tid, fd, targetfd);
	if (same == 0)
		return fd;
	err = same > 0 ? EXDEV : errno;
	close(fd);
	/* EBADF: the thread's own table has no such descriptor, as the kernel
	 * would have answered the call itself. */
	if (err != EBADF)
		*mech = "kcmp";
	return -err;
}

int sv_act_close_dup(int fd)
{
	int err = sv_fault("dup_close");

	if (err) {
		close(fd);
		return err;
	}
	/* Linux releases the descriptor even when close reports an error, so
	 * there is never a retry; the error is still reported. */
	return close(fd) == 0 ? 0 : -errno;
}

void sv_act_close_quiet(int fd)
{
	if (fd >= 0)
		close(fd);
}

int sv_act_is_blocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl >= 0 && !(fl & O_NONBLOCK);
}

/* pidfd_open and its close cost about as much as the rest of a mediated
 * call together; agents make many calls from few processes. */
#define PIDFD_CACHE 64

static struct {
	pthread_mutex_t lock;
	unsigned next;
	struct {
		pid_t pid;  /* 0: free */
		int thread; /* a PIDFD_THREAD pidfd of thread pid, else of process pid */
		int fd;
		int refs;
		int stale; /* close when refs drops to 0 */
	} e[PIDFD_CACHE];
} cache = {.lock = PTHREAD_MUTEX_INITIALIZER};

#ifndef SV_MUTANT_LEADER_TABLE
/* -1 until known; 1 when pidfd_open takes PIDFD_THREAD (Linux 6.9+), 0 when
 * it answered EINVAL for the flag. */
static atomic_int thread_pidfds = -1;

/* A pidfd for the thread tid itself (its descriptor table is what
 * pidfd_getfd then resolves), or -EINVAL where the kernel has none. */
static int open_thread_pidfd(pid_t tid)
{
	int have = atomic_load(&thread_pidfds), err = sv_fault("pidfd_open");
	long fd;

	if (err)
		return err;
	if (sv_fault("pidfd_thread") || have == 0)
		return -EINVAL;
	fd = syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	if (fd >= 0) {
		atomic_store(&thread_pidfds, 1);
		return (int)fd;
	}
	err = errno;
	if (err == EINVAL && have < 0)
		atomic_store(&thread_pidfds, 0);
	return -err;
}
#endif

static int cache_find(pid_t pid, int thread, int *handle)
{
	int fd = -1;

	pthread_mutex_lock(&cache.lock);
	for (int i = 0; i < PIDFD_CACHE; i++)
		if (cache.e[i].pid == pid && cache.e[i].thread == thread && !cache.e[i].stale) {
			cache.e[i].refs++;
			*handle = i;
			fd = cache.e[i].fd;
			break;
		}
	pthread_mutex_unlock(&cache.lock);
	return fd;
}

static void cache_add(pid_t pid, int thread, int fd, int *handle)
{
	int slot = -1;

	pthread_mutex_lock(&cache.lock);
	for (unsigned n = 0; n < PIDFD_CACHE && slot < 0; n++) {
		unsigned i = (cache.next + n) % PIDFD_CACHE;

		if (cache.e[i].pid == 0 || cache.e[i].refs == 0) {
			if (cache.e[i].pid)
				close(cache.e[i].fd);
			slot = (int)i;
			cache.next = i + 1;
		}
	}
	if (slot >= 0) {
		cache.e[slot].pid = pid;
		cache.e[slot].thread = thread;
		cache.e[slot].fd = fd;
		cache.e[slot].refs = 1;
		cache.e[slot].stale = 0;
		*handle = slot;
	}
	pthread_mutex_unlock(&cache.lock);
}

int sv_act_pidfd_get(pid_t tid, int *handle, pid_t *check_tid)
{
	int fd;
	long raw;

	*handle = -1;
	*check_tid = 0;
#ifndef SV_MUTANT_LEADER_TABLE
	if (atomic_load(&thread_pidfds) != 0) {
		fd = cache_find(tid, 1, handle);
		if (fd >= 0)
			return fd;
		fd = open_thread_pidfd(tid);
		if (fd >= 0) {
			cache_add(tid, 1, fd, handle);
			return fd;
		}
		if (fd != -EINVAL)
			return fd;
	}
#endif
	/* Before 6.9: the process's pidfd, whose pidfd_getfd resolves the
	 * leader's table; a non-leader's duplicates are checked against its
	 * own (sv_act_getfd_as). */
	fd = cache_find(tid, 0, handle);
	if (fd >= 0)
		return fd;
	fd = sv_fault("pidfd_open");
	if (fd)
		return fd;
	raw = syscall(SYS_pidfd_open, tid, 0);
	if (raw < 0) {
		/* not a leader: uncached */
#ifndef SV_MUTANT_LEADER_TABLE
		*check_tid = tid;
#else
		/* MUTANT leader-table: the leader's descriptor N is taken for
		 * the calling thread's, whatever table the thread has. */
#endif
		return sv_act_pidfd_open(tid);
	}
	fd = (int)raw;
	cache_add(tid, 0, fd, handle);
	return fd;
}

void sv_act_pidfd_put(int fd, int handle)
{
	if (fd < 0)
		return;
	if (handle < 0) {
		close(fd);
		return;
	}
	pthread_mutex_lock(&cache.lock);
	if (--cache.e[handle].refs == 0 && cache.e[handle].stale) {
		close(cache.e[handle].fd);
		cache.e[handle].pid = 0;
	}
	pthread_mutex_unlock(&cache.lock);
}

void sv_act_pidfd_forget(int handle)
{
	if (handle < 0)
		return;
	pthread_mutex_lock(&cache.lock);
	cache.e[handle].stale = 1;
	pthread_mutex_unlock(&cache.lock);
}

struct rights_ctx {
	int pidfd;
	pid_t check_tid;
	int getfd_err;
	const char *mech; /* the mechanism that failed with getfd_err */
	int *dups;
	size_t n, cap;
};

static int translate_fds(void *arg, int *fds, size_t nfds)
{
	struct rights_ctx *c = arg;

	for (size_t i = 0; i < nfds; i++) {
		const char *mech;
		int d;

		if (c->n == c->cap) {
			size_t ncap = c->cap ? c->cap * 2 : 8;
			int *n = realloc(c->dups, ncap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			c->dups = n;
			c->cap = ncap;
		}
		d = sv_act_getfd_as(c->pidfd, c->check_tid, fds[i], &mech);
		if (d < 0) {
			c->getfd_err = d;
#ifndef SV_MUTANT_RIGHTS_MECH_UNLABELLED
			c->mech = mech;
#else
			/* MUTANT rights-mech-unlabelled: a kcmp failure on a
			 * passed descriptor is filed under pidfd_getfd. */
			(void)mech;
#endif
			return -ECANCELED;
		}
		c->dups[c->n++] = d;
		fds[i] = d;
	}
	return 0;
}

int sv_act_translate_rights(int pidfd, pid_t check_tid, void *control, size_t len, int **dups,
			    size_t *ndups, int *getfd_err, const char **mech)
{
	struct rights_ctx c = {.pidfd = pidfd, .check_tid = check_tid, .mech = "pidfd_getfd"};
	int rc = sv_msghdr_walk_control(control, len, translate_fds, &c);

	*getfd_err = c.getfd_err;
	*mech = c.mech;
	if (rc < 0) {
		sv_act_free_dups(c.dups, c.n);
		return rc;
	}
	*dups = c.dups;
	*ndups = c.n;
	return 0;
}

void sv_act_free_dups(int *dups, size_t ndups)
{
	for (size_t i = 0; i < ndups; i++)
		close(dups[i]);
	free(dups);
}

static atomic_int creds_ok;

int sv_act_creds_probe(pid_t canary)
{
	int sv[2], err = 0;
	void *ctl = NULL;
	size_t clen = 0;
	char byte = 0;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) != 0)
		return errno;
	if (sv_msghdr_prepend_creds(NULL, 0, canary, (uint32_t)getuid(), (uint32_t)getgid(), &ctl,
				    &clen) < 0) {
		err = ENOMEM;
	} else {
		mh.msg_control = ctl;
		mh.msg_controllen = clen;
		if (syscall(SYS_sendmsg, sv[0], &mh, MSG_DONTWAIT | MSG_NOSIGNAL) != 1)
			err = errno;
	}
	free(ctl);
	close(sv[0]);
	close(sv[1]);
	atomic_store(&creds_ok, err == 0);
	return err;
}

int sv_act_status_ids(pid_t tid, struct sv_status_ids *ids)
{
	char path[64], buf[4096], *t, *u, *g;
	ssize_t n;
	int fd, e;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	/* Tgid, Uid and Gid come in the first kilobyte: the Groups line and
	 * everything after it may be cut. */
	n = read(fd, buf, sizeof(buf) - 1);
	e = errno;
	close(fd);
	/* A thread reaped after the open reads ESRCH: gone, as above. */
	if (n < 0)
		return -e;
	buf[n] = '\0';
	t = strstr(buf, "\nTgid:");
	u = strstr(buf, "\nUid:");
	g = strstr(buf, "\nGid:");
	if (!t || !u || !g || sscanf(t + 6, "%d", &ids->tgid) != 1 ||
	    sscanf(u + 5, "%ld %ld %ld %ld", &ids->uid[0], &ids->uid[1], &ids->uid[2],
		   &ids->uid[3]) != 4 ||
	    sscanf(g + 5, "%ld %ld %ld %ld", &ids->gid[0], &ids->gid[1], &ids->gid[2],
		   &ids->gid[3]) != 4)
		return -EPROTO;
	return 0;
}

int sv_act_caller_creds(pid_t tid, int32_t *pid, uint32_t *uid, uint32_t *gid)
{
	struct sv_status_ids ids;
	int rc;

	if (!atomic_load(&creds_ok))
		return -ENOTSUP;
	/* The test build's refusal of the caller's status (EMFILE at the
	 * supervisor's descriptor limit, review h-attack56 finding 2). */
	if ((rc = sv_fault("caller_creds")) < 0 || (rc = sv_act_status_ids(tid, &ids)) < 0)
		return rc;
	*pid = ids.tgid;
	*uid = (uint32_t)ids.uid[0];
	*gid = (uint32_t)ids.gid[0];
	return 0;
}

static atomic_int caps_stuck;

long long sv_act_sendmsg(int fd, const struct msghdr *mh, int flags, int raised)
{
	long long rc;
	int e;

	/* A receiver left with CAP_SYS_ADMIN sends nothing more, not even the
	 * rest of a sendmmsg batch before its loop sees the flag (review
	 * h-attack54 finding 5): the run is ending. */
	if (atomic_load(&caps_stuck)) {
		errno = ENOTRECOVERABLE;
		return -1;
	}
	if (!raised)
		return syscall(SYS_sendmsg, fd, mh, flags);
	if (sv_caps_raise_for_creds() != 0) {
		errno = ECANCELED;
		return -1;
	}
	rc = syscall(SYS_sendmsg, fd, mh, flags);
	e = errno;
	/* Lowering what we raised cannot be refused by the kernel (effective
	 * stays within permitted); were it, this thread would lend
	 * CAP_SYS_ADMIN to every later call it performs. */
	if (sv_caps_lower_thread() != 0 || sv_fault("caps_lower"))
		atomic_store(&caps_stuck, 1);
	errno = e;
	return rc;
}

int sv_act_caps_stuck(void)
{
	return atomic_load(&caps_stuck);
}
