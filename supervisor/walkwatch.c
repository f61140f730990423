#include "walkwatch.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/stat.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fault.h"

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif

/* Kept, never closed: closing an instance that held marks waits for an
 * SRCU grace period (fsnotify_destroy_group: about 10 ms here, a failing
 * connect cost 4-10 ms where it had cost 50 us, review h-attack63), and
 * shared by the receivers, since an instance of each would pass uid 0's
 * allowance of 128. */
#define WALK_INOS 4
#define WALK_MASK                                                                                  \
	(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MOVE_SELF | IN_DELETE_SELF |     \
	 IN_ONLYDIR)

static struct {
	pthread_mutex_t lock;
	pthread_cond_t freed;
	int ino[WALK_INOS];
	int busy[WALK_INOS];
	int n;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER, .freed = PTHREAD_COND_INITIALIZER};

static void drain(int ino)
{
	char buf[4096] __attribute__((aligned(8)));

	while (read(ino, buf, sizeof(buf)) > 0)
		;
}

/* A new instance in the pool (under its lock): 0 or -errno. */
static int grow(void)
{
	int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);

	if (fd < 0)
		return -errno;
	pool.ino[pool.n] = fd;
	pool.busy[pool.n] = 0;
	pool.n++;
	return 0;
}

int sv_walkwatch_init(void)
{
	int rc = 0;

	pthread_mutex_lock(&pool.lock);
	while (rc == 0 && pool.n < WALK_INOS)
		rc = grow();
	pthread_mutex_unlock(&pool.lock);
	return rc;
}

int sv_walkwatch_begin(struct sv_walkwatch *w)
{
	int rc = 0, slot = -1;

	w->nwd = 0;
	w->ino = -1;
	pthread_mutex_lock(&pool.lock);
	while (slot < 0) {
		for (int i = 0; i < pool.n && slot < 0; i++)
			if (!pool.busy[i])
				slot = i;
		if (slot >= 0)
			break;
		/* Made only when there is none: with some made, a refusal
		 * (uid 0's instances taken) must not fail a walk that can wait
		 * for one (review h-attack64). */
		if (pool.n == 0) {
			if ((rc = grow()) < 0)
				break;
			continue;
		}
		pthread_cond_wait(&pool.freed, &pool.lock);
	}
	if (slot >= 0)
		pool.busy[slot] = 1;
	pthread_mutex_unlock(&pool.lock);
	if (slot < 0)
		return rc;
	w->slot = slot;
	w->ino = pool.ino[slot];
	/* An event in flight on a mark the last walk removed. */
	drain(w->ino);
	return 0;
}

int sv_walkwatch_dir(struct sv_walkwatch *w, int fd)
{
	char p[64];
	int wd, f = sv_fault("inotify");

	if (f < 0)
		return f;
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	wd = inotify_add_watch(w->ino, p, WALK_MASK);
	if (wd < 0)
		return errno == ENOSPC || errno == ENOMEM ? -errno : 1;
	for (int i = 0; i < w->nwd; i++)
		if (w->wd[i] == wd)
			return 0;
	if (w->nwd == SV_WALKWATCH_MAX_DIRS) {
		inotify_rm_watch(w->ino, wd);
		return 1;
	}
	w->wd[w->nwd++] = wd;
	return 0;
}

int sv_walkwatch_changed(struct sv_walkwatch *w)
{
	struct pollfd p = {.fd = w->ino, .events = POLLIN};

	return poll(&p, 1, 0) != 0;
}

void sv_walkwatch_end(struct sv_walkwatch *w)
{
	if (w->ino < 0)
		return;
	for (int i = 0; i < w->nwd; i++)
		inotify_rm_watch(w->ino, w->wd[i]);
	w->nwd = 0;
	drain(w->ino);
	pthread_mutex_lock(&pool.lock);
	pool.busy[w->slot] = 0;
	pthread_cond_signal(&pool.freed);
	pthread_mutex_unlock(&pool.lock);
	w->ino = -1;
}

int sv_walkwatch_mounts_open(pid_t tid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mounts", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd >= 0 ? fd : errno == ENOENT ? -ESRCH : -errno;
}

int sv_walkwatch_mounts_changed(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLPRI};

	if (poll(&p, 1, 0) < 0)
		return 1;
	return (p.revents & (POLLPRI | POLLERR | POLLNVAL)) != 0;
}

/* The id of the mount fd is on (statx STATX_MNT_ID, 5.8+; else the
 * fdinfo's mnt_id), or -1. */
static long long mount_id(int fd)
{
	struct statx sx;
	char path[64], buf[512];
	const char *m;
	ssize_t n;
	int f;

	if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) == 0 &&
	    (sx.stx_mask & STATX_MNT_ID))
		return (long long)sx.stx_mnt_id;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -1;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	m = strstr(buf, "mnt_id:");
	return m ? atoll(m + 7) : -1;
}

int sv_walkwatch_mounts_in_ns(pid_t tid, int root, int start)
{
	long long want[2] = {mount_id(root), mount_id(start)};
	int found[2] = {0, 0};
	char path[64], line[1024];
	FILE *f;

	if (want[0] < 0 || want[1] < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		long long id = atoll(line);

		for (int i = 0; i < 2; i++)
			found[i] |= id == want[i];
		/* A line longer than the buffer: the rest is not a new line. */
		while (!strchr(line, '\n') && fgets(line, sizeof(line), f))
			;
	}
	fclose(f);
	return found[0] && found[1];
}
