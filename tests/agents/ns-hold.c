/*
 * ns-hold: another tenant of the agent's uid that holds every user
 * namespace the uid may have (review h-attack65): the per-uid limit
 * (user.max_user_namespaces) counts every process of the uid, so a parallel
 * run's agent, or any process of the uid, can use it up. A service the guest
 * starts as root: switches to UID and re-executes itself (dumpable again: a
 * uid change without exec is not, and /proc/PID/ns of its children would
 * then answer EACCES), then makes user namespaces (each a child cloned into
 * a new one, its namespace held by a descriptor of ours once the child is
 * gone) until it holds COUNT or the kernel refuses one, binds a UDP socket
 * on 127.0.0.1 (how the guest sees it is ready) and sleeps holding them.
 * Logs how many it holds and the errno that stopped it, if any. (The guest
 * starts services before it writes a cell's sysctls: a scenario that lowers
 * user.max_user_namespaces to COUNT has the uid's allowance used up.)
 *
 *     ns-hold UID COUNT
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001)};
	char extra[64];
	long uid, count;
	int held = 0, err = 0, fd;

	if (argc == 3 && (uid = agent_parse_count(argv[1])) >= 0 &&
	    strcmp(argv[2], "--hold") != 0) {
		if (setgroups(0, NULL) != 0 || setresgid((gid_t)uid, (gid_t)uid, (gid_t)uid) != 0 ||
		    setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) != 0)
			return 1;
		execl("/proc/self/exe", argv[0], argv[1], argv[2], "--hold", (char *)NULL);
		return 127;
	}
	agent_init("ns-hold");
	if (argc != 4 || strcmp(argv[3], "--hold") != 0 ||
	    (count = agent_parse_count(argv[2])) < 0 || count > 1000)
		return agent_usage("UID COUNT (at most 1000)");
	while (held < count) {
		char path[64];
		long pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
		int ns;

		if (pid < 0) {
			err = errno;
			break;
		}
		if (pid == 0) {
			pause();
			_exit(0);
		}
		snprintf(path, sizeof(path), "/proc/%ld/ns/user", pid);
		ns = open(path, O_RDONLY | O_CLOEXEC);
		if (ns < 0)
			err = errno;
		kill((pid_t)pid, SIGKILL);
		waitpid((pid_t)pid, NULL, 0);
		if (ns < 0)
			break;
		held++;
	}
	snprintf(extra, sizeof(extra), ",\"held\":%d", held);
	agent_log("clone_newuser", NULL, -1, err, extra);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	agent_log("bind", NULL, bind(fd, (struct sockaddr *)&sin, sizeof(sin)), errno, NULL);
	for (;;)
		pause();
}
