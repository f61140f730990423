/*
 * signal-interrupt: N (default 20) connects to DEST while an interval timer
 * (default every 1000 us) delivers SIGALRM to a handler installed WITHOUT
 * SA_RESTART, so a trapped connect can be interrupted (EINTR) mid-notification.
 */
#include "agentlib.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

int main(int argc, char **argv)
{
	static const char usage[] = "[-n N] [--interval-us U] DEST";
	struct sigaction sa = {.sa_handler = on_alarm}; /* no SA_RESTART */
	struct itimerval it;
	long n = 20, us = 1000, i, ok = 0, eintr = 0, other = 0;
	struct agent_dest d;
	char extra[160];
	int a = 1;

	agent_init("signal-interrupt");
	while (a + 1 < argc && argv[a][0] == '-') {
		if (strcmp(argv[a], "-n") == 0)
			n = agent_parse_count(argv[a + 1]);
		else if (strcmp(argv[a], "--interval-us") == 0)
			us = agent_parse_count(argv[a + 1]);
		else
			return agent_usage(usage);
		a += 2;
	}
	if (argc - a != 1 || n < 0 || us < 1 || agent_parse_dest(argv[a], &d) < 0)
		return agent_usage(usage);
	memset(&it, 0, sizeof(it));
	sigaction(SIGALRM, &sa, NULL);
	it.it_interval.tv_sec = us / 1000000;
	it.it_interval.tv_usec = us % 1000000;
	it.it_value = it.it_interval;
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; i < n; i++) {
		int fd = socket(d.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		long r = connect(fd, (const struct sockaddr *)&d.ss, d.len);
		int err = errno;

		agent_log("connect", d.text, r, err, NULL);
		r == 0 ? ok++ : err == EINTR ? eintr++ : other++;
		close(fd);
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	snprintf(extra, sizeof(extra),
		 ",\"attempts\":%ld,\"ok\":%ld,\"eintr\":%ld,\"other\":%ld,\"alarms\":%ld", n, ok,
		 eintr, other, (long)alarms);
	agent_log("connect_summary", d.text, ok, 0, extra);
	return 0;
}
