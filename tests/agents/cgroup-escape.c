/*
 * cgroup-escape: the third hostile review's cgroup attack (issue 12: the
 * agent must not outlive the run), for a run whose cgroup is delegated to
 * the agent's uid (a systemd user session's user@UID.service). The file
 * modes then let the agent move itself to a sibling cgroup it creates
 * (out of reach of the supervisor's cgroup.kill and cgroup.freeze), freeze
 * the supervisor's cgroup (every trapped call then waits for ever) and
 * kill it. This agent tries each of those and logs the answer, but only
 * opens cgroup.kill for writing, never writes it; it also asks clone3 for
 * a child born in the sibling cgroup (CLONE_INTO_CGROUP, which no file is
 * opened for), and the child says where it landed. Then it connects to
 * DEST, which the scenario leaves undeclared. Exit status 0 when the
 * move, the freeze, the open and the clone into the sibling were all
 * refused, 1 when any was allowed, 2 on bad arguments or when its own
 * cgroup cannot be found.
 *
 *     cgroup-escape [--move-only] DEST
 *
 * --move-only: only the move to the sibling cgroup (a test that must not
 * freeze its supervisor where the move lands).
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

/* The cgroup2 mount point and this process's cgroup path below it. */
static int own_cgroup(char *out, size_t size)
{
	char line[4096], mnt[1024] = "", rel[2048] = "";
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return -1;
	while (!*mnt && fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - cgroup2 ");

		if (sep && sscanf(line, "%*s %*s %*s %*s %1023s", mnt) != 1)
			mnt[0] = '\0';
	}
	fclose(f);
	f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return -1;
	while (!*rel && fgets(line, sizeof(line), f))
		if (strncmp(line, "0::", 3) == 0 && sscanf(line + 3, "%2047s", rel) != 1)
			rel[0] = '\0';
	fclose(f);
	if (!*mnt || !*rel)
		return -1;
	return (size_t)snprintf(out, size, "%s%s", mnt, strcmp(rel, "/") ? rel : "") < size ? 0
											    : -1;
}

/* open(path, O_WRONLY) and, when text is not NULL, write(text): the
 * syscall result of the first that failed, or of the write. */
static long write_file(const char *call, const char *path, const char *text)
{
	char extra[600], esc[512];
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	long r = fd;
	int err = errno;

	if (fd >= 0 && text) {
		r = write(fd, text, strlen(text));
		err = errno;
	}
	if (fd >= 0)
		close(fd);
	snprintf(extra, sizeof(extra), ",\"path\":\"%s\"",
		 agent_json_escape(path, esc, sizeof(esc)));
	agent_log(call, NULL, r < 0 ? r : 0, err, extra);
	return r < 0 ? r : 0;
}

/* 1 when this process's cgroup2 path ends in "/escape". */
static int in_escape(void)
{
	char line[512];
	int yes = 0;
	FILE *f = fopen("/proc/self/cgroup", "re");

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			size_t n = strlen(line);

			yes = n >= 7 && strcmp(line + n - 7, "/escape") == 0;
		}
	if (f)
		fclose(f);
	return yes;
}

/* clone3 with CLONE_INTO_CGROUP into dir: 1 when the child was born there. */
static int clone_into(const char *dir)
{
	struct clone_args ca;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), status = 0;
	long pid;

	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_INTO_CGROUP;
	ca.exit_signal = SIGCHLD;
	ca.cgroup = (uint64_t)(fd < 0 ? 0 : fd);
	pid = fd < 0 ? -1 : syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid == 0)
		_exit(in_escape() ? 0 : 3);
	agent_log("clone-into", NULL, pid < 0 ? pid : 0, errno, NULL);
	if (fd >= 0)
		close(fd);
	if (pid < 0 || waitpid((pid_t)pid, &status, 0) < 0)
		return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
	char own[3072], parent[3072], esc[3200], path[3300], pid[32];
	struct agent_dest d;
	int allowed = 0, made, fd, move_only = argc == 3 && strcmp(argv[1], "--move-only") == 0;
	long r;

	agent_init("cgroup-escape");
	if (argc != 2 + move_only || agent_parse_dest(argv[1 + move_only], &d) < 0)
		return agent_usage("[--move-only] DEST");
	if (own_cgroup(own, sizeof(own)) < 0) {
		agent_log("own-cgroup", NULL, -1, ENOENT, NULL);
		return 2;
	}
	snprintf(parent, sizeof(parent), "%s", own);
	*strrchr(parent, '/') = '\0';
	snprintf(esc, sizeof(esc), "%s/escape", parent);
	made = mkdir(esc, 0755) == 0;
	agent_log("mkdir", NULL, made ? 0 : -1, errno, NULL);
	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	snprintf(path, sizeof(path), "%s/cgroup.procs", esc);
	allowed |= write_file("move", path, pid) == 0;
	if (move_only)
		return allowed ? 1 : 0;
	snprintf(path, sizeof(path), "%s/cgroup.freeze", own);
	allowed |= write_file("freeze", path, "1\n") == 0;
	snprintf(path, sizeof(path), "%s/cgroup.kill", own);
	allowed |= write_file("open-kill", path, NULL) == 0;
	allowed |= clone_into(esc);

	fd = socket(d.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	r = fd < 0 ? fd : connect(fd, (const struct sockaddr *)&d.ss, d.len);
	agent_log("connect", d.text, r, errno, NULL);
	if (fd >= 0)
		close(fd);
	if (made && !allowed)
		rmdir(esc);
	return allowed ? 1 : 0;
}
