/* ha62-v6svc: review h-attack62's root service for target 3 (the batch
 * reset's route lines): IPv6 state with lifetimes, metrics and ECMP on lo,
 * IPv6 traffic, then waits for the cell's end, so the reset meets routes
 * that expire around it. ECMP on lo is refused (no gateway on lo is
 * reachable): those two steps print their errno. Each step prints "ha62 STEP: errno name" (0 when
 * done). ha62-v6svc */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int nl;
static char buf[1024] __attribute__((aligned(4)));

static struct nlmsghdr *start(int type, int flags, size_t len)
{
	struct nlmsghdr *h = (struct nlmsghdr *)buf;

	memset(buf, 0, sizeof(buf));
	h->nlmsg_type = (unsigned short)type;
	h->nlmsg_flags = (unsigned short)(NLM_F_REQUEST | NLM_F_ACK | flags);
	h->nlmsg_len = (unsigned)NLMSG_LENGTH(len);
	return h;
}

static struct rtattr *put(struct nlmsghdr *h, int type, const void *d, size_t n)
{
	struct rtattr *a = (struct rtattr *)(buf + NLMSG_ALIGN(h->nlmsg_len));

	a->rta_type = (unsigned short)type;
	a->rta_len = (unsigned short)RTA_LENGTH(n);
	if (n)
		memcpy(RTA_DATA(a), d, n);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + RTA_ALIGN(a->rta_len);
	return a;
}

static void talk(const char *what, struct nlmsghdr *h)
{
	char r[512];
	int e = 0;

	if (send(nl, h, h->nlmsg_len, 0) < 0)
		e = errno;
	else if (recv(nl, r, sizeof(r), 0) > 0 && ((struct nlmsghdr *)r)->nlmsg_type == NLMSG_ERROR)
		e = -((struct nlmsgerr *)NLMSG_DATA((struct nlmsghdr *)r))->error;
	printf("ha62 %s: %s\n", what, e ? strerror(e) : "0");
}

static void addr(const char *a, int plen, unsigned valid, unsigned pref)
{
	struct nlmsghdr *h =
	    start(RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, sizeof(struct ifaddrmsg));
	struct ifaddrmsg *m = NLMSG_DATA(h);
	struct ifa_cacheinfo ci = {.ifa_prefered = pref, .ifa_valid = valid};
	struct in6_addr x;

	m->ifa_family = AF_INET6;
	m->ifa_prefixlen = (unsigned char)plen;
	m->ifa_index = if_nametoindex("lo");
	inet_pton(AF_INET6, a, &x);
	put(h, IFA_LOCAL, &x, 16);
	put(h, IFA_CACHEINFO, &ci, sizeof(ci));
	talk(a, h);
}

/* 2001:db8:NN::/64 dev lo, metric 7, an expiry, an MTU; two nexthops when
 * ecmp (gateways on lo's own prefix). */
static void route(const char *what, const char *dst, unsigned expires, int ecmp)
{
	struct nlmsghdr *h = start(RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, sizeof(struct rtmsg));
	struct rtmsg *m = NLMSG_DATA(h);
	struct in6_addr x;
	unsigned metric = 7, oif = if_nametoindex("lo"), mtu = 1300;
	struct rtattr *mx;

	m->rtm_family = AF_INET6;
	m->rtm_dst_len = 64;
	m->rtm_table = RT_TABLE_MAIN;
	m->rtm_protocol = RTPROT_STATIC;
	m->rtm_scope = RT_SCOPE_UNIVERSE;
	m->rtm_type = RTN_UNICAST;
	inet_pton(AF_INET6, dst, &x);
	put(h, RTA_DST, &x, 16);
	put(h, RTA_PRIORITY, &metric, 4);
	if (expires)
		put(h, RTA_EXPIRES, &expires, 4);
	mx = put(h, RTA_METRICS, NULL, 0);
	put(h, RTAX_MTU, &mtu, 4);
	mx->rta_len = (unsigned short)(buf + h->nlmsg_len - (char *)mx);
	if (!ecmp) {
		put(h, RTA_OIF, &oif, 4);
	} else {
		struct rtattr *mp = put(h, RTA_MULTIPATH, NULL, 0);
		const char *gw[2] = {"2001:db8:62::2", "2001:db8:62::3"};

		for (int i = 0; i < 2; i++) {
			struct rtnexthop *nh = (struct rtnexthop *)(buf + h->nlmsg_len);

			h->nlmsg_len += RTNH_ALIGN(sizeof(*nh));
			nh->rtnh_ifindex = (int)oif;
			nh->rtnh_hops = (unsigned char)(i * 2);
			inet_pton(AF_INET6, gw[i], &x);
			put(h, RTA_GATEWAY, &x, 16);
			nh->rtnh_len = (unsigned short)(buf + h->nlmsg_len - (char *)nh);
		}
		mp->rta_len = (unsigned short)(buf + h->nlmsg_len - (char *)mp);
	}
	talk(what, h);
}

static void traffic(const char *to)
{
	struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(9)};
	int s = socket(AF_INET6, SOCK_DGRAM, 0), sent = 0;
	char p[1400] = {0};

	inet_pton(AF_INET6, to, &a.sin6_addr);
	for (int i = 0; i < 200; i++)
		if (sendto(s, p, (size_t)(100 + i * 6), 0, (struct sockaddr *)&a, sizeof(a)) > 0)
			sent++;
	printf("ha62 traffic %s: %d sent\n", to, sent);
	close(s);
}

int main(void)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};

	setvbuf(stdout, NULL, _IOLBF, 0);
	nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (nl < 0 || bind(nl, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		return 1;
	addr("2001:db8:62::1", 64, 4, 2); /* prefix route with an expiry */
	addr("2001:db8:63::1", 128, 0xffffffffu, 0xffffffffu);
	route("route expires", "2001:db8:64::", 3, 0);
	route("route ecmp", "2001:db8:65::", 0, 1);
	route("route ecmp expires", "2001:db8:66::", 2, 1);
	traffic("::1");
	traffic("2001:db8:62::1");
	traffic("2001:db8:64::9");
	traffic("2001:db8:65::9");
	/* A service runs on; the cell's end stops it. */
	for (;;)
		pause();
}
