/* Containment of the agent process itself: what keeps its tree from
 * outliving the run, a root agent from reaching the kernel's usermode
 * helpers, and the caller's descriptors from reaching the agent. The threat
 * model is in docs/design.md ("Threat model: the agent process"). */
#ifndef SV_CONTAIN_H
#define SV_CONTAIN_H

#include <sys/types.h>

enum sv_contain_mode {
	/* The agent runs under a reaper that is init of a new pid namespace, in
	 * a new mount namespace with its own /proc and read-only /proc/sys and
	 * /sys. Killing the reaper kills the namespace (kernel-guaranteed:
	 * zap_pid_ns_processes), and the reaper dies with the supervisor. */
	SV_CONTAIN_PIDNS,
	/* The supervisor is a child subreaper and kills its children until
	 * waitpid says ECHILD: no process of the tree is left when it returns
	 * (orphans are re-parented to us, never past us). The agent is in a
	 * Landlock domain (sv_landlock_restrict), required. */
	SV_CONTAIN_SUBREAPER,
	/* A supervisor without CAP_SYS_ADMIN (uid 1000) first moves into a user
	 * namespace of its own, keeping only CAP_SYS_ADMIN there (never
	 * CAP_SYS_PTRACE), and then contains the agent as SV_CONTAIN_PIDNS
	 * does, in a Landlock domain as well; the agent, uid 1000 in the same
	 * user namespace, has no capability. Its supervisor is outside its pid
	 * namespace, so no signal of the agent's can name it, and whatever kills
	 * the supervisor (the OOM killer) takes the reaper and so the whole
	 * namespace with it. */
	SV_CONTAIN_USERNS,
};

/* A namespace of a child that has just exited is freed only after an RCU
 * grace period and a work item, and counts against user.max_*_namespaces
 * until then: a new one refused with ENOSPC is asked for again, this many
 * times, this far apart (1 s in all), before the refusal is believed. */
#define SV_NS_ENOSPC_TRIES 100
#define SV_NS_ENOSPC_WAIT_US 10000

/* Chooses the mechanism once, for every child of the run, before the
 * probe: a pid namespace when CAP_SYS_ADMIN is effective (a root
 * supervisor); otherwise a user namespace of our own (SV_CONTAIN_USERNS,
 * entered here, for the rest of our life), and where the host refuses one
 * (user.max_user_namespaces=0, a seccomp profile, no CONFIG_USER_NS), the
 * subreaper. Returns 0, or -EOWNERDEAD when we entered the namespace but
 * could not map our ids or lower our capabilities there (set-up fails: the
 * run must be refused). A supervisor with effective uid 0 but without
 * CAP_SYS_ADMIN would run a root agent that owns /proc/sys with nothing to
 * make it read-only: sv_contain_choose then says -EPERM. */
int sv_contain_setup(void);
/* The mode sv_contain_setup chose: 0 (and sets *out) or -errno when the
 * run must be refused (-EPERM as above; -EINVAL before the set-up). */
int sv_contain_choose(enum sv_contain_mode *out);
/* In SV_CONTAIN_USERNS, the pid and mount namespaces could not be made
 * (-errno err): every later child is started as SV_CONTAIN_SUBREAPER, from
 * inside our user namespace (where we hold no CAP_SYS_PTRACE, so the ptrace
 * rules are still the host's), and err is what userns_refused reports. */
void sv_contain_fall_back(int err);
/* Whether err (-errno), a refusal to make our user namespace or the
 * children's pid, mount or IPC namespace in it, says what this host allows
 * (1: the subreaper is the mode to fall back to) rather than what is used
 * up at this moment (0: an allowance counted per uid, which every process
 * of the uid shares, another run's agent among them, or our process slots
 * or memory; review h-attack65). EPERM, EACCES, EINVAL, ENOSYS and EUSERS
 * are the host's; ENOSPC only when one of the limits is 0, the documented
 * way to refuse (inside a container whose own limit reads nonzero while
 * its parent's is 0, the run is refused, never passed weaker). */
int sv_contain_host_refuses(int err);
/* Whether err (-errno), a containment refusal, is one that would have been
 * the host's (sv_contain_host_refuses) but for the user namespace we were
 * started in, which our own uid owns: 1 or 0. Its hint then names that
 * namespace, not a limit used up for now. */
int sv_contain_refused_as_ours(int err);
/* Why the user namespace was not used (the -errno of unshare, or of the
 * seam), or 0: the report's containment.userns_errno. */
int sv_contain_userns_err(void);
/* Called once the agent exists: a supervisor in a user namespace of its own
 * (SV_CONTAIN_USERNS, or the subreaper it fell back to inside one) drops
 * the CAP_SYS_ADMIN it kept for the children's namespaces, so for the rest
 * of the run it holds no capability at all. Returns 0 or -errno. */
int sv_contain_settle(void);
/* "pid-namespace", "user-namespace+pid-namespace+landlock",
 * "subreaper+landlock" or, where the Landlock domain is also scoped for
 * signals (sv_landlock_signal_scoped), "subreaper+landlock+signal-scope":
 * the report's name of the mechanism. */
const char *sv_contain_name(enum sv_contain_mode m);

/* Whether a run in mode m has its AF_UNIX names judged (unixpeer.c) and,
 * with them, the agent's calls that can clear O_NONBLOCK trapped
 * (filter.c): a pid-namespace run, whose agent is root or holds what a
 * CAP_SYS_ADMIN supervisor gives. One condition for both, so the
 * supervisor's nonblocking acts never run beside an untrapped flag
 * (review h-attack28: a uid-1000 supervisor with CAP_SYS_ADMIN). */
int sv_contain_judges_names(enum sv_contain_mode m);

/* The parent pid as seen by the /proc mounted now (before
 * sv_contain_mounts: the supervisor's namespace, where getppid() of a new
 * pid namespace's init says 0). Returns the pid or -errno. */
pid_t sv_contain_outer_ppid(void);

/* Run by init of the new pid and mount namespaces, with CAP_SYS_ADMIN,
 * before the capabilities are dropped: makes every mount private (nothing
 * propagates back to the host), mounts a fresh /proc of the new pid
 * namespace over /proc (outsiders' /proc/PID, /proc/1/root and
 * /proc/PID/mem become unreachable), and, with knobs_ro (a root agent, who
 * owns them by file mode), makes /proc/sys, /proc/sysrq-trigger and every
 * mount of a kernel file system read-only, confines the host's files and
 * devices (rootfs.h: every other mount read-only and nodev, a /dev of its
 * own, the declared paths writable) and reads it all back. Once
 * CAP_SYS_ADMIN is dropped nothing in the namespace can remount or unmount
 * them. Returns 0 or the -errno of the first step that failed; *ns_step
 * says whether that step was a namespace's (the host's to refuse) or the
 * working directory's, which any process of our uid can make unreachable
 * by path (a chmod above it: review h-attack68). */
int sv_contain_mounts(int knobs_ro, int *ns_step);

/* Closes every descriptor >= 3 except keep (-1: none): close_range(2) where
 * the kernel has it (5.9+), else each entry of /proc/self/fd. Returns 0 or
 * -errno (a descriptor that could not be closed: the agent must not run). */
int sv_contain_close_fds(int keep);

/* The reaper, init of the agent's pid namespace: reaps every process of the
 * namespace until none is left (ECHILD). The agent's wait status is written
 * to status_fd (an int) as soon as the agent is reaped, while what it left
 * may run on, so a reaper killed later has said it; -1 at the end when the
 * agent was never reaped; a failed write ends the reaper (_exit 1). The caller has made it
 * non-dumpable before it forked the agent (sv_spawn); as a namespace init it receives no signal
 * from inside the namespace that it has no handler for (it installs none), so the agent can neither
 * kill it nor stop it. */
void sv_contain_reap(pid_t agent, int status_fd);

#endif
