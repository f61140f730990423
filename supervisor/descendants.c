/* Killing the agent's tree at the end of a run cut short (descendants.h). */
#include "descendants.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

struct proc_link {
	pid_t pid, ppid;
};

/* The parent of process pid as its /proc/PID/stat says now, or -errno
 * (-ENOENT: gone). */
static pid_t read_ppid(const char *pid)
{
	char path[300], buf[512], *p;
	int ppid, fd, err;
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	err = errno;
	close(fd);
	if (len <= 0)
		return len < 0 ? -err : -ENOENT;
	buf[len] = 0;
	/* The name may hold anything, ')' too: the last one ends it. */
	if (!(p = strrchr(buf, ')')) || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return -EINVAL;
	return (pid_t)ppid;
}

/* Every process's parent, from /proc: *out (malloc'd, caller frees) and the
 * count, or -errno. */
static int read_parents(struct proc_link **out, size_t *n)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t cap = 256;
	struct proc_link *v = malloc(cap * sizeof(*v));

	*n = 0;
	if (!d || !v) {
		int err = d ? ENOMEM : errno;

		if (d)
			closedir(d);
		free(v);
		return -err;
	}
	while ((e = readdir(d))) {
		pid_t ppid;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		if ((ppid = read_ppid(e->d_name)) < 0)
			continue;
		if (*n == cap) {
			struct proc_link *nv = realloc(v, 2 * cap * sizeof(*v));

			if (!nv)
				break; /* the rest is killed next round */
			v = nv;
			cap *= 2;
		}
		v[*n].pid = (pid_t)atoi(e->d_name);
		v[(*n)++].ppid = ppid;
	}
	closedir(d);
	*out = v;
	return 0;
}

static int by_pid(const void *a, const void *b)
{
	pid_t x = ((const struct proc_link *)a)->pid, y = ((const struct proc_link *)b)->pid;

	return (x > y) - (x < y);
}

/* depth[i] for each v[i] (sorted by pid): how many links its chain of
 * parents in the snapshot takes to reach self, or -1 when it leaves the
 * snapshot or loops (a /proc read is not atomic: a cycle of stale entries
 * must not loop). Each process is walked once; path is scratch of n. */
static void depths(const struct proc_link *v, size_t n, pid_t self, int *depth, size_t *path)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = 0, cur = i;
		int base = -1;

		while (depth[cur] == 0) {
			struct proc_link key = {.pid = v[cur].ppid}, *up;

			path[len++] = cur;
			depth[cur] = -2; /* on this walk: met again, a loop */
			if (v[cur].ppid == self) {
				base = 0;
				break;
			}
			if (!(up = bsearch(&key, v, n, sizeof(*v), by_pid)))
				break;
			cur = (size_t)(up - v);
		}
		if (len && depth[cur] != -2 && v[path[len - 1]].ppid != self)
			base = depth[cur]; /* stopped at a known process */
		while (len--)
			depth[path[len]] = base < 0 ? -1 : ++base;
	}
}

#ifdef SV_MUTANT_OLD_DESCENDANT_KILL
/* MUTANT old-descendant-kill: one pass over /proc in pid order per round,
 * direct children only, at most 1000 rounds. */
void sv_descendants_kill(int pidns, void (*reaped)(pid_t pid, int status))
{
	pid_t self = getpid();

	(void)pidns;
	for (int round = 0; round < 1000; round++) {
		DIR *d = opendir("/proc");
		struct dirent *e;
		int status;
		pid_t w;

		while (d && (e = readdir(d))) {
			char path[300], buf[512], *p;
			int ppid = 0;
			FILE *f;

			if (e->d_name[0] < '1' || e->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
			f = fopen(path, "re");
			if (!f)
				continue;
			if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) &&
			    sscanf(p + 1, " %*c %d", &ppid) == 1 && ppid == self)
				kill(atoi(e->d_name), SIGKILL);
			fclose(f);
		}
		if (d)
			closedir(d);
		while ((w = waitpid(-1, &status, WNOHANG)) > 0)
			reaped(w, status);
		if (w < 0 && errno == ECHILD)
			return;
		usleep(1000);
	}
}
#else

#ifdef SV_MUTANT_KILL_BY_PID
/* MUTANT kill-by-pid: every pid whose chain of parents reaches self in the
 * snapshot is SIGKILLed by number, in every mode, as before review
 * h-attack34: once a namespace's reaper is dead, the rest of the snapshot
 * names freed pids, some of them taken by processes outside the run. */
static void kill_round(struct proc_link *v, size_t n, pid_t self, int pidns,
		       void (*reaped)(pid_t pid, int status))
{
	/* 0 unknown, 1 ours, 2 not ours */
	unsigned char *state = calloc(n ? n : 1, 1);

	(void)pidns;
	(void)reaped;
	qsort(v, n, sizeof(*v), by_pid);
	for (size_t i = 0; i < n; i++) {
		size_t cur = i, steps = 0;
		unsigned char verdict = 2;

		if (!state) {
			if (v[i].ppid == self)
				kill(v[i].pid, SIGKILL);
			continue;
		}
		while (steps++ <= n) {
			struct proc_link key = {.pid = v[cur].ppid}, *up;

			if (state[cur]) {
				verdict = state[cur];
				break;
			}
			if (v[cur].ppid == self) {
				verdict = 1;
				break;
			}
			up = bsearch(&key, v, n, sizeof(*v), by_pid);
			if (!up)
				break;
			cur = (size_t)(up - v);
		}
		for (size_t k = i, s2 = 0; s2 < steps && !state[k]; s2++) {
			struct proc_link key = {.pid = v[k].ppid}, *up;

			state[k] = verdict;
			up = bsearch(&key, v, n, sizeof(*v), by_pid);
			if (!up)
				break;
			k = (size_t)(up - v);
		}
		if (state[i] == 1)
			kill(v[i].pid, SIGKILL);
	}
	free(state);
}
#else
/* One descendant of the snapshot, on its way to a SIGKILL. */
struct victim {
	pid_t pid;
	int depth; /* 1: our child in the snapshot, 2: its child, ... */
	int pidfd; /* -1 until opened */
	int proven;
};

static int by_depth(const void *a, const void *b)
{
	int x = ((const struct victim *)a)->depth, y = ((const struct victim *)b)->depth;

	return (x > y) - (x < y);
}

/* Whether the process behind pidfd has not been reaped: its pid is still
 * its own (a zombie keeps it), so a number read in the meantime named it. */
static int unreaped(int pidfd)
{
	return syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
}

/* Proves each victim ours after its pidfd pins it, parents first: its
 * parent read again after the pidfd was opened is self, or a victim proven
 * this round whose pidfd shows it unreaped after that read (so the parent's
 * number still named it). A victim that is alive when it is signalled was
 * alive at its read, which was then its own. One whose pidfd cannot be
 * opened is gone (ESRCH) or waits for a later round (out of descriptors; a
 * kernel or a seccomp profile without pidfd_open: then our children, killed
 * by number, are the round's progress). */
static void prove(struct victim *t, size_t m, const struct proc_link *v, size_t n,
		  const ssize_t *victim_of, pid_t self)
{
	for (size_t i = 0; i < m; i++) {
		struct proc_link key;
		const struct proc_link *up;
		char name[16];
		pid_t ppid;

		t[i].pidfd = (int)syscall(SYS_pidfd_open, t[i].pid, 0);
		if (t[i].pidfd < 0)
			continue;
		snprintf(name, sizeof(name), "%d", (int)t[i].pid);
		if ((ppid = read_ppid(name)) < 0)
			continue;
		if (ppid == self) {
			t[i].proven = 1;
			continue;
		}
		key.pid = ppid;
		up = bsearch(&key, v, n, sizeof(*v), by_pid);
		if (up && victim_of[up - v] >= 0) {
			const struct victim *parent = &t[victim_of[up - v]];

			t[i].proven = parent->proven && unreaped(parent->pidfd);
		}
	}
}

/* Our children in the snapshot are unreaped (only this thread reaps, after
 * this, and SIGCHLD is not ignored), so their numbers are still theirs:
 * killed by number, and waited for when block says so (a reaper's exit
 * comes once its namespace is empty). */
static void kill_children(const struct proc_link *v, size_t n, pid_t self, int block,
			  void (*reaped)(pid_t pid, int status))
{
	for (size_t i = 0; i < n; i++)
		if (v[i].ppid == self)
			kill(v[i].pid, SIGKILL);
	for (size_t i = 0; block && i < n; i++) {
		int status;
		pid_t w;

		if (v[i].ppid != self)
			continue;
		while ((w = waitpid(v[i].pid, &status, 0)) < 0 && errno == EINTR)
			;
		if (w == v[i].pid)
			reaped(w, status);
	}
}

/* One round: kills what the snapshot v shows of the tree without naming a
 * process by a number that may have been freed (descendants.h). */
static void kill_round(struct proc_link *v, size_t n, pid_t self, int pidns,
		       void (*reaped)(pid_t pid, int status))
{
	int *depth = NULL;
	size_t *path = NULL, m = 0;
	ssize_t *victim_of = NULL;
	struct victim *t = NULL;

	qsort(v, n, sizeof(*v), by_pid);
	if (pidns) {
		kill_children(v, n, self, 1, reaped);
		return;
	}
	depth = calloc(n ? n : 1, sizeof(*depth));
	path = malloc((n ? n : 1) * sizeof(*path));
	victim_of = malloc((n ? n : 1) * sizeof(*victim_of));
	t = malloc((n ? n : 1) * sizeof(*t));
	if (depth && path && victim_of && t) {
		depths(v, n, self, depth, path);
		for (size_t i = 0; i < n; i++)
			if (depth[i] > 0)
				t[m++] = (struct victim){
				    .pid = v[i].pid, .depth = depth[i], .pidfd = -1};
		qsort(t, m, sizeof(*t), by_depth);
		for (size_t i = 0; i < n; i++)
			victim_of[i] = -1;
		for (size_t k = 0; k < m; k++) {
			struct proc_link key = {.pid = t[k].pid};
			struct proc_link *at = bsearch(&key, v, n, sizeof(*v), by_pid);

			victim_of[at - v] = (ssize_t)k;
		}
		prove(t, m, v, n, victim_of, self);
	}
	/* Ours whatever else failed: each round kills a generation at least. */
	kill_children(v, n, self, 0, reaped);
	for (size_t k = 0; k < m; k++) {
		if (t[k].proven)
			syscall(SYS_pidfd_send_signal, t[k].pidfd, SIGKILL, NULL, 0);
		if (t[k].pidfd >= 0)
			close(t[k].pidfd);
	}
	free(depth);
	free(path);
	free(victim_of);
	free(t);
}
#endif

void sv_descendants_kill(int pidns, void (*reaped)(pid_t pid, int status))
{
	pid_t self = getpid();

	for (;;) {
		struct proc_link *v = NULL;
		size_t n = 0;
		int status;
		pid_t w;

		if (read_parents(&v, &n) == 0)
			kill_round(v, n, self, pidns, reaped);
		free(v);
		while ((w = waitpid(-1, &status, WNOHANG)) > 0)
			reaped(w, status);
		if (w < 0 && errno == ECHILD)
			return;
		usleep(1000);
	}
}
#endif

int sv_descendants_describe(int pidns, char *names, size_t len)
{
	struct proc_link *v = NULL;
	pid_t self = getpid();
	size_t n = 0, used = 0, *path;
	int count = 0, rc, *depth;

	names[0] = '\0';
	if ((rc = read_parents(&v, &n)) < 0)
		return rc;
	qsort(v, n, sizeof(*v), by_pid);
	depth = calloc(n ? n : 1, sizeof(*depth));
	path = malloc((n ? n : 1) * sizeof(*path));
	if (!depth || !path) {
		free(depth);
		free(path);
		free(v);
		return -ENOMEM;
	}
	/* Each process walked once (depths: sorted, bsearch, memoised), so the
	 * main thread, which takes the caller's signals, is back within a
	 * snapshot's time whatever tree the agent left: a linear search up
	 * each chain held it 198 s for 12000 processes (review h-attack78). */
	depths(v, n, self, depth, path);
	for (size_t i = 0; i < n; i++) {
		char p[64], comm[32] = "?";
		int fd, w;
		ssize_t got;

		/* A pid-namespace reaper (our child, depth 1) is ours, not the
		 * agent's. */
		if (depth[i] < 1 || (pidns && depth[i] == 1))
			continue;
		count++;
		snprintf(p, sizeof(p), "/proc/%d/comm", (int)v[i].pid);
		if ((fd = open(p, O_RDONLY | O_CLOEXEC)) >= 0) {
			got = read(fd, comm, sizeof(comm) - 1);
			close(fd);
			comm[got > 0 ? got : 0] = '\0';
			comm[strcspn(comm, "\n")] = '\0';
			/* The agent names itself (PR_SET_NAME): no byte of it
			 * reaches the caller's terminal as a control sequence. */
			for (char *q = comm; *q; q++)
				if (*q < 0x20 || *q > 0x7e)
					*q = '?';
		}
		w = snprintf(names + used, len - used, "%s%s (%d)", used ? ", " : "", comm,
			     (int)v[i].pid);
		if (w < 0 || (size_t)w >= len - used)
			names[used] = '\0'; /* the count goes on; the names stop */
		else
			used += (size_t)w;
	}
	free(depth);
	free(path);
	free(v);
	return count;
}
