/*
 * sendmmsg-batch: one UDP datagram per DEST ("msg N"), all in ONE sendmmsg()
 * call; logs the call's return (messages sent before the first refusal).
 * The raw syscall: musl's sendmmsg() on 64-bit is a loop of sendmsg() calls,
 * which would test sendmsg instead.
 * A DEST of @name, @iov or @control (not first) repeats the one before with
 * that pointer at address 16, below vm.mmap_min_addr: the kernel sends the
 * messages before it and answers their count (review h-attack4).
 */
#include "agentlib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_MSGS 16

int main(int argc, char **argv)
{
	static struct agent_dest d[MAX_MSGS];
	static char payload[MAX_MSGS][16];
	struct mmsghdr mm[MAX_MSGS];
	struct iovec iov[MAX_MSGS];
	char dests[MAX_MSGS * 82] = "";
	int n = argc - 1, i, fd;
	long r;

	agent_init("sendmmsg-batch");
	if (n < 1 || n > MAX_MSGS)
		return agent_usage("DEST... (1..16, one family)");
	memset(mm, 0, sizeof(mm));
	for (i = 0; i < n; i++) {
		const char *bad = argv[i + 1][0] == '@' ? argv[i + 1] + 1 : NULL;

		if (bad && i > 0)
			d[i] = d[i - 1];
		else if (bad || agent_parse_dest(argv[i + 1], &d[i]) < 0 ||
			 d[i].family != d[0].family)
			return agent_usage("DEST|@name|@iov|@control... (1..16, one family)");
		snprintf(payload[i], sizeof(payload[i]), "msg %d", i);
		iov[i].iov_base = payload[i];
		iov[i].iov_len = strlen(payload[i]);
		mm[i].msg_hdr.msg_name = &d[i].ss;
		mm[i].msg_hdr.msg_namelen = d[i].len;
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
		if (bad && strcmp(bad, "name") == 0)
			mm[i].msg_hdr.msg_name = (void *)16;
		else if (bad && strcmp(bad, "iov") == 0)
			mm[i].msg_hdr.msg_iov = (void *)16;
		else if (bad && strcmp(bad, "control") == 0) {
			mm[i].msg_hdr.msg_control = (void *)16;
			mm[i].msg_hdr.msg_controllen = 32;
		} else if (bad)
			return agent_usage("DEST|@name|@iov|@control... (1..16, one family)");
		if (i)
			strcat(dests, ",");
		strcat(dests, bad ? argv[i + 1] : d[i].text);
	}
	fd = socket(d[0].family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		agent_log("socket", dests, fd, errno, NULL);
		return 0;
	}
	r = syscall(SYS_sendmmsg, fd, mm, (unsigned)n, 0);
	agent_log("sendmmsg", dests, r, errno, NULL);
	close(fd);
	return 0;
}
