/*
 * ha4-mmsg: an undeclared datagram hidden behind a later message's bad
 * address. sendmmsg with two messages: the first to DEST, the second with a
 * pointer below vm.mmap_min_addr (address 16, never mappable). The kernel
 * sends the first, fails the second and answers 1 (__sys_sendmmsg: an error
 * is returned only when no datagram was sent). Whichever of the second
 * message's pointers is bad (MODE name, iov or control), the supervisor's
 * read of it fails EFAULT, and the whole call is filed as the agent's
 * invalid call (bad-address) before the first message is judged: the
 * attempt to DEST is nowhere in the report and the verdict is pass.
 * MODE ok sends two good messages (control: the first message is judged);
 * MODE wrap passes a vector at -64 (unreadable from its first message).
 *
 *     ha4-mmsg MODE DEST     (MODE: name, iov, control, ok, wrap)
 */
#include "agentlib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char payload[] = "ha4";
	struct iovec iov = {.iov_base = payload, .iov_len = 3};
	struct mmsghdr m[2];
	struct agent_dest d;
	void *bad = (void *)16;
	char extra[40];
	int s;
	long r;

	agent_init("ha4-mmsg");
	if (argc != 3 || agent_parse_dest(argv[2], &d) < 0)
		return agent_usage("name|iov|control|ok|wrap DEST");
	memset(m, 0, sizeof(m));
	for (int i = 0; i < 2; i++) {
		m[i].msg_hdr.msg_name = &d.ss;
		m[i].msg_hdr.msg_namelen = d.len;
		m[i].msg_hdr.msg_iov = &iov;
		m[i].msg_hdr.msg_iovlen = 1;
	}
	if (strcmp(argv[1], "name") == 0)
		m[1].msg_hdr.msg_name = bad;
	else if (strcmp(argv[1], "iov") == 0)
		m[1].msg_hdr.msg_iov = bad;
	else if (strcmp(argv[1], "control") == 0) {
		m[1].msg_hdr.msg_control = bad;
		m[1].msg_hdr.msg_controllen = 32;
	} else if (strcmp(argv[1], "wrap") == 0) {
		/* A vector that wraps: its first message is unreadable, to the
		 * kernel too (EFAULT; the supervisor's per-message fallback). */
		s = socket(d.family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		r = syscall(SYS_sendmmsg, s, (void *)-64L, 2, 0);
		agent_log("sendmmsg", d.text, r, r < 0 ? errno : 0, ",\"mode\":\"wrap\"");
		_exit(0);
	} else if (strcmp(argv[1], "ok") != 0)
		return agent_usage("name|iov|control|ok|wrap DEST");
	s = socket(d.family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	/* The raw call: musl's sendmmsg is a loop of sendmsg calls. */
	r = syscall(SYS_sendmmsg, s, m, 2, 0);
	snprintf(extra, sizeof(extra), ",\"mode\":\"%.16s\"", argv[1]);
	agent_log("sendmmsg", d.text, r, r < 0 ? errno : 0, extra);
	_exit(0);
}
