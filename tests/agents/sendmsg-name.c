/*
 * sendmsg-name: one sendmsg() per MODE ARG pair, on a fresh datagram socket:
 *   name DEST        msg_name is DEST
 *   null DEST        connect to DEST first, then msg_name NULL
 *   bad-family DEST  msg_name is DEST with sa_family 5 (AF_APPLETALK)
 *   short DEST       msg_name is DEST with msg_namelen 4 (too short)
 *   creds DEST       msg_name is DEST, with an SCM_CREDENTIALS control
 *                    message of our own pid, uid and gid (UDP ignores it;
 *                    outside the supervisor's control-message allow-list)
 *   txtime DEST      msg_name is DEST, SO_TXTIME set on the socket and an
 *                    SCM_TXTIME control message of 0 (send now)
 *   tstamp DEST      msg_name is DEST, an SO_TIMESTAMPING control message
 *                    asking for a software transmit timestamp
 *   dontfrag DEST    msg_name is DEST (IPv6), an IPV6_DONTFRAG control
 *                    message of 1 (the last three only time or shape the
 *                    packet: QUIC senders use them; review h-realprog5)
 *   unix PATH        AF_UNIX datagram socket, msg_name is PATH
 */
#include "agentlib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static const char payload[] = "ping";

static long send_with_name(int fd, void *name, socklen_t namelen)
{
	struct iovec iov = {.iov_base = (void *)payload, .iov_len = sizeof(payload) - 1};
	struct msghdr mh = {
	    .msg_name = name, .msg_namelen = namelen, .msg_iov = &iov, .msg_iovlen = 1};

	return sendmsg(fd, &mh, 0);
}

static long send_with_creds(int fd, void *name, socklen_t namelen)
{
	struct iovec iov = {.iov_base = (void *)payload, .iov_len = sizeof(payload) - 1};
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct ucred))];
	} ctl;
	struct ucred cred = {.pid = getpid(), .uid = getuid(), .gid = getgid()};
	struct msghdr mh = {.msg_name = name,
			    .msg_namelen = namelen,
			    .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl.buf,
			    .msg_controllen = sizeof(ctl.buf)};

	memset(&ctl, 0, sizeof(ctl));
	ctl.h.cmsg_level = SOL_SOCKET;
	ctl.h.cmsg_type = SCM_CREDENTIALS;
	ctl.h.cmsg_len = CMSG_LEN(sizeof(cred));
	memcpy(CMSG_DATA(&ctl.h), &cred, sizeof(cred));
	return sendmsg(fd, &mh, 0);
}

/* One control message of LEVEL/TYPE holding the int VALUE (or, for
 * SCM_TXTIME, a 64-bit time) on a send to NAME. */
static long send_with_control(int fd, void *name, socklen_t namelen, int level, int type,
			      unsigned long long value, size_t size)
{
	struct iovec iov = {.iov_base = (void *)payload, .iov_len = sizeof(payload) - 1};
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(unsigned long long))];
	} ctl;
	struct msghdr mh = {.msg_name = name,
			    .msg_namelen = namelen,
			    .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl.buf,
			    .msg_controllen = CMSG_SPACE(size)};
	unsigned int v32 = (unsigned int)value;

	memset(&ctl, 0, sizeof(ctl));
	ctl.h.cmsg_level = level;
	ctl.h.cmsg_type = type;
	ctl.h.cmsg_len = CMSG_LEN(size);
	memcpy(CMSG_DATA(&ctl.h), size == sizeof(v32) ? (void *)&v32 : (void *)&value, size);
	return sendmsg(fd, &mh, 0);
}

static int run_unix(const char *path)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	char text[sizeof(sun.sun_path) + 8];
	long r;
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path))
		return -1;
	strcpy(sun.sun_path, path);
	snprintf(text, sizeof(text), "unix:%s", path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		agent_log("socket", text, fd, errno, NULL);
		return 0;
	}
	r = send_with_name(fd, &sun,
			   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1));
	agent_log("sendmsg", text, r, errno, NULL);
	close(fd);
	return 0;
}

static int run_inet(const char *mode, const char *arg)
{
	struct agent_dest d;
	long r;
	int fd;

	if (agent_parse_dest(arg, &d) < 0)
		return -1;
	fd = socket(d.family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		agent_log("socket", d.text, fd, errno, NULL);
		return 0;
	}
	if (strcmp(mode, "name") == 0) {
		r = send_with_name(fd, &d.ss, d.len);
	} else if (strcmp(mode, "null") == 0) {
		r = connect(fd, (const struct sockaddr *)&d.ss, d.len);
		agent_log("connect", d.text, r, errno, NULL);
		r = send_with_name(fd, NULL, 0);
	} else if (strcmp(mode, "bad-family") == 0) {
		d.ss.ss_family = 5; /* AF_APPLETALK: neither inet nor local IPC */
		r = send_with_name(fd, &d.ss, d.len);
	} else if (strcmp(mode, "short") == 0) {
		r = send_with_name(fd, &d.ss, 4);
	} else if (strcmp(mode, "creds") == 0) {
		r = send_with_creds(fd, &d.ss, d.len);
	} else if (strcmp(mode, "txtime") == 0) {
		/* SO_TXTIME's struct sock_txtime: clock, flags. */
		struct {
			int clockid;
			unsigned int flags;
		} st = {CLOCK_MONOTONIC, 0};

		r = setsockopt(fd, SOL_SOCKET, 61 /* SO_TXTIME */, &st, sizeof(st));
		agent_log("setsockopt", NULL, r, errno, ",\"option\":\"SO_TXTIME\"");
		r = send_with_control(fd, &d.ss, d.len, SOL_SOCKET, 61 /* SCM_TXTIME */, 0,
				      sizeof(unsigned long long));
	} else if (strcmp(mode, "tstamp") == 0) {
		/* SOF_TIMESTAMPING_TX_SOFTWARE */
		r = send_with_control(fd, &d.ss, d.len, SOL_SOCKET, 37 /* SO_TIMESTAMPING */,
				      1U << 1, sizeof(unsigned int));
	} else if (strcmp(mode, "dontfrag") == 0) {
		r = send_with_control(fd, &d.ss, d.len, 41 /* IPPROTO_IPV6 */,
				      62 /* IPV6_DONTFRAG */, 1, sizeof(unsigned int));
	} else {
		close(fd);
		return -1;
	}
	{
		char extra[64];

		snprintf(extra, sizeof(extra), ",\"mode\":\"%s\"", mode);
		agent_log("sendmsg", strcmp(mode, "null") == 0 ? NULL : d.text, r, errno, extra);
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	static const char usage[] =
	    "{name|null|bad-family|short|creds|txtime|tstamp|dontfrag DEST | unix PATH}...";
	int i;

	agent_init("sendmsg-name");
	if (argc < 3 || argc % 2 == 0)
		return agent_usage(usage);
	/* Validate every pair first: bad arguments must not leave half a run. */
	for (i = 1; i + 1 < argc; i += 2) {
		struct agent_dest d;
		int is_unix = strcmp(argv[i], "unix") == 0;

		if (is_unix ? strlen(argv[i + 1]) >= sizeof(((struct sockaddr_un *)0)->sun_path)
			    : (strcmp(argv[i], "name") && strcmp(argv[i], "null") &&
			       strcmp(argv[i], "bad-family") && strcmp(argv[i], "short") &&
			       strcmp(argv[i], "creds") && strcmp(argv[i], "txtime") &&
			       strcmp(argv[i], "tstamp") && strcmp(argv[i], "dontfrag")) ||
				  agent_parse_dest(argv[i + 1], &d) < 0)
			return agent_usage(usage);
	}
	for (i = 1; i + 1 < argc; i += 2) {
		int rc = strcmp(argv[i], "unix") == 0 ? run_unix(argv[i + 1])
						      : run_inet(argv[i], argv[i + 1]);

		if (rc < 0)
			return agent_usage(usage);
	}
	return 0;
}
