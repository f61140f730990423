/*
 * withdrawn-connect: N connects (default 200) to DEST under an interval
 * timer (default every 50 us) whose SIGALRM handler has no SA_RESTART, so
 * many calls are interrupted, some before the supervisor has even received
 * their notification (withdrawn: the supervisor never sees them, and the
 * connect never happens). Then the timer stops and one last connect goes to
 * LAST, uninterrupted.
 *
 * Logs every connect ("connect", its result and errno); a summary
 * "connect_summary" with ok/eintr/refused counts (refused: any other errno,
 * each logged; the host checks it against the report's promise). Exit 0
 * when no connect to DEST succeeded and the one to LAST was refused, else 1.
 */
#include "agentlib.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static void on_alarm(int sig)
{
	(void)sig;
}

static long one_connect(const struct agent_dest *d, int *err)
{
	int fd = socket(d->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	long r = connect(fd, (const struct sockaddr *)&d->ss, d->len);

	*err = r < 0 ? errno : 0;
	agent_log("connect", d->text, r, *err, NULL);
	close(fd);
	return r;
}

int main(int argc, char **argv)
{
	static const char usage[] = "[-n N] [--interval-us U] DEST LAST";
	struct sigaction sa = {.sa_handler = on_alarm}; /* no SA_RESTART */
	struct itimerval it;
	long n = 200, us = 50, ok = 0, eintr = 0, refused = 0, r;
	struct agent_dest d, last;
	char extra[160];
	int a = 1, err;

	agent_init("withdrawn-connect");
	while (a + 1 < argc && argv[a][0] == '-') {
		if (strcmp(argv[a], "-n") == 0)
			n = agent_parse_count(argv[a + 1]);
		else if (strcmp(argv[a], "--interval-us") == 0)
			us = agent_parse_count(argv[a + 1]);
		else
			return agent_usage(usage);
		a += 2;
	}
	if (argc - a != 2 || n < 0 || us < 1 || agent_parse_dest(argv[a], &d) < 0 ||
	    agent_parse_dest(argv[a + 1], &last) < 0)
		return agent_usage(usage);
	sigaction(SIGALRM, &sa, NULL);
	memset(&it, 0, sizeof(it));
	it.it_interval.tv_sec = us / 1000000;
	it.it_interval.tv_usec = us % 1000000;
	it.it_value = it.it_interval;
	setitimer(ITIMER_REAL, &it, NULL);
	for (long i = 0; i < n; i++) {
		r = one_connect(&d, &err);
		r == 0 ? ok++ : err == EINTR ? eintr++ : refused++;
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	snprintf(extra, sizeof(extra), ",\"ok\":%ld,\"eintr\":%ld,\"refused\":%ld", ok, eintr,
		 refused);
	agent_log("connect_summary", d.text, ok, 0, extra);
	r = one_connect(&last, &err);
	return ok == 0 && r < 0 && err != EINTR ? 0 : 1;
}
