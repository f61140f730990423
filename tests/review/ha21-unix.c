/* ha21-unix.c (hostile review h-attack21): agents for ha21-*.sh.
 *
 *   netns NSFILE NAME MARKER   a child binds and holds the abstract listener
 *       @NAME in the run's network namespace; the parent enters the network
 *       namespace NSFILE names (through its owning user namespace: a root
 *       agent has every capability in a user namespace uid 0 owns, and
 *       CAP_SETUID makes it the owner of any other uid's), connects to
 *       @NAME there and asks the service to write MARKER.
 *   nested NAME                a listener @NAME held by a process in a
 *       nested pid namespace (unshare -U -p, as bwrap or unshare --pid do),
 *       connected from the agent's own pid namespace.
 *   mmsg GOOD BAD              sendmmsg of two datagrams: GOOD (a socket the
 *       run bound) then BAD (a host socket).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static socklen_t abstract(struct sockaddr_un *a, const char *name)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	memcpy(a->sun_path + 1, name, strlen(name));
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
}

static pid_t hold_listener(const char *name, int secs)
{
	int p[2];
	char c;
	pid_t pid, parent = getpid();

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct sockaddr_un a;
		socklen_t l = abstract(&a, name);
		int s = socket(AF_UNIX, SOCK_STREAM, 0);

		/* Held while the agent lives, so a denied run ends with it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		if (bind(s, (struct sockaddr *)&a, l) || listen(s, 4)) {
			perror("agent: bind own @name");
			_exit(1);
		}
		write(p[1], "x", 1);
		sleep(secs);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		return -1;
	return pid;
}

static int do_netns(const char *nsfile, const char *name, const char *marker)
{
	struct sockaddr_un a;
	socklen_t l;
	char buf[256];
	int nfd, ufd, s;
	uid_t owner = 0;

	if (hold_listener(name, 20) < 0)
		return 1;
	printf("agent: a child of the run holds a listener on @%s\n", name);
	nfd = open(nsfile, O_RDONLY | O_CLOEXEC);
	if (nfd < 0) {
		perror("agent: open netns file");
		return 1;
	}
	ufd = ioctl(nfd, NS_GET_USERNS);
	if (ufd < 0) {
		perror("agent: NS_GET_USERNS");
		return 1;
	}
	ioctl(ufd, NS_GET_OWNER_UID, &owner);
	printf("agent: the network namespace's user namespace is owned by uid %u\n", owner);
	if (owner != 0 && setresuid(owner, owner, owner)) {
		perror("agent: setresuid");
		return 1;
	}
	if (setns(ufd, CLONE_NEWUSER)) {
		perror("agent: setns user");
		return 1;
	}
	if (setns(nfd, CLONE_NEWNET)) {
		perror("agent: setns net");
		return 1;
	}
	printf("agent: entered the network namespace %s\n", nsfile);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	l = abstract(&a, name);
	if (connect(s, (struct sockaddr *)&a, l)) {
		perror("agent: connect @name");
		return 1;
	}
	snprintf(buf, sizeof(buf), "run echo HA21: written by the service for the agent >%s",
		 marker);
	write(s, buf, strlen(buf));
	memset(buf, 0, sizeof(buf));
	read(s, buf, sizeof(buf) - 1);
	printf("agent: connected to @%s in that namespace, service answered: %s\n", name, buf);
	return 0;
}

static int do_nested(const char *name)
{
	struct sockaddr_un a;
	socklen_t l = abstract(&a, name);
	int p[2], s, st;
	char c;
	pid_t pid;

	if (pipe(p) || unshare(CLONE_NEWUSER | CLONE_NEWPID)) {
		perror("agent: unshare user+pid");
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		int ls = socket(AF_UNIX, SOCK_STREAM, 0), cs;

		if (bind(ls, (struct sockaddr *)&a, l) || listen(ls, 4))
			_exit(1);
		write(p[1], "x", 1);
		cs = accept(ls, NULL, NULL);
		if (cs >= 0 && read(cs, &c, 1) == 1)
			printf("agent: the nested listener (pid %d in its namespace) got a byte\n",
			       (int)getpid());
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		return 1;
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (connect(s, (struct sockaddr *)&a, l)) {
		printf("agent: connect to the run's own @%s held in a nested pid namespace: %s\n",
		       name, strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return 1;
	}
	write(s, "x", 1);
	waitpid(pid, &st, 0);
	printf("agent: connected to the run's own @%s\n", name);
	return 0;
}

static int do_mmsg(const char *good, const char *bad)
{
	struct sockaddr_un ga = {.sun_family = AF_UNIX}, ba = {.sun_family = AF_UNIX};
	struct iovec iov[2] = {{"HA21-GOOD", 9}, {"HA21-BAD", 8}};
	struct mmsghdr m[2];
	int g = socket(AF_UNIX, SOCK_DGRAM, 0), s = socket(AF_UNIX, SOCK_DGRAM, 0), n;

	strncpy(ga.sun_path, good, sizeof(ga.sun_path) - 1);
	strncpy(ba.sun_path, bad, sizeof(ba.sun_path) - 1);
	unlink(good);
	if (bind(g, (struct sockaddr *)&ga, sizeof(ga))) {
		perror("agent: bind GOOD");
		return 1;
	}
	memset(m, 0, sizeof(m));
	m[0].msg_hdr = (struct msghdr){
	    .msg_name = &ga, .msg_namelen = sizeof(ga), .msg_iov = &iov[0], .msg_iovlen = 1};
	m[1].msg_hdr = (struct msghdr){
	    .msg_name = &ba, .msg_namelen = sizeof(ba), .msg_iov = &iov[1], .msg_iovlen = 1};
	n = sendmmsg(s, m, 2, 0);
	printf("agent: sendmmsg -> %d (%s)\n", n, n < 0 ? strerror(errno) : "ok");
	n = sendmmsg(s, m + 1, 1, 0);
	printf("agent: sendmmsg of BAD alone -> %d (%s)\n", n, n < 0 ? strerror(errno) : "ok");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 5 && !strcmp(argv[1], "netns"))
		return do_netns(argv[2], argv[3], argv[4]);
	if (argc == 3 && !strcmp(argv[1], "nested"))
		return do_nested(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "mmsg"))
		return do_mmsg(argv[2], argv[3]);
	fprintf(stderr, "usage: see the header\n");
	return 2;
}
