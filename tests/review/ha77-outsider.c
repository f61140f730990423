// ha77-outsider.c: hostile review h-attack77, the processes outside the run.
//   victim IP PORT SECS      holds a TCP socket connected to IP:PORT at fd
//                            7 for SECS seconds (11.4's target)
//   ringsrv PATH IP PORT     makes an io_uring ring and a TCP socket
//                            connected to IP:PORT, hands both (and the
//                            ring's params) to the first AF_UNIX peer at PATH
//   nouserns -- CMD...       enters a user namespace of its own (ids mapped
//                            to themselves), sets its
//                            user.max_user_namespaces to 0 and execs CMD:
//                            (the supervisor refuses it: its own uid's)
//   rootns -- CMD...         as root: the same in a user namespace root
//                            owns, ids 0 and 1000 mapped, CMD run as uid
//                            1000: the subreaper+landlock fallback
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

static int put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, s, strlen(s)) < 0) {
		fprintf(stderr, "ha77-outsider: %s: %s\n", path, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

static int tcp(const char *ip, int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	inet_pton(AF_INET, ip, &a.sin_addr);
	if (connect(fd, (void *)&a, sizeof a) < 0) {
		perror("ha77-outsider: connect");
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	if (argc > 4 && !strcmp(argv[1], "victim")) {
		int fd = tcp(argv[2], atoi(argv[3]));
		if (fd < 0 || dup2(fd, 7) < 0)
			return 1;
		printf("%d\n", getpid());
		fflush(stdout);
		sleep(atoi(argv[4]));
		return 0;
	}
	if (argc > 4 && !strcmp(argv[1], "ringsrv")) {
		struct io_uring_params p = {0};
		int ring = syscall(SYS_io_uring_setup, 4, &p);
		if (ring < 0) {
			perror("ha77-outsider: io_uring_setup");
			return 1;
		}
		int s = tcp(argv[3], atoi(argv[4]));
		int l = socket(AF_UNIX, SOCK_STREAM, 0);
		struct sockaddr_un a = {.sun_family = AF_UNIX};
		strncpy(a.sun_path, argv[2], sizeof a.sun_path - 1);
		unlink(argv[2]);
		if (s < 0 || bind(l, (void *)&a, sizeof a) < 0 || listen(l, 1) < 0) {
			perror("ha77-outsider: ringsrv");
			return 1;
		}
		chmod(argv[2], 0777);
		printf("ready\n");
		fflush(stdout);
		alarm(20);
		int c = accept(l, NULL, NULL);
		int fds[2] = {ring, s};
		char cbuf[CMSG_SPACE(sizeof fds)] = {0};
		char x = 'r';
		struct iovec iov = {&x, 1};
		struct msghdr m = {.msg_iov = &iov,
				   .msg_iovlen = 1,
				   .msg_control = cbuf,
				   .msg_controllen = sizeof cbuf};
		struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof fds);
		memcpy(CMSG_DATA(cm), fds, sizeof fds);
		if (sendmsg(c, &m, 0) < 0 || write(c, &p, sizeof p) < 0)
			perror("ha77-outsider: sendmsg");
		sleep(3);
		unlink(argv[2]);
		return 0;
	}
	if (argc > 3 && !strcmp(argv[1], "nouserns") && !strcmp(argv[2], "--")) {
		char m[64];
		uid_t u = getuid();
		gid_t g = getgid();
		if (unshare(CLONE_NEWUSER) < 0) {
			perror("ha77-outsider: unshare");
			return 1;
		}
		snprintf(m, sizeof m, "%u %u 1\n", u, u);
		if (put("/proc/self/uid_map", m) < 0 || put("/proc/self/setgroups", "deny") < 0)
			return 1;
		snprintf(m, sizeof m, "%u %u 1\n", g, g);
		if (put("/proc/self/gid_map", m) < 0 ||
		    put("/proc/sys/user/max_user_namespaces", "0") < 0)
			return 1;
		execvp(argv[3], argv + 3);
		perror("ha77-outsider: exec");
		return 1;
	}
	if (argc > 3 && !strcmp(argv[1], "rootns") && !strcmp(argv[2], "--")) {
		// As root: a user namespace root (host uid 0) owns, ids 0 and 1000
		// mapped to themselves, its max_user_namespaces 0, then uid 1000.
		// Not the uid's own namespace, so its refusal is the host's.
		int go[2], done[2];
		char m[64], b;
		if (pipe(go) < 0 || pipe(done) < 0)
			return 1;
		pid_t c = fork();
		if (c == 0) {
			if (unshare(CLONE_NEWUSER) < 0) {
				perror("ha77-outsider: unshare");
				_exit(1);
			}
			if (write(go[1], "u", 1) != 1 || read(done[0], &b, 1) != 1)
				_exit(1);
			if (put("/proc/sys/user/max_user_namespaces", "0") < 0)
				_exit(1);
			if (setgroups(0, NULL) < 0 || setresgid(1000, 1000, 1000) < 0 ||
			    setresuid(1000, 1000, 1000) < 0) {
				perror("ha77-outsider: setid");
				_exit(1);
			}
			execvp(argv[3], argv + 3);
			perror("ha77-outsider: exec");
			_exit(1);
		}
		if (read(go[0], &b, 1) != 1)
			return 1;
		snprintf(m, sizeof m, "/proc/%d/uid_map", c);
		if (put(m, "0 0 1\n1000 1000 1\n") < 0)
			return 1;
		snprintf(m, sizeof m, "/proc/%d/gid_map", c);
		if (put(m, "0 0 1\n1000 1000 1\n") < 0)
			return 1;
		if (write(done[1], "d", 1) != 1)
			return 1;
		int st;
		if (waitpid(c, &st, 0) < 0)
			return 1;
		return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	fprintf(stderr, "ha77-outsider: usage\n");
	return 2;
}
