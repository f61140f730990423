/*
 * fd-holder: a process outside the supervised tree that holds a connected
 * socket, the victim of cross-process: with UID given it first becomes that
 * uid (and dumpable again: a uid change leaves a process non-dumpable). It
 * binds a UDP socket on 127.0.0.1 (the guest's readiness signal for a
 * service), connects to DEST (TCP, retrying for 10 s: the sink starts after
 * the services; with --udp a connected UDP socket, which sends nothing until
 * written to), writes "PID FD\n" to PIDFILE, then sleeps until killed.
 */
#include "agentlib.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const struct timespec step = {.tv_nsec = 20 * 1000 * 1000};
	struct sockaddr_in lo = {.sin_family = AF_INET};
	struct agent_dest d;
	char line[64];
	int u, fd = -1, out, type = SOCK_STREAM;

	agent_init("fd-holder");
	if (argc > 1 && strcmp(argv[1], "--udp") == 0) {
		type = SOCK_DGRAM;
		argv++;
		argc--;
	}
	if (argc < 3 || argc > 4 || agent_parse_dest(argv[1], &d) < 0)
		return agent_usage("[--udp] DEST PIDFILE [UID]");
	if (argc == 4) {
		long uid = agent_parse_count(argv[3]);

		if (uid < 0 || setgid((gid_t)uid) != 0 || setuid((uid_t)uid) != 0)
			return 1;
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	}
	lo.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	u = socket(AF_INET, SOCK_DGRAM, 0);
	if (u < 0 || bind(u, (struct sockaddr *)&lo, sizeof(lo)) != 0)
		return 1;
	for (int i = 0; i < 500 && fd < 0; i++) {
		fd = socket(d.family, type, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&d.ss, d.len) != 0) {
			close(fd);
			fd = -1;
			nanosleep(&step, NULL);
		}
	}
	agent_log("connect", d.text, fd < 0 ? -1 : 0, errno, NULL);
	if (fd < 0)
		return 1;
	out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	snprintf(line, sizeof(line), "%d %d\n", (int)getpid(), fd);
	if (out < 0 || write(out, line, strlen(line)) != (ssize_t)strlen(line) || close(out) != 0)
		return 1;
	for (;;)
		pause();
}
