/*
 * cgroup-leave: a root agent's child leaves the run's cgroup (review
 * h-attack71, finding 2). The child writes "0" (itself) to CGROUP's
 * cgroup.procs, logs the answer and lives SECS seconds; the agent exits 0
 * as soon as the child has tried. A root process owns the root cgroup's
 * cgroup.procs, so only what the supervisor does to the cgroup file system
 * (read-only in its run) keeps the child where the guest's survivors check
 * looks; a supervisor that contains nothing leaves a survivor the check
 * must still find (tests/bundles/passthrough in make bundle-smoke).
 *
 *     cgroup-leave CGROUP SECS
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[512], c = 0;
	long secs;
	int p[2];
	pid_t pid;

	agent_init("cgroup-leave");
	if (argc != 3 || (secs = agent_parse_count(argv[2])) < 0 ||
	    (size_t)snprintf(path, sizeof(path), "%s/cgroup.procs", argv[1]) >= sizeof(path))
		return agent_usage("CGROUP SECS");
	if (pipe(p) != 0 || (pid = fork()) < 0) {
		agent_log("fork", NULL, -1, errno, NULL);
		return 1;
	}
	if (pid == 0) {
		int fd = open(path, O_WRONLY | O_CLOEXEC), err = fd < 0 ? errno : 0;
		long r = -1;

		close(p[0]);
		if (fd >= 0) {
			r = write(fd, "0", 1);
			err = r < 0 ? errno : 0;
			close(fd);
		}
		agent_log("cgroup_move", path, r, err, NULL);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		close(p[1]);
		sleep((unsigned)secs);
		_exit(0);
	}
	close(p[1]);
	/* The child has tried before we go: the check that follows our exit
	 * must find it wherever it went. */
	if (read(p[0], &c, 1) != 1)
		return 1;
	return 0;
}
