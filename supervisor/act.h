/* Acting on the agent's sockets: pidfds, duplicates, and the calls the
 * supervisor performs on the duplicates with the verified copies. */
#ifndef SV_ACT_H
#define SV_ACT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

/* Opens a pidfd for the process that thread tid belongs to (pidfd_open only
 * takes thread-group leaders before Linux 6.9, so a non-leader is looked up
 * in /proc/TID/status). Returns the fd or -errno; -ESRCH when it is gone. */
int sv_act_pidfd_open(pid_t tid);

/* A pidfd whose pidfd_getfd resolves descriptors in the table of thread tid
 * (a thread made with CLONE_THREAD but not CLONE_FILES has its own):
 * - Linux 6.9+: a PIDFD_THREAD pidfd of tid itself (found by doing it: the
 *   first EINVAL for the flag switches to the fallback for good);
 * - before: the process's pidfd (sv_act_pidfd_open), which reaches the
 *   leader's table; for a non-leader *check_tid is tid, and every duplicate
 *   must then go through sv_act_getfd_as, which proves it is tid's own.
 * From a small cache keyed by tid (thread pidfds) or by leader pid. Safe
 * because a live task's id is unique: a cached pidfd is either the waiting
 * thread's (or the process it leads), or a dead one's whose id was reused,
 * which pidfd_getfd answers with ESRCH: then call sv_act_pidfd_forget and ask
 * again. Returns the fd or -errno; *handle is for sv_act_pidfd_put, which the
 * caller must call instead of close. */
int sv_act_pidfd_get(pid_t tid, int *handle, pid_t *check_tid);
void sv_act_pidfd_put(int fd, int handle);
/* Drops a cached pidfd whose process is gone (closed once unused). */
void sv_act_pidfd_forget(int handle);

/* Duplicates the agent's descriptor targetfd into our table (pidfd_getfd,
 * close-on-exec). Returns the fd or -errno: -EBADF when the agent has no such
 * descriptor. */
int sv_act_getfd(int pidfd, int targetfd);

/* sv_act_getfd, then, when check_tid > 0, kcmp(KCMP_FILE) between the
 * duplicate and check_tid's own descriptor targetfd. Returns the fd, or
 * -errno with *mech the failed mechanism ("pidfd_getfd", or "kcmp": -EXDEV
 * when the thread's descriptor is another file than the leader's, or kcmp's
 * own error: ENOSYS without CONFIG_KCMP, EPERM); -EBADF when the thread has
 * no such descriptor (the agent's own error). A pidfd_getfd EBADF for a
 * thread that does have targetfd (its leader has exited, before 6.9) is
 * -ESRCH with *mech "pidfd_getfd": a mechanism failure, never the agent's
 * EBADF. */
int sv_act_getfd_as(int pidfd, pid_t check_tid, int targetfd, const char **mech);

/* Closes a duplicate. Returns 0 or -errno: a failed close is a mechanism
 * failure like any other. */
int sv_act_close_dup(int fd);

/* Closes fd, ignoring errors: for pidfds and cleanup paths whose failure
 * cannot change what happened to the agent. */
void sv_act_close_quiet(int fd);

/* True when the duplicate is in blocking mode (the file status flags are
 * shared with the agent's descriptor). */
int sv_act_is_blocking(int fd);

/* Checks a copied control buffer against the forwarding allow-list and
 * translates SCM_RIGHTS descriptors from the agent's numbers to duplicates
 * in our table (checked against check_tid's table as sv_act_getfd_as does).
 * Returns 0, -EINVAL (malformed, as the kernel answers),
 * -EPERM (a message that is not forwarded: a denial), or -ECANCELED when
 * pidfd_getfd (or kcmp, sv_act_getfd_as) failed on a passed descriptor, with
 * its -errno in *getfd_err and the mechanism in *mech (-EBADF: the agent has
 * no such descriptor). On success *dups holds the
 * duplicates to close after the send (*ndups of them; free with
 * sv_act_free_dups). */
/* Credentials on the AF_UNIX sends the supervisor performs: the kernel
 * attaches its sender's to every one (SCM_CREDENTIALS for a receiver with
 * SO_PASSCRED), and ours give a receiver in the run's pid namespace pid 0
 * (Chromium's zygote aborts on it: review h-realprog2). Proves by doing it
 * that we may name canary's process (an SCM_CREDENTIALS of its pid, our
 * real uid and gid on a socketpair of our own: needs CAP_SYS_ADMIN over our
 * pid namespace, so a root supervisor) and, if so, lets sv_act_caller_creds
 * name the caller's from then on. Returns 0 or the positive errno of the
 * refusal (kept off then: a performed send carries our own). */
int sv_act_creds_probe(pid_t canary);

/* What /proc/TID/status says of thread tid's process and ids, as our pid
 * and user namespaces see them: its thread group, and its real, effective,
 * saved and file uid and gid, in that order. */
struct sv_status_ids {
	int tgid;
	long uid[4], gid[4];
};

/* Reads them. Returns 0, -ESRCH (the thread is gone), -EPROTO (a line
 * missing), or -errno. */
int sv_act_status_ids(pid_t tid, struct sv_status_ids *ids);

/* The caller's credentials as the kernel attaches them to a send of its
 * own, for thread tid: its process id (tgid, in our pid namespace), real
 * uid and gid (as our user namespace sees them). Returns 0, -ENOTSUP when
 * sv_act_creds_probe did not pass, or -errno (the thread is gone). */
int sv_act_caller_creds(pid_t tid, int32_t *pid, uint32_t *uid, uint32_t *gid);

/* sendmsg(fd, mh, flags), with CAP_SYS_ADMIN raised into this thread's
 * effective set for that one syscall when raised is set
 * (sv_caps_raise_for_creds: a message naming its caller's credentials),
 * and lowered again before it returns. Returns the syscall's result with
 * errno; -1 with ECANCELED, nothing sent, when the capability could not be
 * raised (never the kernel's answer to a send: the caller sends again
 * without the caller's credentials). Should lowering it fail,
 * sv_act_caps_stuck says so from then on and every later call answers -1
 * with ENOTRECOVERABLE, nothing sent: the run is ending. */
long long sv_act_sendmsg(int fd, const struct msghdr *mh, int flags, int raised);

/* Whether a thread's raised capability could not be lowered again
 * (sv_act_sendmsg): the run cannot go on. */
int sv_act_caps_stuck(void);

int sv_act_translate_rights(int pidfd, pid_t check_tid, void *control, size_t len, int **dups,
			    size_t *ndups, int *getfd_err, const char **mech);
void sv_act_free_dups(int *dups, size_t ndups);

#endif
