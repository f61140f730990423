/* Mediation of the calls that make or open sockets and of the calls that
 * reach into other processes: socket(), listen(), ptrace and friends. */
#ifndef SV_MEDIATE_SOCK_H
#define SV_MEDIATE_SOCK_H

#include <linux/seccomp.h>

#include "call.h"

/* socket(): reaches us for every kind outside BPF's fast path. Allowed
 * kinds (sv_sockrule_socket) are answered CONTINUE (every argument is a
 * register, so the kernel sees what was judged); the rest EACCES. Finishes
 * the call. */
void sv_mediate_socket(struct sv_call *c, const __u64 *a);

/* listen(): the socket's bound name decides (sv_sockrule_listen). An
 * allowed listen is performed on the duplicate (the agent's descriptor
 * number could name another socket by the time the kernel resolved it
 * again); a denied one is EACCES with the bound address recorded. Finishes
 * the call. */
void sv_mediate_listen(struct sv_call *c, const __u64 *a);

/* ptrace, process_vm_readv/writev, pidfd_getfd, kcmp: refused with EACCES
 * and recorded as cross-process, on every ABI. Finishes the call. */
void sv_mediate_cross_process(struct sv_call *c, const __u64 *a);

/* prlimit64 with a pid register other than 0 (the filter's rule), on every
 * ABI: continued when the pid's low 32 bits are 0 (the caller itself) or
 * when it sets no new limit (a read); otherwise a limit on another process,
 * the supervisor among them (RLIMIT_CPU has the kernel kill it): refused as
 * cross-process. Finishes the call. */
void sv_mediate_prlimit(struct sv_call *c, const __u64 *a);

#endif
