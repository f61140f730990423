/* Descriptor helpers shared by the supervisor and egress-hostprofile. */
#ifndef SV_FDS_H
#define SV_FDS_H

#include <sys/types.h>

/* Descriptor `theirs` of process pid, duplicated into our table with
 * pidfd_open and pidfd_getfd (the ptrace access the caller needs is
 * PTRACE_MODE_ATTACH_REALCREDS): the new descriptor, or -errno of either
 * call. pid must name a process that cannot be reaped meanwhile (our own
 * unreaped child). */
int sv_fds_take(pid_t pid, int theirs);

/* Closes both ends of a pipe that are still open and marks them -1. */
void sv_fds_close_pair(int p[2]);

#endif
