/* The host profile's probes, proven by doing, as the supervisor's own probe
 * proves its mechanisms: against a process of the kind an egress supervisor
 * must read, never against the caller itself (the kernel exempts a
 * process's own thread group from every ptrace access check). Nothing on the
 * host is changed: every filter, prctl and namespace is set in a short-lived
 * child of ours, which is killed when its probe ends. */
#ifndef HP_PROBE_H
#define HP_PROBE_H

enum hp_target {
	HP_CHILD,        /* a forked child, dumpable */
	HP_CHILD_NODUMP, /* a forked child that called PR_SET_DUMPABLE 0 */
	HP_GRANDCHILD,   /* a grandchild whose parent exited: re-parented away */
	HP_NTARGETS
};

/* How a target's listener reached the probe, as the supervisor's does
 * (docs/design.md, "Handing the listener over"). */
enum hp_handover {
	HP_HANDOVER_NONE,   /* no target was started */
	HP_HANDOVER_SHARED, /* installed in our shared table, then the target unshared it */
	HP_HANDOVER_GETFD,  /* unshare(CLONE_FILES) refused: taken with pidfd_getfd from a
			       target whose table was its own from the clone */
};

/* Each field: 0 when it worked, the errno when it failed, -1 when it could
 * not be tried (an earlier step failed). */
struct hp_target_result {
	int listener; /* seccomp filter with SECCOMP_FILTER_FLAG_NEW_LISTENER installed, handed
			 over (HP_HANDOVER_GETFD: the errno of pidfd_open or pidfd_getfd), a
			 notification received */
	int process_vm_readv; /* the target's known bytes read back */
	int proc_mem;         /* the same through /proc/PID/mem */
	int pidfd_open;
	int pidfd_getfd; /* the target's socket duplicated */
	int id_valid;    /* SECCOMP_IOCTL_NOTIF_ID_VALID on its notification */
	int reparented;  /* grandchild only: 0 when it was re-parented before the probe */
	enum hp_handover handover;
};

/* Runs the probe of one target kind into *out. The target first shares our
 * descriptor table; where its unshare(CLONE_FILES) is refused, a second one
 * is started with a table of its own and hands its listener over with
 * pidfd_getfd before it becomes non-dumpable or re-parented, as the
 * supervisor's spawn does. Returns 0, or -errno when no target could be
 * started at all (then *out says what was not tried). */
int hp_probe_target(enum hp_target kind, struct hp_target_result *out);

/* The target kind's name in the profile ("child", "child_nodump",
 * "reparented_grandchild"). */
const char *hp_target_name(enum hp_target kind);

/* "shared-table", "pidfd_getfd", or NULL (HP_HANDOVER_NONE). */
const char *hp_handover_name(enum hp_handover h);

/* io_uring_setup(2) with one entry: 0 or its errno (the ring is closed). */
int hp_probe_io_uring(void);

/* unshare(CLONE_NEWUSER), its uid_map, setgroups and gid_map written (our
 * ids to themselves), then unshare(CLONE_NEWPID | CLONE_NEWNS) inside it, in
 * a forked child: 0 or the errno of the first that failed. */
int hp_probe_userns(void);

#endif
