/* The run's record: counters, events and the JSON report. Every trapped call
 * ends here in exactly one bucket. Thread-safe: the notification threads
 * record concurrently. */
#ifndef SV_REPORT_H
#define SV_REPORT_H

#include <stddef.h>
#include <sys/types.h>

#include "policy.h"

enum sv_bucket {
	SV_ALLOWED,
	SV_DENIED,
	SV_INVALID,
	SV_MECH_FAILURE,
	SV_ABANDONED,
	SV_NEUTRALIZED,
	SV_NBUCKETS
};

enum sv_action {
	SV_ACT_NONE,      /* no answer reached the agent (abandoned) */
	SV_ACT_PERFORMED, /* the supervisor made the call on a duplicate */
	SV_ACT_CONTINUE,  /* SECCOMP_USER_NOTIF_FLAG_CONTINUE */
	SV_ACT_ERRNO,     /* answered with an error, nothing performed */
};

#define SV_DEST_TEXT 136

/* One message of a sendmmsg batch. */
struct sv_msg_event {
	char family[12];
	char dest[SV_DEST_TEXT];
	int denied;
	const char *reason; /* static string or NULL */
	int sent;
	int err; /* 0 or errno of this message */
};

struct sv_event {
	double t_ms;
	pid_t pid;
	const char *syscall; /* static: "connect", "socketcall", "io_uring_setup", ... */
	const char *abi;     /* static: "x86_64", "i386", "x32" */
	char family[12];     /* "" when there is no destination */
	char dest[SV_DEST_TEXT];
	enum sv_bucket bucket;
	const char *reason; /* static: "policy", "foreign-abi", "local", ... */
	enum sv_action action;
	int err;                   /* errno answered (0 for success) */
	long long result;          /* value answered on success */
	const char *mechanism;     /* static: the failed mechanism call, or NULL */
	int mech_err;              /* errno of that mechanism call */
	struct sv_msg_event *msgs; /* sendmmsg only; ownership passes to the report */
	size_t nmsgs;
	/* A send we performed whose bytes the kernel keeps back at the agent's
	 * request (MSG_MORE, UDP_CORK: they leave with a later send) or never
	 * sends (MSG_PROBE): "held": true, so whoever counts arrivals against
	 * performed sends does not wait for this one (sv_call_note_held). */
	int held;
};

/* Probe results, one errno per capability (0 = ok, -1 = not tried). */
struct sv_probe_result {
	int listener;
	int process_vm_readv;
	int proc_mem;
	int pidfd_open;
	int pidfd_getfd;
	int id_valid;
	int send;
	int read;          /* the run's read route: process_vm_readv, or /proc/PID/mem
			    * where process_vm_readv is ENOSYS (0 or that route's errno) */
	int ok;            /* every capability the run needs works */
	int containment;   /* the agent's containment (contain.h) could be set up */
	int private_table; /* the child's own descriptor table (unshare(CLONE_FILES), or a
			    * clone without CLONE_FILES once that was refused) */
	int handover;      /* the listener was taken with pidfd_getfd (sv_spawn_handover) */
	int unshare_files; /* 0, or the errno of the refused unshare(CLONE_FILES) */
	int caller_creds;  /* 0: a performed AF_UNIX send carries its caller's credentials
			    * (sv_act_creds_probe); else the errno that refused it, -1 not
			    * tried: it carries ours */
};

struct sv_run_info {
	char *const *agent_argv;
	const struct sv_policy *policy;
	const char *report_path; /* NULL: no report file */
	int path_agent_writable; /* the path's directory is writable by our (the agent's) uid */
	int report_fd_named;     /* report_fd is a regular file with a name */
	int report_fd;           /* -1: none; else the caller's descriptor (see sv_report_write) */
};

/* Sets up the record for a run, and opens the directory of
 * info->report_path once (every write of the file is relative to it).
 * Returns 0, -ENOMEM, or -errno of that open (-EISDIR: the path names no
 * file). */
int sv_report_init(const struct sv_run_info *info);

/* Milliseconds since sv_report_init. */
double sv_report_now_ms(void);

/* Records one trapped call (copies *ev; takes ownership of ev->msgs). Never
 * fails: an event that cannot be stored is still counted and the loss is
 * counted in events_dropped. */
void sv_report_record(const struct sv_event *ev);

/* The most receiver threads the supervisor keeps (notify.c): the report's
 * receivers.limit. */
#define SV_REPORT_RECEIVERS 16384
/* A receiver found the pool full when it took a call, so the calls after it
 * wait in the kernel's queue with no receiver, where a dying thread's call
 * is withdrawn unseen (an internal error too, notify.c): the report's
 * receivers.capped counts those times. */
void sv_report_count_receivers_capped(void);
/* A notification id a receiver took. Ids are consecutive per filter, so
 * the report's receivers.withdrawn_unseen counts the ids missing between
 * the lowest and the highest taken (less the receives that found theirs
 * withdrawn, ENOENT, which are recorded): notifications the kernel withdrew
 * before any receiver took them, calls never seen and every restart of a
 * call seen later alike (docs/design.md, "What the supervisor cannot see"). Those withdrawn
 * before the first or after the last id taken are counted only when the
 * reaper's two bracketing calls were received (notify.h): the report's
 * receivers.id_range is then "closed", else "open". */
void sv_report_note_id(uint64_t id);
/* A bracketing call of the reaper's was received (its id noted as well):
 * phase 1 before the agent was forked, 2 once its namespace was empty. */
void sv_report_note_sentinel(uint64_t id, int phase);

void sv_report_set_probe(const struct sv_probe_result *p);
void sv_report_set_agent(pid_t pid);
/* The containment mechanism of the agent's tree (sv_contain_name: a static
 * string): the report's containment. */
void sv_report_set_containment(const char *tree);
/* How the agent reaches the host's files (a static string): "read-only" for
 * a root agent (rootfs.h: only the declared paths writable), "uid" for one
 * whose own uid is what limits it. The report's host_files; its writable
 * lists the declared paths (sv_rootfs_declared) either way. */
void sv_report_set_host_files(const char *how);
/* Why no user namespace of our own is used (the -errno of
 * sv_contain_userns_err, or 0): the report's userns_refused, set as soon as
 * it is known, so a run that ends at the probe says it too. */
void sv_report_set_userns_refused(int err);
/* The agent's wait status (as from waitpid), set as soon as it is known,
 * while what the agent left may still run. Main thread only. */
void sv_report_set_agent_exit(int status);
/* A signal ended the run (the first one counts): verdict capability-error,
 * its reason saying whether the agent had exited by then (set above). */
void sv_report_set_interrupted(int sig);
/* An internal error that makes the supervisor unable to vouch for the run.
 * The first one's text is kept (copied). */
void sv_report_internal_error(const char *what, int err);

/* The verdict as it stands: 0 pass, 1 fail, 3 capability-error. complete says
 * whether the run finished. */
int sv_report_verdict(int complete);

/* Writes the report (complete=0: the provisional one) to every channel given
 * at init:
 * - report_fd: appends one record, "egress-supervisor-report-record/1
 *   provisional|final BYTES\n" followed by exactly BYTES of JSON. A reader
 *   takes the last record whose BYTES are all there; records are never
 *   rewritten, so a kill mid-write leaves the previous one whole. Works on a
 *   regular file, a memfd or a pipe (which the caller must drain).
 * - report_path: replaces the file atomically (an O_TMPFILE, or mkstemp where
 *   the filesystem has none, written, fsynced, named, renamed over the path,
 *   the directory fsynced).
 * The file is written first: when it fails, the run has an internal error
 * (its verdict is capability-error, as the exit status), and the descriptor's
 * record, written after, says so.
 * Returns 0 (also when there is no channel) or the first -errno. */
int sv_report_write(int complete);

/* Copies of the counters for tests and the summary line. */
void sv_report_counts(unsigned long long out[SV_NBUCKETS], unsigned long long *notifications);

#endif
