/*
 * passrights: sets SO_PASSRIGHTS (6.16) and shows what the kernel did.
 *
 *     passrights own-off   on a socketpair of its own, turned off; then a
 *                          descriptor sent over the pair (the kernel's
 *                          EPERM shows the option really is off)
 *     passrights own-on    on a socketpair of its own, turned on
 *     passrights own-short on a socketpair of its own, 0 with an optlen of 2:
 *                          the kernel's EINVAL, whatever the value
 *     passrights stdin-on  on descriptor 0 (an AF_UNIX socket the
 *                          supervisor turned off: stdfds.c), turned on; then
 *                          the option read back with getsockopt
 *
 * Each call is logged; "getsockopt" and "send_rights" carry the outcome in
 * their result. Review h-attack76: turning it off was denied, a false red
 * (systemd's notification receivers do it from v258).
 */
#include "agentlib.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* include/uapi/asm-generic/socket.h, 6.16 (musl's headers predate it). */
#define AGENT_SO_PASSRIGHTS 83

static long send_rights(int over, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {.iov_base = "x", .iov_len = 1};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm;

	memset(cbuf, 0, sizeof(cbuf));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(over, &mh, 0);
}

int main(int argc, char **argv)
{
	int sv[2], v, fd = 0;
	socklen_t vlen = sizeof(v);
	long r;

	agent_init("passrights");
	if (argc != 2 || (strcmp(argv[1], "own-off") && strcmp(argv[1], "own-on") &&
			  strcmp(argv[1], "own-short") && strcmp(argv[1], "stdin-on")))
		return agent_usage("own-off|own-on|own-short|stdin-on");
	v = strcmp(argv[1], "own-off") != 0 && strcmp(argv[1], "own-short") != 0;
	if (strcmp(argv[1], "stdin-on") != 0) {
		r = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
		agent_log("socketpair", NULL, r, errno, NULL);
		if (r < 0)
			return 1;
		fd = sv[1];
	}
	r = setsockopt(fd, SOL_SOCKET, AGENT_SO_PASSRIGHTS, &v,
		       strcmp(argv[1], "own-short") == 0 ? 2 : sizeof(v));
	agent_log("setsockopt", NULL, r, errno, NULL);
	if (strcmp(argv[1], "stdin-on") == 0) {
		r = getsockopt(0, SOL_SOCKET, AGENT_SO_PASSRIGHTS, &v, &vlen);
		agent_log("getsockopt", NULL, r < 0 ? r : v, errno, NULL);
	} else {
		r = send_rights(sv[0], 1);
		agent_log("send_rights", NULL, r, errno, NULL);
	}
	return 0;
}
