/* The run's processes as the supervisor sees them in its own /proc: those
 * whose pid namespace is the run's (the one just below ours that the
 * calling thread's is, or is below) or one below it. For unixdiag.c (who
 * holds a listener) and nsjoin.c (who lives in a namespace), in runs with
 * a pid namespace only. */
#ifndef SV_RUNPROCS_H
#define SV_RUNPROCS_H

#include <sys/types.h>

/* Opens the pid namespace of thread tid (a thread under our filter), which
 * names its run in the calls below, after tid is gone too: a caller opens it
 * before it asks whether the thread's call is alive, so a call found alive
 * is judged whatever becomes of the thread (review h-attack32). Returns the
 * descriptor or -errno (-ESRCH: tid is gone). */
int sv_runprocs_open(pid_t tid);

/* Calls fn(pidfd, pid, arg) for each process of the run named by tidns
 * (sv_runprocs_open), pid as our /proc names it. Each is
 * pinned by a pidfd taken before its /proc entries are read: fn returns 1
 * for a find, and the find stands only if the process is still there
 * after fn (a process that exists, a zombie too, keeps its pid, so every
 * /proc/PID fn read named it, never a process of the host that took a
 * freed pid of the run's meanwhile: review h-attack23), 0 to go on, or
 * -errno to stop. Returns 1 (found), 0 (not found) or -errno (-ESRCH: the
 * thread was in our own pid namespace). */
int sv_runprocs_each(int tidns, int (*fn)(int pidfd, const char *pid, void *arg), void *arg);

/* Whether the process behind pidfd (any pidfd, one the agent held too),
 * which our /proc names pid, is of the run named by tidns, proven the same
 * way. Returns 1, 0 or -errno. */
int sv_runprocs_has(int tidns, int pidfd, pid_t pid);

#endif
