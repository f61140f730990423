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

/* Beyond this many stored events the rest are only counted: a runaway agent
 * must not take the supervisor's memory with it. */
#define MAX_EVENTS 200000

static const char *const bucket_names[SV_NBUCKETS] = {
    "allowed", "denied", "invalid", "mechanism_failure", "abandoned", "neutralized"};
static const char *const action_names[] = {"none", "performed", "continue", "errno"};

static struct {
	pthread_mutex_t lock;
	struct timespec start;
	const struct sv_run_info *info;
	struct sv_event *events;
	size_t nevents, cap;
	unsigned long long counts[SV_NBUCKETS];
	unsigned long long dropped;
	struct sv_probe_result probe;
	int have_probe;
	pid_t agent_pid;
	const char *containment;
	int agent_status; /* -1 until it exited */
	int interrupted;
	char internal[256];
	char first_denial[320];
	char first_failure[320];
} R = {.lock = PTHREAD_MUTEX_INITIALIZER, .agent_status = -1};

int sv_report_init(const struct sv_run_info *info)
{
	clock_gettime(CLOCK_MONOTONIC, &R.start);
	R.info = info;
	R.cap = 1024;
	R.events = calloc(R.cap, sizeof(*R.events));
	return R.events ? 0 : -ENOMEM;
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

void sv_report_record(const struct sv_event *ev)
{
	pthread_mutex_lock(&R.lock);
	R.counts[ev->bucket]++;
	if (ev->bucket == SV_DENIED && !R.first_denial[0])
		describe(R.first_denial, sizeof(R.first_denial), ev);
	if (ev->bucket == SV_MECH_FAILURE && !R.first_failure[0])
		describe(R.first_failure, sizeof(R.first_failure), ev);
	if (R.nevents == R.cap && R.cap < MAX_EVENTS) {
		size_t ncap = R.cap * 2 > MAX_EVENTS ? MAX_EVENTS : R.cap * 2;
		struct sv_event *n = realloc(R.events, ncap * sizeof(*n));

		if (n) {
			R.events = n;
			R.cap = ncap;
		}
	}
	if (R.nevents < R.cap) {
		R.events[R.nevents++] = *ev;
	} else {
		R.dropped++;
		free(ev->msgs);
	}
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

void sv_report_set_agent_exit(int status)
{
	R.agent_status = status;
}

void sv_report_set_interrupted(int sig)
{
	pthread_mutex_lock(&R.lock);
	if (!R.interrupted)
		R.interrupted = sig;
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
		snprintf(buf, len, "the supervisor was interrupted by %s and killed the agent",
			 sv_signal_name(R.interrupted) ? sv_signal_name(R.interrupted)
						       : "a signal");
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
	} caps[] = {{"listener", p->listener},      {"process_vm_readv", p->process_vm_readv},
		    {"proc_mem", p->proc_mem},      {"read", p->read},
		    {"pidfd_open", p->pidfd_open},  {"pidfd_getfd", p->pidfd_getfd},
		    {"id_valid", p->id_valid},      {"send", p->send},
		    {"containment", p->containment}};

	if (!R.have_probe) {
		fputs("null", f);
		return;
	}
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		fprintf(f, "%s\"%s\": ", i ? ", " : "{", caps[i].name);
		json_errno(f, caps[i].err);
	}
	fprintf(f, ", \"result\": \"%s\"}", p->ok ? "ok" : "failed");
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
	int v = verdict_locked(complete, reason, sizeof(reason));
	const struct sv_policy *pol = R.info->policy;

	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	nots = R.counts[SV_ALLOWED] + R.counts[SV_DENIED] + R.counts[SV_INVALID] +
	       R.counts[SV_MECH_FAILURE] + R.counts[SV_ABANDONED];
	fputs("{\n  \"format\": \"egress-supervisor-report/1\",\n", f);
	fprintf(f, "  \"complete\": %s,\n  \"verdict\": \"%s\",\n  \"reason\": ",
		complete ? "true" : "false", verdicts[v]);
	json_str(f, reason);
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
	fprintf(f,
		",\n  \"counts\": {\"trapped\": %llu, \"notifications\": %llu, \"allowed\": %llu, "
		"\"denied\": %llu, \"invalid\": %llu, \"mechanism_failures\": %llu, "
		"\"abandoned\": %llu, \"neutralized\": %llu, \"events_dropped\": %llu},\n",
		nots + R.counts[SV_NEUTRALIZED], nots, R.counts[SV_ALLOWED], R.counts[SV_DENIED],
		R.counts[SV_INVALID], R.counts[SV_MECH_FAILURE], R.counts[SV_ABANDONED],
		R.counts[SV_NEUTRALIZED], R.dropped);
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
	char tmp[PATH_MAX], dir[PATH_MAX];
	FILE *f;
	int fd, err = 0;

	if (!path)
		return 0;
	/* mkstemp: O_EXCL with a random name, so a link or FIFO planted by the
	 * agent in the report's directory is never followed or opened. */
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0644) != 0) {
		err = -errno;
		close(fd);
		unlink(tmp);
		return err;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		unlink(tmp);
		return err;
	}
	pthread_mutex_lock(&R.lock);
	write_body(f, complete);
	pthread_mutex_unlock(&R.lock);
	if (fflush(f) != 0 || fsync(fd) != 0)
		err = -errno;
	if (fclose(f) != 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) != 0)
		err = -errno;
	if (err) {
		unlink(tmp);
		return err;
	}
	/* The rename is only durable once the directory is synced. */
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		if (fsync(fd) != 0)
			err = -errno;
		close(fd);
	}
	return err;
}
