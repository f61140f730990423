/*
 * ha67-common.h: what hostile review h-attack67's window programs share
 * (ha67-mapwin.c, ha67-memwin.c, ha67-fdwin.c): the newest pid the kernel
 * handed out, and a monotonic clock in seconds.
 */
#ifndef HA67_COMMON_H
#define HA67_COMMON_H

#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* /proc/sys/kernel/ns_last_pid: the pid given to the newest process. */
static inline int last_pid(void)
{
	char b[32] = {0};
	int fd = open("/proc/sys/kernel/ns_last_pid", O_RDONLY);

	if (fd < 0)
		return -1;
	if (read(fd, b, sizeof(b) - 1) < 0)
		b[0] = 0;
	close(fd);
	return atoi(b);
}

static inline double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

#endif
