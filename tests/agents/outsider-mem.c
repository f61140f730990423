/*
 * outsider-mem: opens /proc/PID/mem for writing of a process outside its
 * own tree (the first `idle-as UID --idle` it finds): with it, an agent could
 * rewrite what another process of its uid sends, past every filter. Exits 0
 * when the open is refused (EACCES or EPERM), or when no such process is
 * visible because the agent is in a pid namespace of its own (its /proc
 * shows only that namespace: outsiders cannot be named); 1 when it
 * succeeded; 2 when no such process was found from the initial pid
 * namespace (the service did not start) or on any other answer.
 */
#include "agentlib.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The initial pid namespace's inode number is a kernel constant
 * (PROC_PID_INIT_INO, include/linux/proc_ns.h). */
static int in_initial_pidns(void)
{
	char link[64];
	ssize_t n = readlink("/proc/self/ns/pid", link, sizeof(link) - 1);

	if (n < 0)
		return 1;
	link[n] = '\0';
	return strcmp(link, "pid:[4026531836]") == 0;
}

static int is_victim(const char *pid)
{
	char path[300], buf[256];
	int fd;
	ssize_t n;
	const char *arg2;

	snprintf(path, sizeof(path), "/proc/%s/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* argv: .../idle-as UID --idle */
	if (!strstr(buf, "idle-as"))
		return 0;
	arg2 = buf + strlen(buf) + 1;
	if (arg2 >= buf + n)
		return 0;
	arg2 += strlen(arg2) + 1;
	return arg2 < buf + n && strcmp(arg2, "--idle") == 0;
}

int main(int argc, char **argv)
{
	DIR *d;
	struct dirent *e;
	char path[300];
	int fd;

	(void)argv;
	agent_init("outsider-mem");
	if (argc != 1)
		return agent_usage("(no arguments)");
	d = opendir("/proc");
	while (d && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9' || !is_victim(e->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/mem", e->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		agent_log("open_outsider_mem", path, fd, errno, NULL);
		if (fd >= 0)
			return 1;
		return errno == EACCES || errno == EPERM ? 0 : 2;
	}
	agent_log("open_outsider_mem", NULL, -1, ESRCH, NULL);
	return in_initial_pidns() ? 2 : 0;
}
