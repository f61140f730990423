/*
 * shut-cwd-launcher: a caller whose working directory cannot be walked to
 * by its path (review h-attack68, finding 1, without its race): makes
 * DIR/run (mode 0755, owned by the caller's uid, as a CI job's directory
 * is), changes into it and takes every permission off DIR, then runs
 * PROGRAM there. A process of the uid can do the same to a running
 * supervisor's directory at any moment; the supervisor's child, which
 * changes into the directory again by its path once its mounts are made,
 * then meets EACCES: its own working directory, never a host refusing
 * namespaces. Proves the set-up by doing it: a chdir by the path must
 * answer EACCES (root's CAP_DAC_READ_SEARCH would pass it: uid 1000 only);
 * exits 1 without exec otherwise.
 *
 *     shut-cwd-launcher DIR -- PROGRAM [ARG]...
 */
#include "agentlib.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char run[PATH_MAX], extra[64];
	int r, err;

	agent_init("shut-cwd-launcher");
	if (argc < 4 || strcmp(argv[2], "--") != 0 || argv[1][0] != '/')
		return agent_usage("/DIR -- PROGRAM [ARG]...");
	if ((size_t)snprintf(run, sizeof(run), "%s/run", argv[1]) >= sizeof(run))
		return agent_usage("/DIR -- PROGRAM [ARG]... (DIR too long)");
	if ((mkdir(argv[1], 0755) != 0 && errno != EEXIST) ||
	    (mkdir(run, 0755) != 0 && errno != EEXIST) || chdir(run) != 0 ||
	    chmod(argv[1], 0) != 0) {
		agent_log("shut_cwd_setup", run, -1, errno, NULL);
		return 1;
	}
	/* The proof: our own walk to the directory by its path is refused. */
	r = chdir(run);
	err = r == 0 ? 0 : errno;
	snprintf(extra, sizeof(extra), ",\"walk\":\"%s\"", err ? agent_errno_name(err) : "ok");
	agent_log("shut_cwd_setup", run, 0, 0, extra);
	if (err != EACCES)
		return 1;
	return agent_exec_caller(argv + 3);
}
