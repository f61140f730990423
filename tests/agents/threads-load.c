/*
 * threads-load: T threads each make N blocking TCP connects (connect+close).
 * With UNDECLARED, every K-th connect (default 5) goes there instead of
 * DECLARED. Each thread logs one summary line (not one line per connect, so
 * the load measures the supervisor, not the log).
 *
 * Exit status: 1 when any declared connect failed, any undeclared one was
 * not refused (any errno: the summary names the first one, the host checks
 * it against the report's promise), or a thread or socket could not be
 * made; else 0.
 */
#include "agentlib.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#define MAX_THREADS 256

static struct agent_dest declared, undeclared;
static int have_undeclared;
static long per_thread, every = 5;
static atomic_int wrong;

static void *worker(void *arg)
{
	long j, dok = 0, dfail = 0, uok = 0, urefused = 0, first_errno = 0, uerrno = 0;
	double t0 = agent_now_ms();
	char extra[256];

	(void)arg;
	for (j = 0; j < per_thread; j++) {
		int to_undeclared = have_undeclared && j % every == every - 1;
		const struct agent_dest *d = to_undeclared ? &undeclared : &declared;
		int fd = socket(d->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int r, err;

		if (fd < 0) {
			agent_log("socket", d->text, fd, errno, NULL);
			atomic_store(&wrong, 1);
			continue;
		}
		r = connect(fd, (const struct sockaddr *)&d->ss, d->len);
		err = errno;
		close(fd);
		if (to_undeclared)
			r == 0 ? uok++ : urefused++;
		else if (r == 0)
			dok++;
		else
			dfail++;
		if (r < 0 && to_undeclared && !uerrno)
			uerrno = err;
		if (r < 0 && !first_errno && !to_undeclared)
			first_errno = err;
	}
	snprintf(extra, sizeof(extra),
		 ",\"attempts\":%ld,\"declared_ok\":%ld,\"declared_fail\":%ld,"
		 "\"undeclared_ok\":%ld,\"undeclared_refused\":%ld,\"undeclared_errno\":\"%s\","
		 "\"unexpected_errno\":\"%s\",\"ms\":%.3f",
		 per_thread, dok, dfail, uok, urefused, uerrno ? agent_errno_name((int)uerrno) : "",
		 first_errno ? agent_errno_name((int)first_errno) : "", agent_now_ms() - t0);
	agent_log("connect_summary", declared.text, dok + uok, 0, extra);
	if (dfail || uok)
		atomic_store(&wrong, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS];
	static const char usage[] = "THREADS CONNECTS DECLARED [UNDECLARED [EVERY]]";
	long nthreads, i;

	agent_init("threads-load");
	if (argc < 4 || argc > 6)
		return agent_usage(usage);
	nthreads = agent_parse_count(argv[1]);
	per_thread = agent_parse_count(argv[2]);
	if (nthreads < 1 || nthreads > MAX_THREADS || per_thread < 0 ||
	    agent_parse_dest(argv[3], &declared) < 0)
		return agent_usage(usage);
	if (argc >= 5) {
		if (agent_parse_dest(argv[4], &undeclared) < 0)
			return agent_usage(usage);
		have_undeclared = 1;
	}
	if (argc == 6 && (every = agent_parse_count(argv[5])) < 1)
		return agent_usage(usage);
	for (i = 0; i < nthreads; i++) {
		int err = pthread_create(&th[i], NULL, worker, NULL);

		if (err) {
			agent_log("pthread_create", NULL, -1, err, NULL);
			atomic_store(&wrong, 1);
			nthreads = i;
			break;
		}
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	return atomic_load(&wrong) ? 1 : 0;
}
