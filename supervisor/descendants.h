/* Ending what is left of the run when it is cut short (a signal, a failed
 * set-up): every process of the agent's tree is killed and reaped, and no
 * process outside it is ever signalled. */
#ifndef SV_DESCENDANTS_H
#define SV_DESCENDANTS_H

#include <stddef.h>
#include <sys/types.h>

/* SIGKILLs every descendant of ours, however deep, and reaps our children
 * until waitpid says ECHILD, calling reaped(pid, status) for each child
 * reaped. We are a child subreaper, so an orphan is re-parented to us, never
 * past us: when we have no child left, no process of the agent's tree is
 * left. Never returns early (returning early is what left survivors).
 *
 * A process is never signalled by a number that may have been freed: a pid
 * read from /proc may belong to a process outside the run by the time it is
 * used (review h-attack34: a pid namespace's death freed the pids of the
 * snapshot and a SIGKILL by number reached host processes). pidns (our
 * children are reapers of pid namespaces: SV_CONTAIN_PIDNS,
 * SV_CONTAIN_USERNS): only our own children are signalled, by number (an
 * unreaped child's pid cannot be reused), and each reaper's death takes its
 * namespace with it (the kernel's zap_pid_ns_processes, which reports the
 * reaper's exit only once the namespace is empty). Otherwise
 * (SV_CONTAIN_SUBREAPER) every descendant is signalled through a pidfd
 * opened before its parent is read again and proven ours; a kernel without
 * pidfd_open (before 5.3) gets our children by number, a generation per
 * round. */
void sv_descendants_kill(int pidns, void (*reaped)(pid_t pid, int status));

/* For the caller's information while the run goes on: how many processes
 * of the agent's tree there are now (our descendants, not counting our own
 * children when pidns, which are the namespaces' reapers), with
 * "comm (pid)" of as many as fit in names (always terminated). Reads
 * /proc only; signals nothing. Returns the count or -errno. */
int sv_descendants_describe(int pidns, char *names, size_t len);

#endif
