/*
 * ns-join: enters namespaces that exist already (setns), the run's own or
 * another's. Every setns is the raw call, logged.
 *   ns-join own
 *       a child makes a user and a network namespace; one process enters
 *       them by their /proc files, another by the child's pidfd. Exits 0
 *       when every join worked (the run's own namespaces: no false red).
 *   ns-join foreign USERNS NETNS DEST LINE
 *       enters the user namespace, then the network namespace, that the
 *       nsfs files USERNS and NETNS name (a container's, bind-mounted as
 *       `ip netns attach` leaves them), then connects to DEST (a loopback
 *       address: the container's, if the joins worked) and sends LINE.
 *       Exits 0 when a join was refused, 1 when both worked.
 *   ns-join race USERNS N
 *       a process sharing the descriptor table (clone with CLONE_FILES)
 *       swaps descriptor 10 between the user namespace of a child of the
 *       run and the one USERNS names; N workers, each sharing the table
 *       too, enter whatever 10 is. Exits 1 when a worker ended up in
 *       USERNS's namespace, 0 otherwise.
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static long join(int fd, int type, const char *what)
{
	long r = syscall(SYS_setns, fd, type);

	agent_log("setns", what, r, errno, NULL);
	return r;
}

/* A child in a new user and network namespace until the pipe's write end
 * closes (this process exits); returns its pid, or -1. */
static pid_t holder(void)
{
	int up[2], down[2];
	char c;
	pid_t pid;

	if (pipe(up) || pipe(down))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0)
			_exit(3);
		if (write(up[1], "1", 1) != 1)
			_exit(3);
		(void)read(down[0], &c, 1);
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	if (pid < 0 || read(up[0], &c, 1) != 1)
		return -1;
	return pid;
}

static int ns_file(pid_t pid, const char *type)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, type);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* Runs fn in a child process (a join changes the process for good) and
 * returns its exit status, or -1. */
static int in_child(int (*fn)(pid_t), pid_t arg)
{
	int st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn(arg));
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static int by_files(pid_t h)
{
	int user = ns_file(h, "user"), net = ns_file(h, "net");

	return join(user, CLONE_NEWUSER, "own-user") == 0 && join(net, CLONE_NEWNET, "own-net") == 0
		   ? 0
		   : 1;
}

static int by_pidfd(pid_t h)
{
	int pidfd = (int)syscall(SYS_pidfd_open, h, 0);

	return join(pidfd, CLONE_NEWUSER | CLONE_NEWNET, "own-pidfd") == 0 ? 0 : 1;
}

static int own(void)
{
	pid_t h = holder();

	if (h < 0) {
		agent_log("unshare", "holder", -1, errno, NULL);
		return 2;
	}
	return in_child(by_files, h) == 0 && in_child(by_pidfd, h) == 0 ? 0 : 1;
}

static int foreign(char **argv)
{
	struct agent_dest d;
	int user = open(argv[0], O_RDONLY | O_CLOEXEC), net = open(argv[1], O_RDONLY | O_CLOEXEC);
	long ju, jn, r;
	int s;

	if (agent_parse_dest(argv[2], &d))
		return agent_usage("foreign USERNS NETNS DEST LINE");
	ju = join(user, CLONE_NEWUSER, "foreign-user");
	jn = join(net, CLONE_NEWNET, "foreign-net");
	s = socket(d.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	r = connect(s, (struct sockaddr *)&d.ss, d.len);
	agent_log("connect", d.text, r, errno, NULL);
	if (r == 0) {
		r = send(s, argv[3], strlen(argv[3]), 0);
		agent_log("send", d.text, r, errno, NULL);
	}
	return ju == 0 && jn == 0 ? 1 : 0;
}

static ino_t ino_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? st.st_ino : 0;
}

/* A fork that shares the caller's descriptor table. */
static pid_t clone_files(void)
{
	return (pid_t)syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);
}

static int race(char **argv)
{
	int foreign_fd = open(argv[0], O_RDONLY), own_fd, st, joined = 0, tries = 0;
	long n = agent_parse_count(argv[1]);
	ino_t foreign_ino = ino_of(foreign_fd);
	pid_t h = holder(), flipper;
	char extra[96];

	own_fd = h > 0 ? ns_file(h, "user") : -1;
	if (foreign_fd < 0 || own_fd < 0 || n <= 0)
		return agent_usage("race USERNS N");
	flipper = clone_files();
	if (flipper == 0)
		for (;;) {
			dup2(own_fd, 10);
			dup2(foreign_fd, 10);
		}
	for (long i = 0; i < n && flipper > 0; i++) {
		pid_t w = clone_files();

		if (w == 0) {
			int self;

			if (syscall(SYS_setns, 10, CLONE_NEWUSER) != 0)
				_exit(2);
			self = open("/proc/self/ns/user", O_RDONLY);
			_exit(ino_of(self) == foreign_ino ? 0 : 1);
		}
		if (w < 0 || waitpid(w, &st, 0) != w)
			break;
		tries++;
		joined += WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	if (flipper > 0) {
		kill(flipper, SIGKILL);
		waitpid(flipper, &st, 0);
	}
	snprintf(extra, sizeof(extra), ",\"tries\":%d,\"foreign_joins\":%d", tries, joined);
	agent_log("race", argv[0], joined ? 0 : -1, EPERM, extra);
	return joined ? 1 : 0;
}

int main(int argc, char **argv)
{
	agent_init("ns-join");
	if (argc == 2 && strcmp(argv[1], "own") == 0)
		return own();
	if (argc == 6 && strcmp(argv[1], "foreign") == 0)
		return foreign(argv + 2);
	if (argc == 4 && strcmp(argv[1], "race") == 0)
		return race(argv + 2);
	return agent_usage("own | foreign USERNS NETNS DEST LINE | race USERNS N");
}
