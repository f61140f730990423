/*
 * fastopen-bad-control: a TCP fast-open connect hidden behind a malformed control
 * message. sendmsg(MSG_FASTOPEN) on an unconnected TCP socket, with DEST as
 * its name and 16 bytes of control whose cmsg_len is 0 (not CMSG_OK). The
 * kernel copies the control in ____sys_sendmsg without looking at it;
 * tcp_sendmsg_locked connects to the name (tcp_sendmsg_fastopen, a
 * blocking connect) and only then walks the control (sock_cmsg_send:
 * EINVAL). So the kernel reaches DEST and answers EINVAL. The supervisor's
 * control walk answered EINVAL first and filed the call as the agent's
 * invalid one (bad-msghdr): the attempt hid behind a pass (review
 * h-attack4). Now the name is judged first.
 *
 *     fastopen-bad-control DEST
 */
#include "agentlib.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif

int main(int argc, char **argv)
{
	static char payload[] = "ha4";
	static unsigned char control[16]; /* cmsg_len 0: not CMSG_OK */
	struct iovec iov = {.iov_base = payload, .iov_len = 3};
	struct msghdr mh;
	struct agent_dest d;
	int s;
	long r;

	agent_init("fastopen-bad-control");
	if (argc != 2 || agent_parse_dest(argv[1], &d) < 0)
		return agent_usage("DEST");
	memset(&mh, 0, sizeof(mh));
	mh.msg_name = &d.ss;
	mh.msg_namelen = d.len;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = control;
	mh.msg_controllen = sizeof(control);
	s = socket(d.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	/* The raw call: musl's sendmsg copies the control itself. */
	r = syscall(SYS_sendmsg, s, &mh, MSG_FASTOPEN | MSG_NOSIGNAL);
	agent_log("sendmsg_fastopen", d.text, r, r < 0 ? errno : 0, NULL);
	_exit(0);
}
