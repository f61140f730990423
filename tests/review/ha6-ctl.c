/*
 * ha6-ctl: control data the supervisor forwards unchanged on a socket that
 * is not AF_UNIX (review h-attack6 of d71feec). Each mode prints what the
 * call answered and, where a peer exists, what the peer received, so an
 * unsupervised and a supervised run can be compared line by line.
 *   nl-rights     NETLINK_ROUTE socket, unnamed sendmsg of an RTM_GETLINK
 *                 dump request with SCM_RIGHTS naming descriptors 3..40
 *                 (closed in the agent, open in the supervisor: its
 *                 listener, report, pidfds). Only AF_UNIX takes
 *                 descriptors (__scm_send); netlink must answer EINVAL
 *                 and no reply may come.
 *   nl-creds      the same with SCM_CREDENTIALS (pid 1, uid 0): checked
 *                 against the sender's credentials, which would be the
 *                 supervisor's; must be refused (control-message).
 *   unix-supfd    AF_UNIX datagram socketpair, sendmsg with SCM_RIGHTS of
 *                 descriptor 3..40 one at a time (closed in the agent):
 *                 EBADF each, and the peer must never receive a descriptor
 *                 (it would be the supervisor's).
 *   unix-mmsg     sendmmsg on the socketpair: message 0 passes the agent's
 *                 stdout, message 1 has 254 descriptors (AF_UNIX's EINVAL),
 *                 message 2 is plain: the kernel answers 1.
 *   udp-mixed     UDP to OK: SCM_RIGHTS (descriptor 3, closed) then
 *                 IP_TTL in the same control buffer, then a second message
 *                 to BAD: 2 unsupervised; supervised the second is denied.
 *
 *   ro-vector     sendmmsg to OK with the mmsghdr vector on a read-only
 *                 page: the kernel sends message 0, cannot write its
 *                 msg_len and answers EFAULT (__sys_sendmmsg: sent, not
 *                 counted). The record must still say message 0 was sent.
 *
 *     ha6-ctl MODE [OK BAD]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define NFDS 254

static void parse(const char *s, struct sockaddr_in *a)
{
	char host[64];
	const char *colon = strrchr(s, ':');

	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	snprintf(host, sizeof(host), "%.*s", (int)(colon - s), s);
	inet_pton(AF_INET, host, &a->sin_addr);
	a->sin_port = htons((unsigned short)atoi(colon + 1));
}

/* A control buffer in the kernel's x86_64 layout, sent with the raw call
 * (musl's sendmsg caps control at 1024 bytes). */
static long raw_sendmsg(int fd, struct msghdr *m, int flags)
{
	return syscall(SYS_sendmsg, fd, m, flags);
}

static int peer_got_fd(int peer)
{
	char data[8], cbuf[CMSG_SPACE(sizeof(int) * 8)];
	struct iovec iov = {data, sizeof(data)};
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	long n = recvmsg(peer, &m, MSG_DONTWAIT);

	if (n < 0)
		return -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			return 1;
	return 0;
}

static int nl(int creds)
{
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
	} req = {.h = {.nlmsg_len = sizeof(req),
		       .nlmsg_type = RTM_GETLINK,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		       .nlmsg_seq = 1}};
	union {
		struct cmsghdr c;
		char b[CMSG_SPACE(sizeof(int) * 38)];
	} u;
	struct iovec iov = {&req, sizeof(req)};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b};
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	char reply[8192];
	long n;

	if (s < 0) {
		printf("socket: %s\n", strerror(errno));
		return 1;
	}
	memset(&u, 0, sizeof(u));
	u.c.cmsg_level = SOL_SOCKET;
	if (creds) {
		struct ucred cr = {.pid = 1, .uid = 0, .gid = 0};

		u.c.cmsg_type = SCM_CREDENTIALS;
		u.c.cmsg_len = CMSG_LEN(sizeof(cr));
		memcpy(CMSG_DATA(&u.c), &cr, sizeof(cr));
		m.msg_controllen = CMSG_SPACE(sizeof(cr));
	} else {
		int *fds = (int *)CMSG_DATA(&u.c);

		u.c.cmsg_type = SCM_RIGHTS;
		u.c.cmsg_len = CMSG_LEN(sizeof(int) * 38);
		for (int i = 0; i < 38; i++)
			fds[i] = 3 + i;
		m.msg_controllen = CMSG_SPACE(sizeof(int) * 38);
	}
	n = raw_sendmsg(s, &m, 0);
	printf("sendmsg: %ld %s\n", n, n < 0 ? strerror(errno) : "");
	n = recv(s, reply, sizeof(reply), MSG_DONTWAIT);
	printf("reply: %s\n", n > 0 ? "yes" : "none");
	return 0;
}

static int unix_supfd(void)
{
	int sv[2], leaks = 0, badf = 0, other = 0;
	char one = 'x';

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) != 0)
		return 1;
	/* The pair took 3 and 4 in the agent: name 5..40, all closed here. */
	for (int fd = 5; fd <= 40; fd++) {
		union {
			struct cmsghdr c;
			char b[CMSG_SPACE(sizeof(int))];
		} u;
		struct iovec iov = {&one, 1};
		struct msghdr m = {.msg_iov = &iov,
				   .msg_iovlen = 1,
				   .msg_control = u.b,
				   .msg_controllen = sizeof(u.b)};
		long n;

		memset(&u, 0, sizeof(u));
		u.c.cmsg_level = SOL_SOCKET;
		u.c.cmsg_type = SCM_RIGHTS;
		u.c.cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(&u.c), &fd, sizeof(fd));
		n = raw_sendmsg(sv[0], &m, 0);
		if (n < 0 && errno == EBADF)
			badf++;
		else
			other++;
		if (peer_got_fd(sv[1]) == 1)
			leaks++;
	}
	printf("badf %d other %d leaked %d\n", badf, other, leaks);
	return 0;
}

static int unix_mmsg(void)
{
	int sv[2];
	char one = 'x';
	static union {
		struct cmsghdr c;
		char b[CMSG_SPACE(sizeof(int) * NFDS)];
	} many;
	union {
		struct cmsghdr c;
		char b[CMSG_SPACE(sizeof(int))];
	} single;
	struct iovec iov = {&one, 1};
	struct mmsghdr mm[3];
	int fd1 = 1;
	int got = 0, r;

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) != 0)
		return 1;
	memset(mm, 0, sizeof(mm));
	memset(&single, 0, sizeof(single));
	single.c.cmsg_level = SOL_SOCKET;
	single.c.cmsg_type = SCM_RIGHTS;
	single.c.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&single.c), &fd1, sizeof(fd1));
	many.c.cmsg_level = SOL_SOCKET;
	many.c.cmsg_type = SCM_RIGHTS;
	many.c.cmsg_len = CMSG_LEN(sizeof(int) * NFDS);
	for (int i = 0; i < NFDS; i++)
		((int *)CMSG_DATA(&many.c))[i] = 1;
	for (int i = 0; i < 3; i++) {
		mm[i].msg_hdr.msg_iov = &iov;
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	mm[0].msg_hdr.msg_control = single.b;
	mm[0].msg_hdr.msg_controllen = sizeof(single.b);
	mm[1].msg_hdr.msg_control = many.b;
	mm[1].msg_hdr.msg_controllen = sizeof(many.b);
	r = (int)syscall(SYS_sendmmsg, sv[0], mm, 3, 0);
	printf("sendmmsg: %d %s len0 %u\n", r, r < 0 ? strerror(errno) : "", mm[0].msg_len);
	while (peer_got_fd(sv[1]) >= 0)
		got++;
	printf("peer datagrams %d\n", got);
	return 0;
}

static int udp_mixed(const char *ok, const char *bad)
{
	struct sockaddr_in a[2];
	union {
		struct cmsghdr c;
		char b[CMSG_SPACE(sizeof(int)) * 2];
	} u;
	struct cmsghdr *c2;
	struct iovec iov = {"x", 1};
	struct mmsghdr mm[2];
	int s = socket(AF_INET, SOCK_DGRAM, 0), three = 3, ttl = 9, r;

	parse(ok, &a[0]);
	parse(bad, &a[1]);
	memset(&u, 0, sizeof(u));
	u.c.cmsg_level = SOL_SOCKET;
	u.c.cmsg_type = SCM_RIGHTS;
	u.c.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&u.c), &three, sizeof(three));
	c2 = (struct cmsghdr *)(u.b + CMSG_SPACE(sizeof(int)));
	c2->cmsg_level = IPPROTO_IP;
	c2->cmsg_type = IP_TTL;
	c2->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c2), &ttl, sizeof(ttl));
	memset(mm, 0, sizeof(mm));
	for (int i = 0; i < 2; i++) {
		mm[i].msg_hdr.msg_name = &a[i];
		mm[i].msg_hdr.msg_namelen = sizeof(a[i]);
		mm[i].msg_hdr.msg_iov = &iov;
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	mm[0].msg_hdr.msg_control = u.b;
	mm[0].msg_hdr.msg_controllen = sizeof(u.b);
	r = (int)syscall(SYS_sendmmsg, s, mm, 2, 0);
	printf("sendmmsg: %d %s\n", r, r < 0 ? strerror(errno) : "");
	return 0;
}

static int ro_vector(const char *ok)
{
	static struct sockaddr_in a;
	static struct iovec iov = {"x", 1};
	struct mmsghdr *mm =
	    mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int s = socket(AF_INET, SOCK_DGRAM, 0), r;

	parse(ok, &a);
	memset(mm, 0, sizeof(*mm));
	mm->msg_hdr.msg_name = &a;
	mm->msg_hdr.msg_namelen = sizeof(a);
	mm->msg_hdr.msg_iov = &iov;
	mm->msg_hdr.msg_iovlen = 1;
	mprotect(mm, 4096, PROT_READ);
	r = (int)syscall(SYS_sendmmsg, s, mm, 1, 0);
	printf("sendmmsg: %d %s\n", r, r < 0 ? strerror(errno) : "");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (strcmp(argv[1], "nl-rights") == 0)
		return nl(0);
	if (strcmp(argv[1], "nl-creds") == 0)
		return nl(1);
	if (strcmp(argv[1], "unix-supfd") == 0)
		return unix_supfd();
	if (strcmp(argv[1], "unix-mmsg") == 0)
		return unix_mmsg();
	if (strcmp(argv[1], "udp-mixed") == 0 && argc == 4)
		return udp_mixed(argv[2], argv[3]);
	if (strcmp(argv[1], "ro-vector") == 0 && argc >= 3)
		return ro_vector(argv[2]);
	return 2;
}
