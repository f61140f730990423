/* Acting on the agent's sockets: pidfds, duplicates, and the calls the
 * supervisor performs on the duplicates with the verified copies. */
#ifndef SV_ACT_H
#define SV_ACT_H

#include <stddef.h>
#include <sys/types.h>

/* Opens a pidfd for the process that thread tid belongs to (pidfd_open only
 * takes thread-group leaders before Linux 6.9, so a non-leader is looked up
 * in /proc/TID/status). Returns the fd or -errno; -ESRCH when it is gone. */
int sv_act_pidfd_open(pid_t tid);

/* A pidfd for the process of thread tid, from a small cache keyed by pid
 * number, or opened (sv_act_pidfd_open) and cached when tid leads its thread
 * group. Safe because a live task's pid number is unique: a cached pidfd is
 * either the process the waiting thread leads, or a dead one whose number
 * was reused, which pidfd_getfd answers with ESRCH: then call
 * sv_act_pidfd_forget and ask again. Returns the fd or -errno; *handle is
 * for sv_act_pidfd_put, which the caller must call instead of close. */
int sv_act_pidfd_get(pid_t tid, int *handle);
void sv_act_pidfd_put(int fd, int handle);
/* Drops a cached pidfd whose process is gone (closed once unused). */
void sv_act_pidfd_forget(int handle);

/* Duplicates the agent's descriptor targetfd into our table (pidfd_getfd,
 * close-on-exec). Returns the fd or -errno: -EBADF when the agent has no such
 * descriptor. */
int sv_act_getfd(int pidfd, int targetfd);

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
 * in our table. Returns 0, -EINVAL (malformed, as the kernel answers),
 * -EPERM (a message that is not forwarded: a denial), or -ECANCELED when
 * pidfd_getfd failed on a passed descriptor, with its -errno in *getfd_err
 * (-EBADF: the agent has no such descriptor). On success *dups holds the
 * duplicates to close after the send (*ndups of them; free with
 * sv_act_free_dups). */
int sv_act_translate_rights(int pidfd, void *control, size_t len, int **dups, size_t *ndups,
			    int *getfd_err);
void sv_act_free_dups(int *dups, size_t ndups);

#endif
