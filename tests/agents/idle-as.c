/*
 * idle-as: a process of uid UID outside the agent's tree (a service the
 * guest starts as root). Switches gid and uid, then re-executes itself so it
 * is dumpable again (a uid change without exec leaves it non-dumpable), binds
 * a UDP socket on 127.0.0.1 (how the guest sees it is ready) and sleeps until
 * killed.
 *
 *     idle-as UID
 */
#include "agentlib.h"

#include <grp.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001)};
	long uid;
	int fd;

	if (argc == 3 && strcmp(argv[2], "--idle") == 0) {
		agent_init("idle-as");
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		agent_log("bind", NULL, bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0, NULL);
		for (;;)
			pause();
	}
	if (argc != 2 || (uid = agent_parse_count(argv[1])) < 0)
		return agent_usage("UID");
	if (setgroups(0, NULL) != 0 || setresgid((gid_t)uid, (gid_t)uid, (gid_t)uid) != 0 ||
	    setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) != 0)
		return 1;
	execl("/proc/self/exe", argv[0], argv[1], "--idle", (char *)NULL);
	return 127;
}
