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
 *   ns-join container USERFILE NETFILE PORT SINK
 *       the service: a container outside the run, as root in the initial
 *       namespaces (LXC's unprivileged containers, systemd's
 *       PrivateUsers=: a user namespace uid 0 owns). It makes a TCP socket
 *       in its own network namespace, then a child that unshares a user
 *       and a network namespace (uid and gid 0 mapped to 0), brings its lo
 *       up and listens on 127.0.0.1:PORT there; the parent bind-mounts the
 *       child's /proc/PID/ns/user and /proc/PID/ns/net on USERFILE and
 *       NETFILE (made first), as `ip netns attach` does, and binds a UDP
 *       socket on 127.0.0.1:0 (the guest's readiness signal for a
 *       service). For each client the child connects the first socket to
 *       SINK (once; the socket stays in the namespace it was made in) and
 *       copies bytes both ways until either side closes or 2 s pass
 *       without any: the container's loopback relays to the outside.
 *       Serves until killed (the child dies with the parent).
 *   ns-join exiting SPIN [NSFILE]
 *       a thread enters the process's own network namespace by its /proc
 *       file (or the one of NSFILE) while the main thread, SPIN loop turns
 *       after the thread started, ends the process (exit_group): the join
 *       races the run's end. Exits 0 (the kernel's join either happened or
 *       was cut short; only the supervisor's record can be wrong: an audit
 *       found its own join a foreign-namespace denial or a mechanism
 *       failure, and a foreign one was filed no-process where its caller
 *       died before the scan).
 *   ns-join cgroup-shared
 *       clone(CLONE_FILES | CLONE_NEWUSER | CLONE_NEWCGROUP), the raw call:
 *       a child sharing the table in a user and a cgroup namespace of its
 *       own, which exits at once. Logged as "clone"; exits 0 when the clone
 *       worked (an agent that is not root: the supervisor traps the call
 *       for CLONE_FILES only, and must not refuse it for the cgroup
 *       namespace, which only a root agent's is refused).
 */
#include "agentlib.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
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

#define RELAY_WAIT_MS 2000

/* Writes s whole to the file path: 0, or -1 with errno. */
static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err;
	ssize_t n = fd < 0 ? -1 : write(fd, s, strlen(s));

	err = errno;
	if (fd >= 0)
		close(fd);
	errno = err;
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* Brings lo up in the caller's network namespace: 0, or -1 with errno. */
static int lo_up(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r, err;

	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", 3);
	r = s < 0 ? -1 : ioctl(s, SIOCGIFFLAGS, &ifr);
	if (r == 0) {
		ifr.ifr_flags |= IFF_UP;
		r = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	err = errno;
	if (s >= 0)
		close(s);
	errno = err;
	return r;
}

/* The container's namespaces for the calling process: a user namespace
 * with uid and gid 0 mapped to root's (which only a process with
 * CAP_SETUID above it, or root itself, may map), a network namespace it
 * owns, lo up. Returns 0, or -1 (logged). */
static int make_container(void)
{
	static const char *const steps[][2] = {
	    {"/proc/self/setgroups", "deny"},
	    {"/proc/self/uid_map", "0 0 1"},
	    {"/proc/self/gid_map", "0 0 1"},
	};

	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) {
		agent_log("unshare", "user+net", -1, errno, NULL);
		return -1;
	}
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (write_file(steps[i][0], steps[i][1]) != 0) {
			agent_log("write", steps[i][0], -1, errno, NULL);
			return -1;
		}
	if (lo_up() != 0) {
		agent_log("SIOCSIFFLAGS", "lo", -1, errno, NULL);
		return -1;
	}
	return 0;
}

/* One client of the container's loopback: out (made outside, in the
 * namespace that reaches SINK) is connected on the first client, then
 * bytes go both ways until either side closes or RELAY_WAIT_MS pass
 * quietly. Returns 0 while out is still usable, -1 once it is not. */
static int relay_client(int c, int out, const struct agent_dest *sink, int *connected)
{
	if (!*connected) {
		long r = connect(out, (const struct sockaddr *)&sink->ss, sink->len);

		agent_log("connect", sink->text, r, errno, NULL);
		if (r != 0)
			return -1;
		*connected = 1;
	}
	return agent_pump(c, out, sink->text, RELAY_WAIT_MS);
}

/* The container's process: never returns. */
static void container_child(int up, int out, const struct agent_dest *sink, int port, pid_t parent)
{
	struct sockaddr_in lo = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	int l, connected = 0, usable = 1;

	if (make_container() != 0)
		_exit(3);
	/* After the credentials changed, which may clear it; the parent may
	 * have gone before it was set. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		_exit(3);
	lo.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&lo, sizeof(lo)) != 0 || listen(l, 8) != 0) {
		agent_log("listen", "127.0.0.1 (container)", -1, errno, NULL);
		_exit(3);
	}
	if (write(up, "1", 1) != 1)
		_exit(3);
	close(up);
	for (;;) {
		int c = accept4(l, NULL, NULL, SOCK_CLOEXEC);

		agent_log("accept", "127.0.0.1 (container)", c, errno, NULL);
		if (c < 0)
			continue;
		if (usable)
			usable = relay_client(c, out, sink, &connected) == 0;
		close(c);
	}
}

/* Makes path (and its missing parents) as an empty regular file, the
 * mount point of an nsfs bind. Returns 0 or -1 (logged). */
static int mount_point(const char *path)
{
	int rc = agent_make_parent(path), fd;

	if (rc < 0) {
		agent_log("mkdir", path, -1, -rc, NULL);
		return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		agent_log("open", path, -1, errno, NULL);
		return -1;
	}
	close(fd);
	return 0;
}

static int container(char **argv)
{
	static const char *const types[] = {"user", "net"};
	struct sockaddr_in lo = {.sin_family = AF_INET};
	struct agent_dest sink;
	long port = agent_parse_count(argv[2]);
	int up[2], out, ready, st;
	pid_t parent = getpid(), pid;
	char c;

	if (port <= 0 || port > 65535 || agent_parse_dest(argv[3], &sink) < 0)
		return agent_usage("container USERFILE NETFILE PORT SINK");
	if (mount_point(argv[0]) != 0 || mount_point(argv[1]) != 0)
		return 1;
	/* Made here, so it stays in the namespace that reaches SINK. */
	out = socket(sink.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (out < 0 || pipe2(up, O_CLOEXEC) != 0) {
		agent_log("socket", sink.text, -1, errno, NULL);
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		close(up[0]);
		container_child(up[1], out, &sink, (int)port, parent);
	}
	close(up[1]);
	close(out);
	if (pid < 0 || read(up[0], &c, 1) != 1) {
		agent_log("container", NULL, -1, pid < 0 ? errno : ECHILD, NULL);
		return 1;
	}
	for (int i = 0; i < 2; i++) {
		char src[64];
		int r;

		snprintf(src, sizeof(src), "/proc/%d/ns/%s", (int)pid, types[i]);
		r = mount(src, argv[i], NULL, MS_BIND, NULL);
		agent_log("mount", argv[i], r, errno, NULL);
		if (r != 0) {
			kill(pid, SIGKILL);
			return 1;
		}
	}
	lo.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ready = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (ready < 0 || bind(ready, (struct sockaddr *)&lo, sizeof(lo)) != 0) {
		agent_log("bind", "127.0.0.1:0", -1, errno, NULL);
		kill(pid, SIGKILL);
		return 1;
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	agent_log("container-exit", NULL, -1, ECHILD, NULL);
	return 1;
}

static atomic_int exiting_started;

static void *exiting_join(void *arg)
{
	atomic_store(&exiting_started, 1);
	setns(*(int *)arg, CLONE_NEWNET);
	return NULL;
}

static int exiting(const char *spin_arg, const char *nsfile)
{
	static int fd;
	long spin = agent_parse_count(spin_arg);
	pthread_t t;

	fd = open(nsfile ? nsfile : "/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (spin < 0 || fd < 0 || pthread_create(&t, NULL, exiting_join, &fd) != 0)
		return 2;
	while (!atomic_load(&exiting_started))
		;
	for (volatile long i = 0; i < spin; i++)
		;
	syscall(SYS_exit_group, 0);
	return 0;
}

static int cgroup_shared(void)
{
	int st;
	long r =
	    syscall(SYS_clone, CLONE_FILES | CLONE_NEWUSER | CLONE_NEWCGROUP | SIGCHLD, 0, 0, 0, 0);

	if (r == 0)
		syscall(SYS_exit, 0);
	agent_log("clone", "files+user+cgroup", r < 0 ? -1 : 0, errno, NULL);
	if (r < 0)
		return 1;
	return waitpid((pid_t)r, &st, 0) == (pid_t)r && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0
											      : 1;
}

int main(int argc, char **argv)
{
	agent_init("ns-join");
	if (argc == 2 && strcmp(argv[1], "cgroup-shared") == 0)
		return cgroup_shared();
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "exiting") == 0)
		return exiting(argv[2], argc == 4 ? argv[3] : NULL);
	if (argc == 2 && strcmp(argv[1], "own") == 0)
		return own();
	if (argc == 6 && strcmp(argv[1], "foreign") == 0)
		return foreign(argv + 2);
	if (argc == 4 && strcmp(argv[1], "race") == 0)
		return race(argv + 2);
	if (argc == 6 && strcmp(argv[1], "container") == 0) {
		/* A relay's client that went away answers EPIPE, never a
		 * signal. */
		signal(SIGPIPE, SIG_IGN);
		return container(argv + 2);
	}
	return agent_usage("own | foreign USERNS NETNS DEST LINE | race USERNS N | "
			   "container USERFILE NETFILE PORT SINK | exiting SPIN [NSFILE] | "
			   "cgroup-shared");
}
