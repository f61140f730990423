/*
 * sendmmsg-batch: one UDP datagram per DEST ("msg N"), all in ONE sendmmsg()
 * call; logs the call's return (messages sent before the first refusal).
 * The raw syscall: musl's sendmmsg() on 64-bit is a loop of sendmsg() calls,
 * which would test sendmsg instead.
 * A DEST of @name, @iov or @control (not first) repeats the one before with
 * that pointer at address 16, below vm.mmap_min_addr: the kernel sends the
 * messages before it and answers their count (review h-attack4).
 * A DEST ending in +badfd or +rights254 carries SCM_RIGHTS control data:
 * one closed descriptor (999), or 254 copies of descriptor 0 (one over
 * SCM_MAX_FD). An inet socket ignores SCM_RIGHTS, so
 * the kernel sends it and goes on (review h-attack5).
 * A DEST of @base (not first) repeats the one before with its payload at
 * address 16: the kernel sends the messages before it and answers their
 * count (review h-attack5).
 * A DEST of @badctl (not first) repeats the one before with a malformed
 * control message (cmsg_len 8, not CMSG_OK).
 * A DEST ending in +badbase (the first too) has its payload at address 16:
 * first in the batch, the kernel sends nothing and answers EFAULT (review
 * h-attack9).
 * --cork sends "cork" to the first DEST with MSG_MORE (sendmsg) and leaves
 * that DEST out of the batch: the socket then holds a pending datagram, and
 * UDP appends the batch's first message to it without walking its control
 * data, so a @badctl there is no EINVAL and the batch goes on (review
 * h-attack5).
 * --on N (first of all) makes the call on descriptor N instead of the
 * socket: 999 (closed) or 0 (not a socket when stdin is /dev/null); the
 * kernel answers EBADF or ENOTSOCK and sends nothing (review h-attack10).
 * --ro (before --cork) puts the vector on a read-only page: the kernel sends
 * the first message, cannot write its msg_len back and answers EFAULT
 * (__sys_sendmmsg: sent, not counted; review h-attack6).
 */
#include "agentlib.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_MSGS 16
#define RIGHTS_MAX 254

/* SCM_RIGHTS with n copies of fd. */
static void *rights(int fd, int n, socklen_t *len)
{
	static union {
		struct cmsghdr h;
		unsigned char b[CMSG_SPACE(RIGHTS_MAX * sizeof(int))];
	} ctl;
	int *fds = (int *)(void *)CMSG_DATA(&ctl.h);

	ctl.h.cmsg_level = SOL_SOCKET;
	ctl.h.cmsg_type = SCM_RIGHTS;
	ctl.h.cmsg_len = CMSG_LEN(n * sizeof(int));
	for (int i = 0; i < n; i++)
		fds[i] = fd;
	*len = CMSG_SPACE(n * sizeof(int));
	return &ctl;
}

int main(int argc, char **argv)
{
	static struct agent_dest d[MAX_MSGS];
	static char payload[MAX_MSGS][16];
	static union {
		struct cmsghdr h;
		unsigned char b[CMSG_SPACE(4)];
	} badctl = {.h = {.cmsg_len = 8, .cmsg_level = IPPROTO_IP, .cmsg_type = IP_TTL}};
	struct mmsghdr mm[MAX_MSGS];
	struct iovec iov[MAX_MSGS];
	char dests[MAX_MSGS * 82] = "";
	struct mmsghdr *vec = mm;
	int n = argc - 1, i, fd, cork, ro, on = -1;
	long r;

	agent_init("sendmmsg-batch");
	if (n >= 2 && strcmp(argv[1], "--on") == 0) {
		on = (int)agent_parse_count(argv[2]);
		if (on < 0)
			return agent_usage("--on N: a descriptor number");
		argv += 2;
		n -= 2;
	}
	ro = n > 0 && strcmp(argv[1], "--ro") == 0;
	if (ro) {
		argv++;
		n--;
	}
	cork = n > 0 && strcmp(argv[1], "--cork") == 0;
	if (cork) {
		argv++;
		n--;
	}
	if (n < 1 || n > MAX_MSGS)
		return agent_usage("DEST... (1..16, one family)");
	memset(mm, 0, sizeof(mm));
	for (i = 0; i < n; i++) {
		char arg[96], *plus;
		const char *bad, *with = NULL;

		snprintf(arg, sizeof(arg), "%s", argv[i + 1]);
		plus = strchr(arg, '+');
		if (plus) {
			*plus = '\0';
			with = plus + 1;
		}
		bad = arg[0] == '@' ? arg + 1 : NULL;
		if (bad && i > 0)
			d[i] = d[i - 1];
		else if (bad || agent_parse_dest(arg, &d[i]) < 0 || d[i].family != d[0].family)
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
		else if (bad && strcmp(bad, "base") == 0)
			iov[i].iov_base = (void *)16;
		else if (bad && strcmp(bad, "control") == 0) {
			mm[i].msg_hdr.msg_control = (void *)16;
			mm[i].msg_hdr.msg_controllen = 32;
		} else if (bad && strcmp(bad, "badctl") == 0) {
			mm[i].msg_hdr.msg_control = &badctl;
			mm[i].msg_hdr.msg_controllen = sizeof(badctl);
		} else if (bad)
			return agent_usage("[--cork] DEST|@name|@iov|@base|@control|@badctl"
					   "[+badfd|+rights254|+badbase]... (1..16, one family)");
		if (with && strcmp(with, "badbase") == 0)
			iov[i].iov_base = (void *)16;
		else if (with && (strcmp(with, "badfd") == 0 || strcmp(with, "rights254") == 0))
			mm[i].msg_hdr.msg_control =
			    rights(with[0] == 'b' ? 999 : 0, with[0] == 'b' ? 1 : RIGHTS_MAX,
				   &mm[i].msg_hdr.msg_controllen);
		else if (with)
			return agent_usage("[--cork] DEST|@name|@iov|@base|@control|@badctl"
					   "[+badfd|+rights254|+badbase]... (1..16, one family)");
		if (i)
			strcat(dests, ",");
		strcat(dests, bad ? argv[i + 1] : d[i].text);
	}
	fd = socket(d[0].family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		agent_log("socket", dests, fd, errno, NULL);
		return 0;
	}
	if (cork) {
		static char c[] = "cork";
		struct iovec ci = {.iov_base = c, .iov_len = 4};
		struct msghdr ch = {
		    .msg_name = &d[0].ss, .msg_namelen = d[0].len, .msg_iov = &ci, .msg_iovlen = 1};

		r = sendmsg(fd, &ch, MSG_MORE);
		agent_log("sendmsg_more", d[0].text, r, errno, NULL);
	}
	if (ro) {
		vec = mmap(NULL, sizeof(mm), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
		if (vec == MAP_FAILED)
			return agent_usage("mmap");
		memcpy(vec, mm, sizeof(mm));
		if (mprotect(vec, sizeof(mm), PROT_READ) != 0)
			return agent_usage("mprotect");
	}
	r = syscall(SYS_sendmmsg, on >= 0 ? on : fd, vec + cork, (unsigned)(n - cork), 0);
	agent_log("sendmmsg", dests, r, errno, NULL);
	close(fd);
	return 0;
}
