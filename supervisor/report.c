#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "errnames.h"
#include "fault.h"
#include "reportfile.h"
#include "rootfs.h"
#include "unixpeer.h"
#include "target.h"

/* Beyond this many stored events the rest are only counted: a runaway agent
 * must not take the supervisor's memory with it. */
#define MAX_EVENTS 200000
/* The first EVENT_FLOOR events of each bucket that decides the verdict
 * (denied, invalid, mechanism_failure) are stored on top of MAX_EVENTS:
 * an agent that first floods allowed calls cannot push its denial out of
 * the report, only out of the count of what is listed. */
#define EVENT_FLOOR 1000
#define MAX_STORED (MAX_EVENTS + 3 * EVENT_FLOOR)

static const char *const bucket_names[SV_NBUCKETS] = {
    "allowed", "denied", "invalid", "mechanism_failure", "abandoned", "neutralized"};
static const char *const action_names[] = {"none", "performed", "continue", "errno"};

static struct {
	pthread_mutex_t lock;
	struct timespec start;
	const struct sv_run_info *info;
	struct sv_event *events;
	size_t nevents, cap;
	size_t pooled;              /* stored events not held by a floor */
	size_t stored[SV_NBUCKETS]; /* stored events per bucket */
	unsigned long long counts[SV_NBUCKETS];
	unsigned long long dropped;
	unsigned long long receivers_capped;
	/* Notification ids received (consecutive per filter: a gap between
	 * two is a call withdrawn before any receiver took it), as offsets
	 * from the first, and the receives that found theirs withdrawn
	 * (ENOENT: recorded, but their ids unknown). */
	int have_id;
	uint64_t first_id;
	int64_t lo_id, hi_id;
	unsigned long long ids, died_before_receive;
	/* The reaper's bracketing calls received (notify.h): copies of each
	 * (a call restarted after a stop from outside is received again under
	 * a new id), the phases seen (bit 1 before the agent, bit 2 after),
	 * the last id of the first phase and the first of the second. */
	unsigned long long sentinels;
	int phases;
	int64_t open_id, close_id;
	struct sv_probe_result probe;
	int have_probe;
	pid_t agent_pid;
	const char *containment;
	const char *host_files;
	int userns_err;
	int agent_status;            /* -1 until it exited */
	int interrupted_after_agent; /* the agent had exited when the signal came */
	int interrupted;
	char internal[256];
	char first_denial[320];
	char first_failure[320];
	int dirfd;        /* --report FILE's directory, opened once at set-up */
	const char *base; /* FILE's last component, in that directory */
} R = {.lock = PTHREAD_MUTEX_INITIALIZER, .agent_status = -1, .dirfd = -1};

int sv_report_init(const struct sv_run_info *info)
{
	clock_gettime(CLOCK_MONOTONIC, &R.start);
	R.info = info;
	R.cap = 1024;
	R.events = calloc(R.cap, sizeof(*R.events));
	if (!R.events)
		return -ENOMEM;
	if (info->report_path) {
		/* Resolved once, before the agent exists: every later write is
		 * relative to this directory, so an agent that swaps a directory
		 * on the path for a symbolic link (one under a --writable path)
		 * cannot send the supervisor's write anywhere else (review
		 * h-attack34: a root supervisor replaced a host file the agent
		 * could not write). */
		char dir[PATH_MAX];
		const char *slash = strrchr(info->report_path, '/');

		R.base = slash ? slash + 1 : info->report_path;
		if (!*R.base)
			return -EISDIR;
		sv_reportfile_dir_of(info->report_path, dir, sizeof(dir));
#ifndef SV_MUTANT_REPORT_LINK_FOLLOWED
		/* A root supervisor follows no link on the way: a root agent of
		 * an earlier run may have left one under a path it could write,
		 * pointing at a host directory it could not (review h-attack36:
		 * the next run's reports replaced a file there). */
		if (geteuid() == 0) {
			char link[PATH_MAX];
			int at = sv_rootfs_open_nolinks(dir, link, sizeof(link));

			if (at == -ELOOP)
				fprintf(
				    stderr,
				    "egress-supervisor: --report: '%s' is a symbolic link (the "
				    "system's own, or one an agent of an earlier run left): give "
				    "the resolved path (realpath)\n",
				    link);
			if (at < 0)
				return at;
			R.dirfd = openat(at, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			close(at);
		} else
#endif
			R.dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (R.dirfd < 0)
			return -errno;
	}
	return 0;
}

double sv_report_now_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - R.start.tv_sec) * 1e3 +
	       (double)(now.tv_nsec - R.start.tv_nsec) / 1e6;
}

static void describe(char *buf, size_t len, const struct sv_event *ev)
{
	int shown = ev->mechanism ? ev->mech_err : ev->err;
	const char *en = shown ? sv_errno_name(shown) : NULL;

	snprintf(buf, len, "%s%s%s by pid %d (%s%s%s%s%s)", ev->syscall, ev->dest[0] ? " to " : "",
		 ev->dest, (int)ev->pid, ev->reason ? ev->reason : "", ev->mechanism ? ", " : "",
		 ev->mechanism ? ev->mechanism : "", en ? " " : "", en ? en : "");
}

/* id as an offset from the first id received (R.lock held). */
static int64_t id_offset(uint64_t id)
{
	if (!R.have_id) {
		R.have_id = 1;
		R.first_id = id;
	}
	return (int64_t)(id - R.first_id);
}

void sv_report_note_id(uint64_t id)
{
	pthread_mutex_lock(&R.lock);
	int64_t off = id_offset(id);

	if (off < R.lo_id)
		R.lo_id = off;
	if (off > R.hi_id)
		R.hi_id = off;
	R.ids++;
	pthread_mutex_unlock(&R.lock);
}

void sv_report_note_sentinel(uint64_t id, int phase)
{
	pthread_mutex_lock(&R.lock);
	int64_t off = id_offset(id);

	/* The reaper waits for each answer, so a first-phase copy received
	 * later is the one answered, and every call of the agent comes after
	 * it; every call of the agent comes before the first second-phase
	 * copy received. */
	if (phase == 1 && (!(R.phases & 1) || off > R.open_id))
		R.open_id = off;
	if (phase == 2 && (!(R.phases & 2) || off < R.close_id))
		R.close_id = off;
	R.phases |= phase;
	R.sentinels++;
	pthread_mutex_unlock(&R.lock);
}

static int id_range_closed(void)
{
#ifdef SV_MUTANT_SENTINEL_COPIES_COUNTED
	/* MUTANT sentinel-copies-counted: closed by the number of bracketing
	 * calls received, as in cfab595; a copy restarted under a new id
	 * opens the range again (review h-attack44). */
	return R.sentinels == 2;
#endif
	return R.phases == 3;
}

/* Calls withdrawn before any receiver took them (R.lock held): between the
 * reaper's two calls when both were received (every other copy of theirs
 * is outside them), else between the lowest and the highest id received. */
static unsigned long long withdrawn_unseen(void)
{
	unsigned long long span, inside = R.ids;

	if (!R.have_id)
		return 0;
	if (id_range_closed() && R.close_id > R.open_id) {
		span = (unsigned long long)(R.close_id - R.open_id) + 1;
		inside = R.ids - (R.sentinels - 2);
	} else {
		span = (unsigned long long)(R.hi_id - R.lo_id) + 1;
	}
#ifdef SV_MUTANT_WITHDRAWN_UNCOUNTED
	/* MUTANT withdrawn-uncounted: the id gaps are not counted. */
	span = inside + R.died_before_receive;
#endif
	return span > inside + R.died_before_receive ? span - inside - R.died_before_receive : 0;
}

void sv_report_record(const struct sv_event *ev)
{
	pthread_mutex_lock(&R.lock);
	R.counts[ev->bucket]++;
	if (ev->reason && strcmp(ev->reason, "died-before-receive") == 0)
		R.died_before_receive++;
	if (ev->bucket == SV_DENIED && !R.first_denial[0])
		describe(R.first_denial, sizeof(R.first_denial), ev);
	if (ev->bucket == SV_MECH_FAILURE && !R.first_failure[0])
		describe(R.first_failure, sizeof(R.first_failure), ev);
	int reserved = (ev->bucket == SV_DENIED || ev->bucket == SV_INVALID ||
			ev->bucket == SV_MECH_FAILURE) &&
		       R.stored[ev->bucket] < EVENT_FLOOR;
#ifdef SV_MUTANT_NO_EVENT_FLOOR
	/* MUTANT no-event-floor: one pool for every bucket, as before. */
	reserved = 0;
#endif
	if (R.nevents == R.cap && R.cap < MAX_STORED && (reserved || R.pooled < MAX_EVENTS)) {
		size_t ncap = R.cap * 2 > MAX_STORED ? MAX_STORED : R.cap * 2;
		struct sv_event *n = realloc(R.events, ncap * sizeof(*n));

		if (n) {
			R.events = n;
			R.cap = ncap;
		}
	}
	if (R.nevents < R.cap && (reserved || R.pooled < MAX_EVENTS)) {
		R.events[R.nevents++] = *ev;
		R.stored[ev->bucket]++;
		R.pooled += !reserved;
	} else {
		R.dropped++;
		free(ev->msgs);
	}
	pthread_mutex_unlock(&R.lock);
}

void sv_report_count_receivers_capped(void)
{
	pthread_mutex_lock(&R.lock);
	R.receivers_capped++;
	pthread_mutex_unlock(&R.lock);
}

void sv_report_set_probe(const struct sv_probe_result *p)
{
	pthread_mutex_lock(&R.lock);
	R.probe = *p;
	R.have_probe = 1;
	pthread_mutex_unlock(&R.lock);
}

void sv_report_set_agent(pid_t pid)
{
	R.agent_pid = pid;
}

void sv_report_set_containment(const char *tree)
{
	R.containment = tree;
}

void sv_report_set_host_files(const char *how)
{
	R.host_files = how;
}

void sv_report_set_userns_refused(int err)
{
	R.userns_err = err;
}

void sv_report_set_agent_exit(int status)
{
	R.agent_status = status;
}

void sv_report_set_interrupted(int sig)
{
	pthread_mutex_lock(&R.lock);
	if (!R.interrupted) {
		R.interrupted = sig;
		R.interrupted_after_agent = R.agent_status >= 0;
	}
	pthread_mutex_unlock(&R.lock);
}

void sv_report_internal_error(const char *what, int err)
{
	const char *en = sv_errno_name(err);

	pthread_mutex_lock(&R.lock);
	if (!R.internal[0])
		snprintf(R.internal, sizeof(R.internal), "%s%s%s", what, en ? ": " : "",
			 en ? en : "");
	pthread_mutex_unlock(&R.lock);
}

void sv_report_counts(unsigned long long out[SV_NBUCKETS], unsigned long long *notifications)
{
	pthread_mutex_lock(&R.lock);
	memcpy(out, R.counts, sizeof(R.counts));
	*notifications = R.counts[SV_ALLOWED] + R.counts[SV_DENIED] + R.counts[SV_INVALID] +
			 R.counts[SV_MECH_FAILURE] + R.counts[SV_ABANDONED];
	pthread_mutex_unlock(&R.lock);
}

/* Caller holds the lock. Writes the one-sentence reason into buf. */
static int verdict_locked(int complete, char *buf, size_t len)
{
	if (!complete) {
#ifdef SV_MUTANT_REPORT_ON_CRASH
		/* MUTANT report-on-crash: the provisional report says pass. */
		snprintf(buf, len, "no call was denied and every mediation mechanism worked");
		return 0;
#endif
		snprintf(buf, len, "the supervisor did not finish: it cannot vouch for the run");
		return 3;
	}
	if (R.interrupted) {
		snprintf(buf, len, "the supervisor was interrupted by %s and killed %s",
			 sv_signal_name(R.interrupted) ? sv_signal_name(R.interrupted) : "a signal",
			 R.interrupted_after_agent
			     ? "what the agent left running (the agent itself had exited)"
			     : "the agent");
		return 3;
	}
	if (R.have_probe && !R.probe.ok) {
		snprintf(buf, len,
			 "the capability probe failed, so the agent was not run (see probe)");
		return 3;
	}
	if (R.internal[0]) {
		snprintf(buf, len, "internal error: %s", R.internal);
		return 3;
	}
	if (R.counts[SV_MECH_FAILURE]) {
		snprintf(buf, len,
			 "%llu mechanism failure(s): the supervisor could not see; first: %s",
			 R.counts[SV_MECH_FAILURE], R.first_failure);
		return 3;
	}
	if (R.counts[SV_DENIED]) {
		snprintf(buf, len, "%llu call(s) denied; first: %s", R.counts[SV_DENIED],
			 R.first_denial);
		return 1;
	}
	snprintf(buf, len, "no call was denied and every mediation mechanism worked");
	return 0;
}

int sv_report_verdict(int complete)
{
	char buf[512];
	int v;

	pthread_mutex_lock(&R.lock);
	v = verdict_locked(complete, buf, sizeof(buf));
	pthread_mutex_unlock(&R.lock);
	return v;
}

static void json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void json_errno(FILE *f, int err)
{
	char num[16];
	const char *n;

	if (err <= 0) {
		fputs(err < 0 ? "null" : "\"ok\"", f);
		return;
	}
	n = sv_errno_name(err);
	if (!n) {
		snprintf(num, sizeof(num), "E%d", err);
		n = num;
	}
	json_str(f, n);
}

static void write_probe(FILE *f)
{
	const struct sv_probe_result *p = &R.probe;
	const struct {
		const char *name;
		int err;
	} caps[] = {{"listener", p->listener},       {"process_vm_readv", p->process_vm_readv},
		    {"proc_mem", p->proc_mem},       {"read", p->read},
		    {"pidfd_open", p->pidfd_open},   {"pidfd_getfd", p->pidfd_getfd},
		    {"id_valid", p->id_valid},       {"send", p->send},
		    {"containment", p->containment}, {"private_table", p->private_table}};

	if (!R.have_probe) {
		fputs("null", f);
		return;
	}
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		fprintf(f, "%s\"%s\": ", i ? ", " : "{", caps[i].name);
		json_errno(f, caps[i].err);
	}
	fputs(", \"unshare_files\": ", f);
	json_errno(f, p->unshare_files);
	fputs(", \"caller_credentials\": ", f);
	json_errno(f, p->caller_creds);
	fprintf(f, ", \"handover\": \"%s\", \"result\": \"%s\"}",
		p->handover ? "pidfd_getfd" : "shared-table", p->ok ? "ok" : "failed");
}

static void write_event(FILE *f, const struct sv_event *e)
{
	fprintf(f, "    {\"t_ms\": %.3f, \"pid\": %d, \"syscall\": ", e->t_ms, (int)e->pid);
	json_str(f, e->syscall);
	fputs(", \"abi\": ", f);
	json_str(f, e->abi);
	fputs(", \"family\": ", f);
	json_str(f, e->family[0] ? e->family : NULL);
	fputs(", \"dest\": ", f);
	json_str(f, e->dest[0] ? e->dest : NULL);
	fprintf(f, ", \"bucket\": \"%s\", \"reason\": ", bucket_names[e->bucket]);
	json_str(f, e->reason);
	fprintf(f, ", \"action\": \"%s\", \"errno\": ", action_names[e->action]);
	if (e->err)
		json_errno(f, e->err);
	else
		fputs("null", f);
	fprintf(f,
		", \"result\": %lld, \"mechanism\": ", e->action == SV_ACT_NONE ? -1 : e->result);
	json_str(f, e->mechanism);
	fputs(", \"mechanism_errno\": ", f);
	if (e->mechanism)
		json_errno(f, e->mech_err);
	else
		fputs("null", f);
	if (e->held)
		fputs(", \"held\": true", f);
	if (e->msgs) {
		fputs(", \"messages\": [", f);
		for (size_t i = 0; i < e->nmsgs; i++) {
			const struct sv_msg_event *m = &e->msgs[i];

			fprintf(f, "%s{\"index\": %zu, \"family\": ", i ? ", " : "", i);
			json_str(f, m->family[0] ? m->family : NULL);
			fputs(", \"dest\": ", f);
			json_str(f, m->dest[0] ? m->dest : NULL);
			fprintf(f, ", \"decision\": \"%s\", \"reason\": ",
				m->denied ? "denied" : "allowed");
			json_str(f, m->reason);
			fprintf(f, ", \"sent\": %s, \"errno\": ", m->sent ? "true" : "false");
			if (m->err)
				json_errno(f, m->err);
			else
				fputs("null", f);
			fputc('}', f);
		}
		fputc(']', f);
	}
	fputc('}', f);
}

static void write_body(FILE *f, int complete)
{
	static const char *const verdicts[] = {"pass", "fail", "", "capability-error"};
	char reason[512];
	struct utsname u;
	unsigned long long nots;
	uint64_t min_addr;
	int v = verdict_locked(complete, reason, sizeof(reason));
	const struct sv_policy *pol = R.info->policy;

	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	nots = R.counts[SV_ALLOWED] + R.counts[SV_DENIED] + R.counts[SV_INVALID] +
	       R.counts[SV_MECH_FAILURE] + R.counts[SV_ABANDONED];
	fputs("{\n  \"format\": \"egress-supervisor-report/2\",\n", f);
	fprintf(f, "  \"complete\": %s,\n  \"verdict\": \"%s\",\n  \"reason\": ",
		complete ? "true" : "false", verdicts[v]);
	json_str(f, reason);
	/* Schema 2: the promise the host's oracle holds us to (every refused
	 * undeclared call answers this errno; docs/supervisor-contract.md). */
	fputs(",\n  \"supervisor\": {\"name\": \"egress-supervisor\", \"denial_errno\": ", f);
	json_str(f, sv_errno_name(pol && pol->deny_errno > 0 ? pol->deny_errno : EACCES));
	/* And that every send the kernel kept back (MSG_PROBE, MSG_MORE,
	 * UDP_CORK) is marked held: the oracle owes an arrival to every
	 * performed send we leave unmarked. */
	fputs(", \"marks_held\": true}", f);
	fputs(",\n  \"kernel\": {\"release\": ", f);
	json_str(f, u.release);
	fputs(", \"machine\": ", f);
	json_str(f, u.machine);
#ifdef SV_FAULTS
	fputs("},\n  \"build\": \"faults\",\n  \"interrupted\": ", f);
#else
	fputs("},\n  \"build\": \"release\",\n  \"interrupted\": ", f);
#endif
	json_str(f, R.interrupted ? sv_signal_name(R.interrupted) : NULL);
	fprintf(f, ",\n  \"policy\": {\"loopback\": %s, \"allow\": [",
		pol->loopback ? "true" : "false");
	for (size_t i = 0; i < pol->n; i++) {
		char spec[96];

		if (sv_policy_format_rule(&pol->rules[i], spec, sizeof(spec)) < 0)
			snprintf(spec, sizeof(spec), "?");
		fputs(i ? ", " : "", f);
		json_str(f, spec);
	}
	fputs("]},\n  \"probe\": ", f);
	write_probe(f);
	fputs(",\n  \"agent\": {\"argv\": [", f);
	for (size_t i = 0; R.info->agent_argv && R.info->agent_argv[i]; i++) {
		fputs(i ? ", " : "", f);
		json_str(f, R.info->agent_argv[i]);
	}
	fprintf(f, "], \"pid\": %d, \"exit_code\": ", (int)R.agent_pid);
	if (R.agent_status >= 0 && WIFEXITED(R.agent_status))
		fprintf(f, "%d, \"signal\": null}", WEXITSTATUS(R.agent_status));
	else if (R.agent_status >= 0 && WIFSIGNALED(R.agent_status)) {
		fputs("null, \"signal\": ", f);
		json_str(f, sv_signal_name(WTERMSIG(R.agent_status)));
		fputc('}', f);
	} else
		fputs("null, \"signal\": null}", f);
	fputs(",\n  \"containment\": ", f);
	json_str(f, R.containment);
	fputs(",\n  \"host_files\": ", f);
	json_str(f, R.host_files);
	fputs(", \"writable\": [", f);
	{
		const char *const *w;
		int nw = sv_rootfs_declared(&w);

		for (int i = 0; i < nw; i++) {
			fputs(i ? ", " : "", f);
			json_str(f, w[i]);
		}
	}
	fputs("], \"unix_peers\": [", f);
	{
		const char *const *peers;
		int np = sv_unixpeer_declared(&peers);

		for (int i = 0; i < np; i++) {
			fputs(i ? ", " : "", f);
			json_str(f, peers[i]);
		}
	}
	fputc(']', f);
	/* Why a supervisor without CAP_SYS_ADMIN is not in a user namespace of
	 * its own (the subreaper's weaker shape): the host said no. */
	fputs(",\n  \"userns_refused\": ", f);
	if (R.userns_err && !sv_errno_name(-R.userns_err))
		/* An errno without a name (a profile may answer any up to
		 * 4095) is said as its number, never as null (review h-attack8). */
		fprintf(f, "\"errno %d\"", -R.userns_err);
	else
		json_str(f, R.userns_err ? sv_errno_name(-R.userns_err) : NULL);
	/* The bound below which a failed read is the agent's own EFAULT
	 * (target.c): what made each invalid bad-address call invalid. */
	fputs(",\n  \"address_bounds\": {\"mmap_min_addr\": ", f);
	if (sv_target_min_mappable(&min_addr))
		fprintf(f, "%llu}", (unsigned long long)min_addr);
	else
		fputs("null}", f);
	fprintf(f,
		",\n  \"counts\": {\"trapped\": %llu, \"notifications\": %llu, \"allowed\": %llu, "
		"\"denied\": %llu, \"invalid\": %llu, \"mechanism_failures\": %llu, "
		"\"abandoned\": %llu, \"neutralized\": %llu, \"events_dropped\": %llu},\n",
		nots + R.counts[SV_NEUTRALIZED], nots, R.counts[SV_ALLOWED], R.counts[SV_DENIED],
		R.counts[SV_INVALID], R.counts[SV_MECH_FAILURE], R.counts[SV_ABANDONED],
		R.counts[SV_NEUTRALIZED], R.dropped);
	fprintf(f,
		"  \"receivers\": {\"limit\": %d, \"capped\": %llu, \"withdrawn_unseen\": %llu, "
		"\"id_range\": \"%s\", \"bracketing_calls\": %llu},\n",
		SV_REPORT_RECEIVERS, R.receivers_capped, withdrawn_unseen(),
		id_range_closed() ? "closed" : "open", R.sentinels);
	fprintf(f,
		"  \"channel\": {\"fd\": %s, \"fd_named\": %s, \"path\": %s, "
		"\"path_agent_writable\": %s},\n",
		R.info->report_fd >= 0 ? "true" : "false",
		R.info->report_fd >= 0 && R.info->report_fd_named ? "true" : "false",
		R.info->report_path ? "true" : "false",
		R.info->report_path && R.info->path_agent_writable ? "true" : "false");
	fputs("  \"internal_error\": ", f);
	json_str(f, R.internal[0] ? R.internal : NULL);
	fputs(",\n  \"events\": [\n", f);
	for (size_t i = 0; i < R.nevents; i++) {
		write_event(f, &R.events[i]);
		fputs(i + 1 < R.nevents ? ",\n" : "\n", f);
	}
	fputs("  ]\n}\n", f);
}

int sv_report_write(int complete)
{
	const char *path = R.info ? R.info->report_path : NULL;
	int rfd = R.info ? R.info->report_fd : -1, err = 0;
	struct sv_reportfile file = {.dirfd = R.dirfd, .path = path, .base = R.base};

	if (!path && rfd < 0)
		return 0;
	/* Held across every channel: each gets the same report. Only the
	 * provisional writes (before the agent runs) and the final one (after
	 * it has gone) take it, so no notification waits on the disk. */
	pthread_mutex_lock(&R.lock);
#ifdef SV_MUTANT_REPORT_FD_FIRST
	/* MUTANT report-fd-first: the descriptor's record is written before
	 * the file's fate is known, as before review h-attack34. */
	if (rfd >= 0)
		err = sv_reportfile_write_record(rfd, write_body, complete);
#endif
	/* The file first: the descriptor's record must say what the exit
	 * status will (review h-attack34: the agent made the file's write fail,
	 * exit 3, while the descriptor, which it cannot touch, already held a
	 * complete pass). A failed write is an internal error, so the record
	 * after it says capability-error. */
	if (path) {
		/* Seam: the final write of the file fails (the agent made its
		 * directory unwritable, or filled the disk). */
		err = complete ? sv_fault("report_path") : 0;
		if (!err)
			err = sv_reportfile_write_path(&file, write_body, complete);
		if (err && !R.internal[0]) {
			const char *en = sv_errno_name(-err);

			snprintf(R.internal, sizeof(R.internal), "report file: %s",
				 en ? en : "write failed");
		}
	}
#ifndef SV_MUTANT_REPORT_FD_FIRST
	if (rfd >= 0) {
		int ferr = sv_reportfile_write_record(rfd, write_body, complete);

		if (!err)
			err = ferr;
	}
#endif
	pthread_mutex_unlock(&R.lock);
	return err;
}
