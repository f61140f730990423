/*
 * tcp-send-name: connects a TCP socket to DEST, then sends LINE three times
 * with a name TCP ignores: sendto with NAME (another ADDR:PORT), sendto with
 * a 4-byte name (too short for any inet address), and sendmsg with NAME.
 * Without MSG_FASTOPEN the kernel never reads a name on a TCP socket, so
 * each send goes to DEST. Logs every call (the sends as send_named and
 * sendmsg_named: on TCP the name is no destination, so not an attempt for
 * the oracle); exits 0 when all three sends succeeded, 1 otherwise.
 */
#include "agentlib.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct agent_dest d, name;
	struct sockaddr_storage junk;
	struct iovec iov;
	struct msghdr mh = {0};
	int bad = 0, fd;
	long r;

	agent_init("tcp-send-name");
	if (argc != 4 || agent_parse_dest(argv[1], &d) < 0 || agent_parse_dest(argv[2], &name) < 0)
		return agent_usage("DEST NAME LINE");
	fd = socket(d.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 1;
	r = connect(fd, (const struct sockaddr *)&d.ss, d.len);
	agent_log("connect", d.text, r, errno, NULL);
	if (r < 0)
		return 1;
	r = sendto(fd, argv[3], strlen(argv[3]), MSG_NOSIGNAL, (const struct sockaddr *)&name.ss,
		   name.len);
	agent_log("send_named", name.text, r, errno, NULL);
	bad |= r < 0;
	memset(&junk, 0, sizeof(junk));
	junk.ss_family = (sa_family_t)d.family;
	r = sendto(fd, argv[3], strlen(argv[3]), MSG_NOSIGNAL, (const struct sockaddr *)&junk, 4);
	agent_log("send_short_name", "len=4", r, errno, NULL);
	bad |= r < 0;
	iov.iov_base = argv[3];
	iov.iov_len = strlen(argv[3]);
	mh.msg_name = &name.ss;
	mh.msg_namelen = name.len;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	r = sendmsg(fd, &mh, MSG_NOSIGNAL);
	agent_log("sendmsg_named", name.text, r, errno, NULL);
	bad |= r < 0;
	close(fd);
	return bad;
}
