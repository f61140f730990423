/* The run's processes as the supervisor sees them in its own /proc: those
 * whose pid namespace is the run's (that of its reaper, init of it) or one
 * below it. For unixdiag.c (who holds a listener) and nsjoin.c (who lives
 * in a namespace). */
#ifndef SV_RUNPROCS_H
#define SV_RUNPROCS_H

#include <sys/types.h>

/* The run's reaper (init of its pid namespace), once spawned: the run is
 * its pid namespace from then on. Until it is set (0), the run is that of
 * the thread that asks. */
void sv_runprocs_set_reaper(pid_t reaper);
pid_t sv_runprocs_reaper(void);

/* Calls fn(pidfd, pid, arg) for each process of the run (the run of
 * thread tid until the reaper is set), pid as our /proc names it. Each is
 * pinned by a pidfd taken before its /proc entries are read: fn returns 1
 * for a find, and the find stands only if the process is still there
 * after fn (a process that exists, a zombie too, keeps its pid, so every
 * /proc/PID fn read named it, never a process of the host that took a
 * freed pid of the run's meanwhile: review h-attack23), 0 to go on, or
 * -errno to stop. Returns 1 (found), 0 (not found) or -errno. */
int sv_runprocs_each(pid_t tid, int (*fn)(int pidfd, const char *pid, void *arg), void *arg);

/* Whether the process behind pidfd (any pidfd, one the agent held too),
 * which our /proc names pid, is of the run of thread tid, proven the same
 * way. Returns 1, 0 or -errno. */
int sv_runprocs_has(pid_t tid, int pidfd, pid_t pid);

#endif
