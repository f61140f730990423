/*
 * userns-launcher: a caller that runs the supervisor as a rootless
 * container's job would (review h-attack68, finding 2): in a user namespace
 * its own uid owns, whose user.max_user_namespaces the caller has set to 0
 * (the namespace's owner holds CAP_SYS_RESOURCE in it until its exec, and
 * the user.* limits are the namespace's own). The supervisor's
 * unshare(CLONE_NEWUSER) then answers ENOSPC, which outside such a
 * namespace is a host refusing user namespaces; here it is a choice any
 * process of the uid can make, so it must not pick the weaker shape.
 * Proves its set-up by doing it: the limit read back as 0, and a trial
 * unshare(CLONE_NEWUSER) in a child answering ENOSPC; exits 1 without
 * exec when either is not so.
 *
 *     userns-launcher -- PROGRAM [ARG]...
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Writes TEXT to PATH: 0 or -errno. */
static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	if (n < 0)
		rc = -errno;
	else if ((size_t)n != strlen(text))
		rc = -EIO;
	close(fd);
	return rc;
}

/* Reads PATH's first line into BUF (newline dropped): 0 or -errno. */
static int read_line(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* A child's unshare(CLONE_NEWUSER): its errno, 0 when it worked. */
static int trial_unshare(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 ? 0 : (errno & 0xff));
	if (waitpid(pid, &status, 0) < 0)
		return errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : EIO;
}

int main(int argc, char **argv)
{
	char map[64], got[32], extra[96];
	unsigned uid = (unsigned)getuid(), gid = (unsigned)getgid();
	int rc, trial;

	agent_init("userns-launcher");
	if (argc < 3 || strcmp(argv[1], "--") != 0)
		return agent_usage("-- PROGRAM [ARG]...");
	if (unshare(CLONE_NEWUSER) != 0) {
		agent_log("unshare", "CLONE_NEWUSER", -1, errno, NULL);
		return 1;
	}
	/* Our own ids, once each: all an unprivileged map may hold; gid_map
	 * only once setgroups is denied. */
	snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
	if ((rc = write_file("/proc/self/uid_map", map)) == 0 &&
	    (rc = write_file("/proc/self/setgroups", "deny")) == 0) {
		snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
		rc = write_file("/proc/self/gid_map", map);
	}
	if (rc == 0)
		rc = write_file("/proc/sys/user/max_user_namespaces", "0\n");
	if (rc == 0)
		rc = read_line("/proc/sys/user/max_user_namespaces", got, sizeof(got));
	if (rc < 0) {
		agent_log("own_userns_setup", NULL, -1, -rc, NULL);
		return 1;
	}
	trial = trial_unshare();
	snprintf(extra, sizeof(extra), ",\"limit\":\"%s\",\"trial\":\"%s\"", got,
		 trial ? agent_errno_name(trial) : "ok");
	agent_log("own_userns_setup", NULL, 0, 0, extra);
	if (strcmp(got, "0") != 0 || trial != ENOSPC)
		return 1;
	return agent_exec_caller(argv + 2);
}
