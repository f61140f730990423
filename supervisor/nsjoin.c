#include "nsjoin.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "fault.h"
#include "filter.h"
#include "listener.h"
#include "runprocs.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080 /* 5.6 */
#endif
#ifndef NS_GET_NSTYPE
#define NS_GET_NSTYPE _IO(NSIO, 0x3) /* 4.11 */
#endif

/* User namespaces nest at most 32 deep below the initial one. */
#define MAX_CHAIN 33

static _Atomic int judged;
static _Atomic int table_shared;

/* Where a namespace of each type shows in /proc/PID/ns: a pid or time
 * namespace a process made with unshare shows only for its children until
 * one exists. */
static const struct {
	int type;
	const char *link, *children;
} kinds[] = {
    {CLONE_NEWNS, "mnt", NULL},    {CLONE_NEWCGROUP, "cgroup", NULL},
    {CLONE_NEWUTS, "uts", NULL},   {CLONE_NEWIPC, "ipc", NULL},
    {CLONE_NEWUSER, "user", NULL}, {CLONE_NEWPID, "pid", "pid_for_children"},
    {CLONE_NEWNET, "net", NULL},   {CLONE_NEWTIME, "time", "time_for_children"},
};

/* What makes a namespace the run's (see lives_in). */
struct wanted {
	const char *link[2];
	ino_t target;
	ino_t users[MAX_CHAIN];
	int nusers;
};

void sv_nsjoin_set_judged(int on)
{
	atomic_store(&judged, on);
}

/* The namespace /proc/PID/ns/NAME shows, by its inode ("net:[4026531840]");
 * 0 when it cannot be read (gone, or not ours to see). */
static ino_t link_ino(const char *pid, const char *name)
{
	char path[64], buf[64], *bracket;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%.16s/ns/%s", pid, name);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	bracket = strchr(buf, '[');
	return bracket ? (ino_t)strtoull(bracket + 1, NULL, 10) : 0;
}

/* Whether process pid of the run is in the target namespace, or in one of
 * the user namespaces that own it below ours. Each namespace compared is
 * held open by us while the run is looked at, and a namespace that exists
 * keeps its inode number: an equal number is that namespace. */
static int lives_in(int pidfd, const char *pid, void *arg)
{
	const struct wanted *w = arg;
	ino_t user = w->nusers ? link_ino(pid, "user") : 0;

	(void)pidfd;
	for (int i = 0; i < 2 && w->link[i]; i++)
		if (link_ino(pid, w->link[i]) == w->target)
			return 1;
	for (int i = 0; user && i < w->nusers; i++)
		if (user == w->users[i])
			return 1;
	return 0;
}

/* The user namespaces that own namespace ns (of type), from its owner (the
 * namespace itself for a user namespace) up to ours, not including ours:
 * a process of the run in one of them made it or entered it by a judged
 * join, and so the run made what it owns. Ours and those above it are
 * never the run's (a root agent's is the initial one, which owns every
 * namespace of the host). Each is kept open in fds until the caller
 * closes them. Returns 0 or -errno. */
static int owner_chain(int ns, int type, struct wanted *w, int *fds)
{
	struct stat self, st;
	int u, err;

	if (stat("/proc/self/ns/user", &self) != 0)
		return -errno;
	u = type == CLONE_NEWUSER ? fcntl(ns, F_DUPFD_CLOEXEC, 0) : ioctl(ns, NS_GET_USERNS);
	while (u >= 0 && w->nusers < MAX_CHAIN) {
		if (fstat(u, &st) != 0) {
			err = -errno;
			close(u);
			return err;
		}
#ifndef SV_MUTANT_SETNS_OWNER_PAST_OURS
		/* MUTANT setns-owner-past-ours: the walk goes on past our own
		 * user namespace, where a root agent lives. */
		if (st.st_ino == self.st_ino && st.st_dev == self.st_dev) {
			close(u);
			return 0;
		}
#endif
		fds[w->nusers] = u;
		w->users[w->nusers++] = st.st_ino;
		u = ioctl(u, NS_GET_PARENT);
	}
	if (u >= 0) {
		close(u);
		return 0;
	}
	/* EPERM: the next one is above ours, or the owner is not below ours
	 * at all (a uid-1000 supervisor in its user namespace). */
	return errno == EPERM ? 0 : -errno;
}

/* The pid a pidfd names (its fdinfo's "Pid:"): -1 when its process is
 * gone, 0 when the descriptor is no pidfd. */
static pid_t pidfd_pid(int fd)
{
	char path[48], line[128];
	pid_t pid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "Pid:", 4) == 0) {
			pid = (pid_t)strtol(line + 4, NULL, 10);
			pid = pid ? pid : -1;
			break;
		}
	fclose(f);
	return pid;
}

/* How many threads the process of thread tid has: -errno when unreadable. */
static int threads_of(pid_t tid)
{
	char path[48], line[128];
	int n = -EPROTO;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	/* ENOENT: the thread is gone (its call abandoned, not a failure). */
#ifndef SV_MUTANT_THREAD_GONE_FAILS
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
#else
	/* MUTANT thread-gone-fails: a thread gone is a mechanism failure. */
	if (!f)
		return -errno;
#endif
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "Threads:", 8) == 0) {
			n = atoi(line + 8);
			break;
		}
		/* A thread reaped after the open reads ESRCH: gone, as above. */
#ifndef SV_MUTANT_THREAD_GONE_FAILS
	if (n == -EPROTO && ferror(f))
		n = -errno;
#endif
	fclose(f);
	return n;
}

/* Whether no other task can replace a descriptor in the calling thread's
 * table before the kernel looks it up again (after CONTINUE): 1, 0, or -1
 * with the call finished. The caller waits in the call, so only its other
 * threads, or a process sharing its table (clone with CLONE_FILES alone,
 * which the filter reports before it happens), could; and only those
 * could make another. Read before the duplicate is taken: a thread that
 * swaps the descriptor after it and exits before a later count is not
 * counted (review h-attack26's ha26-swapexit.sh: a pass, the container's
 * service reached); one that exits drops its table (exit_files) before it
 * stops being counted, so a count of 1 means no other thread holds it. */
static int table_alone(struct sv_call *c)
{
	int n = threads_of((pid_t)c->req->pid);

	if (n < 0) {
		sv_call_mech_failure(c, "proc_status", -n);
		return -1;
	}
	return n == 1 && !atomic_load(&table_shared);
}

/* Whether fd is a namespace's file: its ioctls are then nsfs's, and
 * their answers descriptors the kernel made (a FUSE file's ioctl answers
 * are its server's). */
static int is_nsfs(int fd)
{
	struct statfs fs;

	return fstatfs(fd, &fs) == 0 && fs.f_type == NSFS_MAGIC;
}

/* Whether the namespace behind the duplicate is the run's (the run named
 * by tidns): 1, 0, -errno; -EINVAL for flags the kernel refuses with it,
 * or -ECANCELED when the caller was gone before it was looked at. A
 * failure of the call's life check itself sets *mech. */
static int judge_nsfd(struct sv_call *c, int tidns, int type, int flags, const char **mech)
{
	struct wanted w = {.target = 0};
	int fds[MAX_CHAIN], rc;
	struct stat st;

	if (flags && flags != type)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].type == type) {
			w.link[0] = kinds[i].link;
			w.link[1] = kinds[i].children;
		}
	if (!w.link[0] || fstat(c->dup, &st) != 0)
		return -EINVAL;
	w.target = st.st_ino;
	rc = owner_chain(c->dup, type, &w, fds);
	if (rc == 0) {
		/* The caller itself first, then whether its call was alive when
		 * its links were read: a run that is ending takes its processes'
		 * links with it, so a scan then finds no one in the caller's own
		 * namespace (an audit: a false foreign-namespace); and a caller
		 * found alive here is judged, whatever becomes of its call after
		 * (review h-attack32: a check after the scan let an agent file
		 * its foreign join as abandoned by interrupting it). */
		char tid[16];
		int own;

		snprintf(tid, sizeof(tid), "%d", (int)c->req->pid);
		own = lives_in(-1, tid, &w);
#ifndef SV_MUTANT_SETNS_CHECKED_AFTER_SCAN
		rc = sv_listener_id_valid(c->listener, c->req->id);
		if (rc == -ENOENT) {
			rc = -ECANCELED;
		} else if (rc < 0) {
			*mech = "id_valid";
		} else if (own == 1) {
			rc = 1;
		} else {
			/* The window a test build widens, so the caller can
			 * be gone before the scan every time. */
			if (sv_fault("setns_window"))
				usleep(300 * 1000);
#ifndef SV_MUTANT_RUN_NAMED_LATE
			rc = sv_runprocs_each(tidns, lives_in, &w);
#else
			/* MUTANT run-named-late: the run is named through the
			 * caller after its call was found alive, so a caller
			 * gone by then is filed no-process (invalid), as
			 * before. */
			int late = sv_runprocs_open((pid_t)c->req->pid);

			(void)tidns;
			rc = late < 0 ? late : sv_runprocs_each(late, lives_in, &w);
			if (late >= 0)
				close(late);
#endif
		}
#else
		/* MUTANT setns-checked-after-scan: the call's life is looked at
		 * after the scan found no one, as at 923d8e9. */
		(void)mech;
		rc = own == 1 ? 1 : sv_runprocs_each(tidns, lives_in, &w);
		if (rc == 0 && sv_listener_id_valid(c->listener, c->req->id) == -ENOENT)
			rc = -ECANCELED;
#endif
	}
	for (int i = 0; i < w.nusers; i++)
		close(fds[i]);
	return rc;
}

static void deny_foreign(struct sv_call *c)
{
	sv_call_finish(c, SV_DENIED, "foreign-namespace", SV_ACT_ERRNO, sv_call_denial_errno(c), 0);
}

void sv_nsjoin_mediate(struct sv_call *c, const __u64 *a)
{
	const int all = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC |
			CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME;
	int flags = (int)a[1], type, rc, alone = 0, tidns;
	const char *mech = "proc_ns";
	pid_t pid;

	/* A subreaper run's agent can make no namespace (the host refused
	 * us a user namespace, and it has no capability): any namespace it
	 * could enter is another's. */
	if (!atomic_load(&judged)) {
		deny_foreign(c);
		return;
	}
#ifndef SV_MUTANT_SETNS_THREADS_LATE
	alone = table_alone(c);
	if (alone < 0)
		return;
#endif
	if (sv_call_take(c, (int)a[0]))
		return;
	/* The run is named through the caller before its call's life is
	 * looked at (judge_nsfd), so a caller found alive is judged even if
	 * it is gone by the scan (it was filed no-process). */
	tidns = sv_runprocs_open((pid_t)c->req->pid);
	if (tidns < 0) {
		rc = sv_listener_id_valid(c->listener, c->req->id);
		if (rc == -ENOENT)
			sv_call_finish(c, SV_ABANDONED, "target-gone", SV_ACT_NONE, 0, 0);
		else
			sv_call_mech_failure(c, rc < 0 ? "id_valid" : "proc_ns",
					     rc < 0 ? -rc : -tidns);
		return;
	}
	type = is_nsfs(c->dup) ? ioctl(c->dup, NS_GET_NSTYPE) : -1;
	if (type >= 0) {
		rc = judge_nsfd(c, tidns, type, flags, &mech);
	} else if ((pid = pidfd_pid(c->dup)) != 0) {
		/* A pidfd joins the namespaces of its process: all the run's
		 * when the process is. */
		if (flags == 0 || (flags & ~all))
			rc = -EINVAL;
		else if (pid < 0)
			rc = -ESRCH;
		else
			rc = sv_runprocs_has(tidns, c->dup, pid);
	} else {
		rc = -EINVAL;
	}
	close(tidns);
	if (rc == -ECANCELED) {
		sv_call_finish(c, SV_ABANDONED, "target-gone", SV_ACT_NONE, 0, 0);
		return;
	}
	if (rc == -EINVAL || rc == -ESRCH) {
		/* The kernel's own answers: a descriptor that is neither a
		 * namespace nor a pidfd, flags that do not fit it, a process
		 * that is gone. */
		sv_call_finish(c, SV_INVALID, rc == -EINVAL ? "not-a-namespace" : "no-process",
			       SV_ACT_ERRNO, -rc, 0);
		return;
	}
	if (rc < 0) {
		sv_call_mech_failure(c, mech, -rc);
		return;
	}
	if (rc == 0) {
		deny_foreign(c);
		return;
	}
#ifdef SV_MUTANT_SETNS_THREADS_LATE
	/* MUTANT setns-threads-late: the threads are counted after the
	 * duplicate, as before review h-attack26. */
	alone = table_alone(c);
	if (alone < 0)
		return;
#endif
#ifndef SV_MUTANT_SETNS_TABLE_UNCHECKED
	/* MUTANT setns-table-unchecked: a thread of the caller may swap the
	 * descriptor between the look and the kernel's. */
	if (!alone) {
		sv_call_finish(c, SV_NEUTRALIZED, "shared-table", SV_ACT_ERRNO, EPERM, 0);
		return;
	}
#endif
	if (sv_call_still_valid(c))
		return;
	sv_call_finish(c, SV_ALLOWED, "run-namespace", SV_ACT_CONTINUE, 0, 0);
}

void sv_nsjoin_table_shared(struct sv_call *c, const __u64 *a)
{
	/* The filter traps a root agent's CLONE_NEWCGROUP here too: refused
	 * first, so a clone that does not happen shares no table. Another
	 * agent's clone came here for CLONE_FILES alone: its cgroup namespace
	 * is no harm (it owns none of the files a mount would show). */
#ifndef SV_MUTANT_CGROUP_REFUSED_ANY_UID
	if (sv_filter_root_agent() && ((uint32_t)a[0] & CLONE_NEWCGROUP)) {
#else
	/* MUTANT cgroup-refused-any-uid: a uid-1000 agent's clone that shares
	 * its table and makes a cgroup namespace is refused too, as before
	 * stop 38 (a false red). */
	if ((uint32_t)a[0] & CLONE_NEWCGROUP) {
#endif
		sv_nsjoin_new_cgroup(c, a);
		return;
	}
	/* Set before the clone happens (it waits for this answer). */
	atomic_store(&table_shared, 1);
	sv_call_finish(c, SV_ALLOWED, "shared-table", SV_ACT_CONTINUE, 0, 0);
}

void sv_nsjoin_new_cgroup(struct sv_call *c, const __u64 *a)
{
	if ((uint32_t)a[0] & CLONE_NEWCGROUP)
		sv_call_finish(c, SV_NEUTRALIZED, "cgroup-namespace", SV_ACT_ERRNO, EPERM, 0);
	else
		sv_call_finish(c, SV_ALLOWED, "no-cgroup-namespace", SV_ACT_CONTINUE, 0, 0);
}
