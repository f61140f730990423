/* ha17-handover: hostile review h-attack17 (against main d07b047). Run
 * under a seccomp mask that refuses unshare (ha17-handover.sh), where the
 * supervisor takes the listener from the agent's first process with
 * pidfd_getfd (spawn.c, "Handing the listener over"). What the agent can
 * reach of the hand-over: every descriptor it holds (a seccomp listener,
 * "anon_inode:seccomp notify", or a pipe of the hand-over), the
 * listener by pidfd_getfd from its parent (the reaper, in a pid
 * namespace) or from itself, a second filter with a listener of its own
 * (nested notification: EBUSY expected), and whether its calls are still
 * mediated (a connect to DEST, which the policy does not declare, must be
 * denied with EACCES).
 *
 *   ha17-handover DEST:PORT   (an IPv4 address)
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
	struct sock_fprog prog = {.len = 1, .filter = &allow};
	char path[300], target[256], *colon;
	struct dirent *e;
	DIR *dir;
	long pidfd, fd;
	int s;

	if (argc != 2 || !(colon = strchr(argv[1], ':')))
		return 2;
	*colon = '\0';
	inet_pton(AF_INET, argv[1], &sa.sin_addr);
	sa.sin_port = htons((unsigned short)atoi(colon + 1));
	dir = opendir("/proc/self/fd");
	while (dir && (e = readdir(dir))) {
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		printf("agent: fd %s -> %s\n", e->d_name, target);
	}
	if (dir)
		closedir(dir);
	for (int who = 0; who < 2; who++) {
		pid_t pid = who ? getppid() : getpid();

		pidfd = syscall(SYS_pidfd_open, pid, 0);
		printf("agent: pidfd_open(%s %d): %s\n", who ? "parent" : "self", (int)pid,
		       pidfd < 0 ? strerror(errno) : "ok");
		for (int n = 0; pidfd >= 0 && n < 8; n++) {
			fd = syscall(SYS_pidfd_getfd, (int)pidfd, n, 0);
			if (fd >= 0 || errno != EBADF)
				printf("agent:   pidfd_getfd(%d): %s\n", n,
				       fd < 0 ? strerror(errno) : "GOT IT");
		}
	}
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	printf("agent: a listener of its own: %s\n", fd < 0 ? strerror(errno) : "GOT ONE");
	s = socket(AF_INET, SOCK_STREAM, 0);
	printf("agent: connect to undeclared %s:%s: %s\n", argv[1], colon + 1,
	       connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0 ? "CONNECTED" : strerror(errno));
	return 0;
}
