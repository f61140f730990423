/* ha13-falsered: hostile review h-attack13, the other direction: calls the
 * fix of 7bd53db denies although the kernel would have done nothing with
 * them (no interface chosen, no helper started). Each is recorded as a
 * denial (bucket "denied"), so the verdict is fail for an agent that never
 * tried to leave. Modes (one per run):
 *
 *   unixdev     SO_BINDTODEVICE "lo" on an AF_UNIX socket (no route there)
 *   badfd       SO_BINDTODEVICE on descriptor 1000 (the kernel: EBADF)
 *   notsock     IP_UNICAST_IF on a pipe (the kernel: ENOTSOCK)
 *   unbind      SO_BINDTODEVICE "" (optlen 0) on a fresh UDP socket: the
 *               kernel's unbind, a no-op
 *   pktinfo0    sticky IPV6_PKTINFO of ifindex 0 and ::, a no-op
 *   keyexists   add_key("user", "ha13:k") into the session keyring, then
 *               request_key("user", "ha13:k", "x"): the key is found, no
 *               upcall
 *   keyfault    request_key(type = (char *)1, ..., "x"): EFAULT
 *   lopktinfo   sendmsg to 127.0.0.1:9 with IP_PKTINFO naming lo (the
 *               route's own interface; loopback allowed)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KEY_SPEC_SESSION_KEYRING -3

static void say(const char *what, long rc)
{
	printf("agent: %s = %ld (%s)\n", what, rc, rc < 0 ? strerror(errno) : "ok");
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	unsigned be = htonl(1);

	if (strcmp(m, "unixdev") == 0) {
		int s = socket(AF_UNIX, SOCK_DGRAM, 0);
		say("setsockopt(AF_UNIX, SO_BINDTODEVICE lo)",
		    setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, "lo", 2));
	} else if (strcmp(m, "badfd") == 0) {
		say("setsockopt(1000, SO_BINDTODEVICE lo)",
		    setsockopt(1000, SOL_SOCKET, SO_BINDTODEVICE, "lo", 2));
	} else if (strcmp(m, "notsock") == 0) {
		int p[2];

		if (pipe(p) != 0)
			return 1;
		say("setsockopt(pipe, IP_UNICAST_IF)",
		    setsockopt(p[0], IPPROTO_IP, IP_UNICAST_IF, &be, sizeof(be)));
	} else if (strcmp(m, "unbind") == 0) {
		int s = socket(AF_INET, SOCK_DGRAM, 0);
		say("setsockopt(udp, SO_BINDTODEVICE \"\")",
		    setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, "", 0));
	} else if (strcmp(m, "pktinfo0") == 0) {
		int s = socket(AF_INET6, SOCK_DGRAM, 0);
		struct in6_pktinfo pi = {.ipi6_ifindex = 0};
		say("setsockopt(udp6, IPV6_PKTINFO {::, 0})",
		    setsockopt(s, IPPROTO_IPV6, IPV6_PKTINFO, &pi, sizeof(pi)));
	} else if (strcmp(m, "keyexists") == 0) {
		long id = syscall(SYS_add_key, "user", "ha13:k", "v", 1, KEY_SPEC_SESSION_KEYRING);
		say("add_key(user, ha13:k)", id);
		say("request_key(user, ha13:k, callout x)",
		    syscall(SYS_request_key, "user", "ha13:k", "x", KEY_SPEC_SESSION_KEYRING));
		say("request_key(user, ha13:k, NULL)",
		    syscall(SYS_request_key, "user", "ha13:k", NULL, KEY_SPEC_SESSION_KEYRING));
	} else if (strcmp(m, "keyfault") == 0) {
		say("request_key((char *)1, ..., callout x)",
		    syscall(SYS_request_key, (char *)1, "d", "x", 0));
	} else if (strcmp(m, "lopktinfo") == 0) {
		int s = socket(AF_INET, SOCK_DGRAM, 0);
		struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(9)};
		union {
			char buf[CMSG_SPACE(sizeof(struct in_pktinfo))];
			struct cmsghdr align;
		} u;
		struct iovec iov = {.iov_base = "x", .iov_len = 1};
		struct msghdr mh = {.msg_name = &sin,
				    .msg_namelen = sizeof(sin),
				    .msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = u.buf,
				    .msg_controllen = sizeof(u.buf)};
		struct cmsghdr *c;
		struct in_pktinfo pi = {.ipi_ifindex = (int)if_nametoindex("lo")};

		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		memset(u.buf, 0, sizeof(u.buf));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = IPPROTO_IP;
		c->cmsg_type = IP_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
		say("sendmsg(127.0.0.1:9, IP_PKTINFO lo)", sendmsg(s, &mh, 0));
	} else {
		fprintf(stderr, "usage: ha13-falsered MODE\n");
		return 2;
	}
	return 0;
}
