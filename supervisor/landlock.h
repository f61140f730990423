#ifndef SV_LANDLOCK_H
#define SV_LANDLOCK_H

/* Puts the calling process (and all it will start) in a Landlock domain
 * (5.13+, and "landlock" in the kernel's LSM list). What the domain does:
 *  - from inside it no process outside the domain can be ptraced, read or
 *    written through /proc/PID/mem, process_vm_*, pidfd_getfd or kcmp
 *    (security/landlock/ptrace.c), while the supervisor, in no domain, keeps
 *    its access to the agent. Needed for an agent that is not in its own pid
 *    namespace (subreaper mode: a uid-1000 agent could otherwise open
 *    /proc/PID/mem of any dumpable process of its uid under Yama scope 0);
 *  - no file on a cgroup or cgroup2 file system can be opened for writing:
 *    where the host delegates the supervisor's cgroup to its uid (a systemd
 *    user session), the agent could otherwise write the supervisor's
 *    cgroup.kill or cgroup.freeze, or move itself out of the supervisor's
 *    cgroup and then freeze or kill it. Landlock rules only grant, so write
 *    access is granted beneath every entry of the tree that is neither a
 *    cgroup mount point nor an ancestor of one, and the ancestors are split
 *    the same way. Mounting is refused inside any domain that handles file
 *    access, so no new cgroup mount can appear under a granted directory
 *    from inside; one a privileged process outside mounts there during the
 *    run is writable (docs/design.md, known limits);
 *  - with signal_scope (the caller asks for it where the kernel has it,
 *    ABI 6, 6.12+, and its supervisor could otherwise be named: subreaper
 *    mode) it is also scoped for signals: the agent cannot kill or stop its
 *    supervisor, nor signal any other process outside its tree; proven by
 *    signalling our parent, which must be refused.
 * Returns 0, or -errno (ENOSYS: no Landlock in the kernel; EOPNOTSUPP: built
 * but not enabled at boot; E2BIG: more cgroup mounts than it can list). */
int sv_landlock_restrict(int signal_scope);

/* Whether this kernel's Landlock (ABI 6, 6.12+) scopes a domain for
 * signals, which sv_landlock_restrict then asks for: 1 or 0. Before 6.12 a
 * uid-1000 agent can SIGKILL or SIGSTOP its supervisor (same uid) and its
 * tree outlives the run (docs/design.md, "Known limits"). */
int sv_landlock_signal_scoped(void);

#endif
