/*
 * profile-launcher: the supervisor's caller in a host replay (make repro,
 * docs/hostprofile.md). Before the supervisor exists, with its credentials,
 * capabilities and syscall mask, it runs /sbin/egress-hostprofile and writes
 * the profile to the guest's profile channel (the descriptor named by
 * EGRESS_PROFILE_FD, opened by the guest init and unlinked), closes that
 * descriptor so nothing it starts holds it, then execs the rest of its
 * argument list: the next launcher or the supervisor.
 *
 *     profile-launcher [NEXT-LAUNCHER ARG...] -- SUPERVISOR [ARG]...
 *
 * The host compares the guest's profile with the host's, answer by answer
 * (scenarios/tools/hostprofile.py). Without a channel it logs why and goes
 * on: the host then has nothing to compare and refuses to believe the cell.
 */
#include "agentlib.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define HOSTPROFILE "/sbin/egress-hostprofile"

/* Runs the profile writer with stdout on FD; its wait status, or -errno. */
static int write_profile(int fd)
{
	int status, err;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		char *argv[] = {(char *)HOSTPROFILE, NULL};

		if (dup2(fd, 1) < 0)
			_exit(126);
		execv(HOSTPROFILE, argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			err = errno;
			return -err;
		}
	}
	return status;
}

int main(int argc, char **argv)
{
	const char *env = getenv("EGRESS_PROFILE_FD");
	long fd = env ? agent_parse_count(env) : -1;
	int first = 1, r;

	agent_init("profile-launcher");
	if (argc < 3)
		return agent_usage("[NEXT-LAUNCHER ARG...] -- SUPERVISOR [ARG]...");
	/* Our own "--" only when no next launcher comes first. */
	if (strcmp(argv[1], "--") == 0)
		first = 2;
	if (fd < 3) {
		agent_log("hostprofile", HOSTPROFILE, -1, EBADF,
			  ",\"why\":\"no EGRESS_PROFILE_FD\"");
	} else {
		r = write_profile((int)fd);
		agent_log("hostprofile", HOSTPROFILE,
			  r < 0          ? r
			  : WIFEXITED(r) ? WEXITSTATUS(r)
					 : -1,
			  r < 0 ? -r : 0, NULL);
		close((int)fd);
	}
	return agent_exec_caller(argv + first);
}
