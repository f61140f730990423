/*
 * tty-inject: tries to type TEXT into the terminal on descriptor 0 with
 * TIOCSTI (input the caller's shell would run after the run, outside every
 * filter), logging call "tiocsti" with its errno, and "session" with result
 * 1 when the agent leads its own session (getsid(0) == getpid()). --enter
 * types a newline after TEXT (the Enter key: a scenario's command line
 * cannot hold one). --ctty first asks for descriptor 0 as its controlling
 * terminal (TIOCSCTTY 0: granted without a capability to a session leader
 * without one when the terminal is no session's; hostile review
 * h-attack40), logging call "tiocsctty".
 *
 *     tty-inject [--ctty] [--enter] TEXT
 */
#include "agentlib.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int ctty = argc >= 3 && strcmp(argv[1], "--ctty") == 0;
	int enter = argc == 3 + ctty && strcmp(argv[1 + ctty], "--enter") == 0;
	long r = 0;
	int err = 0;

	agent_init("tty-inject");
	if (argc != 2 + ctty + enter)
		return agent_usage("[--ctty] [--enter] TEXT");
	agent_log("session", NULL, getsid(0) == getpid(), 0, NULL);
	if (ctty) {
		r = ioctl(0, TIOCSCTTY, 0);
		agent_log("tiocsctty", NULL, r, r < 0 ? errno : 0, NULL);
		r = 0;
	}
	for (const char *p = argv[argc - 1]; *p && r == 0; p++) {
		r = ioctl(0, TIOCSTI, p);
		err = r < 0 ? errno : 0;
	}
	if (enter && r == 0) {
		r = ioctl(0, TIOCSTI, "\n");
		err = r < 0 ? errno : 0;
	}
	agent_log("tiocsti", NULL, r, err, NULL);
	return 0;
}
