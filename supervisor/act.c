#include "act.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fault.h"
#include "msghdr.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

static int tgid_of(pid_t tid)
{
	char path[40], line[128];
	FILE *f;
	int tgid = -ESRCH;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

int sv_act_pidfd_open(pid_t tid)
{
	long fd;
	int err = sv_fault("pidfd_open"), tgid;

	if (err)
		return err;
	fd = syscall(SYS_pidfd_open, tid, 0);
	if (fd >= 0)
		return (int)fd;
	/* A thread that is not the group leader: EINVAL before Linux 6.9,
	 * ENOENT after (without PIDFD_THREAD). */
	if (errno != EINVAL && errno != ENOENT)
		return -errno;
	tgid = tgid_of(tid);
	if (tgid < 0)
		return tgid;
	fd = syscall(SYS_pidfd_open, tgid, 0);
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
		pid_t pid; /* 0: free */
		int fd;
		int refs;
		int stale; /* close when refs drops to 0 */
	} e[PIDFD_CACHE];
} cache = {.lock = PTHREAD_MUTEX_INITIALIZER};

int sv_act_pidfd_get(pid_t tid, int *handle)
{
	int fd, slot = -1;
	long raw;

	*handle = -1;
	pthread_mutex_lock(&cache.lock);
	for (int i = 0; i < PIDFD_CACHE; i++)
		if (cache.e[i].pid == tid && !cache.e[i].stale) {
			cache.e[i].refs++;
			*handle = i;
			fd = cache.e[i].fd;
			pthread_mutex_unlock(&cache.lock);
			return fd;
		}
	pthread_mutex_unlock(&cache.lock);
	fd = sv_fault("pidfd_open");
	if (fd)
		return fd;
	raw = syscall(SYS_pidfd_open, tid, 0);
	if (raw < 0)
		return sv_act_pidfd_open(tid); /* not a leader: uncached */
	fd = (int)raw;
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
		cache.e[slot].pid = tid;
		cache.e[slot].fd = fd;
		cache.e[slot].refs = 1;
		cache.e[slot].stale = 0;
		*handle = slot;
	}
	pthread_mutex_unlock(&cache.lock);
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
	int getfd_err;
	int *dups;
	size_t n, cap;
};

static int translate_fds(void *arg, int *fds, size_t nfds)
{
	struct rights_ctx *c = arg;

	for (size_t i = 0; i < nfds; i++) {
		int d;

		if (c->n == c->cap) {
			size_t ncap = c->cap ? c->cap * 2 : 8;
			int *n = realloc(c->dups, ncap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			c->dups = n;
			c->cap = ncap;
		}
		d = sv_act_getfd(c->pidfd, fds[i]);
		if (d < 0) {
			c->getfd_err = d;
			return -ECANCELED;
		}
		c->dups[c->n++] = d;
		fds[i] = d;
	}
	return 0;
}

int sv_act_translate_rights(int pidfd, void *control, size_t len, int **dups, size_t *ndups,
			    int *getfd_err)
{
	struct rights_ctx c = {.pidfd = pidfd};
	int rc = sv_msghdr_walk_control(control, len, translate_fds, &c);

	*getfd_err = c.getfd_err;
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
