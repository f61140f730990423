/*
 * egress-reset's network state (reset.h): what `ip -o link`, `ip -o addr`,
 * `ip route show table all`, `ip rule` and `ip neigh` (IPv4 and IPv6)
 * showed, read from rtnetlink in this process instead of busybox processes.
 * Attributes are kept by an allow-list: what ip prints (flags, MTU, queue,
 * state, addresses, routes' table, protocol, scope, type, gateway, device,
 * metric, preferred source, metrics, a neighbour's address and link-layer
 * address), never counters, lifetimes or cache data; a rule has none of
 * those, so every attribute of a rule is kept.
 */
#include "reset.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/fib_rules.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/nexthop.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

struct nl_req {
	struct nlmsghdr nh;
	union {
		struct ifinfomsg ifi;
		struct ifaddrmsg ifa;
		struct rtmsg rtm;
		struct ndmsg ndm;
		struct nhmsg nhm;
		struct tcmsg tcm;
	} u;
};

/* The proxy neighbour dump: RTM_GETNEIGH whose ndmsg asks for NTF_PROXY
 * (the plain dump never lists them). Its own type here, so the table of
 * dumps below can name it. */
#define RS_GETNEIGH_PROXY (-RTM_GETNEIGH)

/* Sends REQ and appends every reply message (until NLMSG_DONE or the ack)
 * to RAW. */
static int nl_talk(int fd, struct nlmsghdr *req, struct rs_buf *raw)
{
	static unsigned seq;
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};

	req->nlmsg_seq = ++seq;
	if (sendto(fd, req, req->nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	static char msgs[32768] __attribute__((aligned(NLMSG_ALIGNTO)));

	for (;;) {
		ssize_t n = recv(fd, msgs, sizeof(msgs), 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)msgs; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != req->nlmsg_seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				return e->error;
			}
			if (raw)
				rs_buf_add(raw, (const char *)h, NLMSG_ALIGN(h->nlmsg_len));
		}
	}
}

static int nl_dump(int fd, int type, int family, struct rs_buf *raw)
{
	struct nl_req req;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_type = (unsigned short)type;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	if (type == RTM_GETLINK) {
		req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.u.ifi));
		req.u.ifi.ifi_family = (unsigned char)family;
	} else if (type == RTM_GETADDR) {
		req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.u.ifa));
		req.u.ifa.ifa_family = (unsigned char)family;
	} else if (type == RS_GETNEIGH_PROXY) {
		req.nh.nlmsg_type = RTM_GETNEIGH;
		req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.u.ndm));
		req.u.ndm.ndm_family = (unsigned char)family;
		req.u.ndm.ndm_flags = NTF_PROXY;
	} else if (type == RTM_GETQDISC) {
		req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.u.tcm));
		req.u.tcm.tcm_family = (unsigned char)family;
	} else if (type == RTM_GETNEXTHOP) {
		req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.u.nhm));
		req.u.nhm.nh_family = (unsigned char)family;
	} else {
		req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.u.rtm));
		req.u.rtm.rtm_family = (unsigned char)family;
	}
	return nl_talk(fd, &req.nh, raw);
}

static bool kept(unsigned short type, const unsigned short *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == type)
			return true;
	return false;
}

/* " T=HEX" for each attribute in KEEP; addresses, and the attributes
 * STRINGS names (a name, a label, a qdisc), as text. */
static void attrs(struct rs_buf *out, int family, struct rtattr *a, int len,
		  const unsigned short *keep, size_t nkeep, const unsigned short *addrs,
		  size_t naddrs, const unsigned short strings[2])
{
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		unsigned short t = a->rta_type & NLA_TYPE_MASK;
		const unsigned char *d = RTA_DATA(a);
		size_t n = RTA_PAYLOAD(a);
		char text[INET6_ADDRSTRLEN];

		if (keep && !kept(t, keep, nkeep))
			continue;
		rs_buf_printf(out, " %u=", t);
		if ((t == strings[0] || t == strings[1]) && n > 0 && memchr(d, '\0', n)) {
			rs_buf_printf(out, "%s", (const char *)d);
			continue;
		}
		if (kept(t, addrs, naddrs) &&
		    ((family == AF_INET && n == 4) || (family == AF_INET6 && n == 16)) &&
		    inet_ntop(family, d, text, sizeof(text))) {
			rs_buf_printf(out, "%s", text);
			continue;
		}
		for (size_t i = 0; i < n; i++)
			rs_buf_printf(out, "%02x", d[i]);
	}
}

/* attrs() for a route: every attribute but route_skip's, and only the
 * presence of route_present's. */
static void route_attrs(struct rs_buf *out, int family, struct rtattr *a, int len);

static const unsigned short link_keep[] = {
    IFLA_ADDRESS, IFLA_BROADCAST, IFLA_IFNAME,    IFLA_MTU,      IFLA_LINK,  IFLA_QDISC,
    IFLA_MASTER,  IFLA_TXQLEN,    IFLA_OPERSTATE, IFLA_LINKMODE, IFLA_GROUP, IFLA_PROMISCUITY,
};
static const unsigned short addr_keep[] = {IFA_ADDRESS,   IFA_LOCAL,   IFA_LABEL,
					   IFA_BROADCAST, IFA_ANYCAST, IFA_FLAGS};
static const unsigned short addr_addrs[] = {IFA_ADDRESS, IFA_LOCAL, IFA_BROADCAST, IFA_ANYCAST};
/* A route keeps every attribute but the kernel's own counters and clocks
 * (RTA_CACHEINFO; RTA_EXPIRES by its presence only): an allow-list left out
 * RTA_ENCAP, and a boot route replaced with a seg6 encapsulation to an
 * address a cell chose (RTA_ENCAP_TYPE, RTA_ENCAP) read as the boot's, so
 * the next cell's loopback traffic left lo wrapped for it (review
 * h-attack60 finding 2); RTA_VIA and RTA_FLOW likewise. */
static const unsigned short route_skip[] = {RTA_CACHEINFO};
static const unsigned short route_present[] = {RTA_EXPIRES};
static const unsigned short link_strings[2] = {IFLA_IFNAME, IFLA_QDISC};
static const unsigned short addr_strings[2] = {IFA_LABEL, IFA_LABEL};
static const unsigned short no_strings[2] = {0xffff, 0xffff};
static const unsigned short route_addrs[] = {RTA_DST, RTA_SRC, RTA_GATEWAY, RTA_PREFSRC};
static const unsigned short rule_addrs[] = {FRA_DST, FRA_SRC};

static void route_attrs(struct rs_buf *out, int family, struct rtattr *a, int len)
{
#ifdef GUEST_MUTANT_ROUTE_ALLOWLIST
	/* GUEST_MUTANT_ROUTE_ALLOWLIST: the allow-list before review
	 * h-attack60 (initramfs/tests/test_reset_net.py). */
	static const unsigned short keep[] = {RTA_DST,       RTA_SRC,      RTA_IIF,     RTA_OIF,
					      RTA_GATEWAY,   RTA_PRIORITY, RTA_PREFSRC, RTA_METRICS,
					      RTA_MULTIPATH, RTA_TABLE,    RTA_PREF};

	attrs(out, family, a, len, keep, sizeof(keep) / sizeof(keep[0]), route_addrs,
	      sizeof(route_addrs) / sizeof(route_addrs[0]), no_strings);
	return;
#endif
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		unsigned short t = a->rta_type & NLA_TYPE_MASK;

		if (kept(t, route_skip, sizeof(route_skip) / sizeof(route_skip[0])))
			continue;
		if (kept(t, route_present, sizeof(route_present) / sizeof(route_present[0]))) {
			rs_buf_printf(out, " %u=present", t);
			continue;
		}
		/* One attribute at a time through attrs, so addresses read
		 * as ip shows them. */
		attrs(out, family, a, (int)RTA_ALIGN(a->rta_len), NULL, 0, route_addrs,
		      sizeof(route_addrs) / sizeof(route_addrs[0]), no_strings);
	}
}
static const unsigned short neigh_keep[] = {NDA_DST, NDA_LLADDR};
static const unsigned short neigh_addrs[] = {NDA_DST};
static const unsigned short rule_strings[2] = {FRA_IIFNAME, FRA_OIFNAME};
static const unsigned short qdisc_keep[] = {TCA_KIND, TCA_OPTIONS};
static const unsigned short qdisc_strings[2] = {TCA_KIND, TCA_KIND};

/*
 * The kernel's own neighbour entry of a NOARP link (lo: one entry for
 * every IPv4 destination, made on demand with an all-zero address, as in a
 * fresh boot after its first packet): not state a cell left. Any other
 * entry on lo is (review h-isolate: one permanent entry with another
 * address made every later loopback connect, IPv4 or IPv6, time out: the
 * frame is then for another host).
 */
static bool own_neigh(const struct nlmsghdr *h)
{
	const struct ndmsg *n = NLMSG_DATA(h);
	struct rtattr *a = (struct rtattr *)((char *)n + NLMSG_ALIGN(sizeof(*n)));
	int len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*n)));

	if (h->nlmsg_type != RTM_NEWNEIGH || !(n->ndm_state & NUD_NOARP))
		return false;
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type != NDA_LLADDR)
			continue;
		for (size_t i = 0; i < RTA_PAYLOAD(a); i++)
			if (((const unsigned char *)RTA_DATA(a))[i])
				return false;
	}
	return true;
}

/* One line for message H. */
static void format_msg(struct rs_buf *out, const struct nlmsghdr *h)
{
	if (h->nlmsg_type == RTM_NEWLINK) {
		const struct ifinfomsg *i = NLMSG_DATA(h);

		rs_buf_printf(out, "link %d type=%u flags=%x", i->ifi_index, i->ifi_type,
			      i->ifi_flags);
		attrs(out, AF_UNSPEC, IFLA_RTA(i), (int)IFLA_PAYLOAD(h), link_keep,
		      sizeof(link_keep) / sizeof(link_keep[0]), NULL, 0, link_strings);
	} else if (h->nlmsg_type == RTM_NEWADDR) {
		const struct ifaddrmsg *a = NLMSG_DATA(h);

		rs_buf_printf(out, "addr %u family=%u prefix=%u flags=%x scope=%u", a->ifa_index,
			      a->ifa_family, a->ifa_prefixlen, a->ifa_flags, a->ifa_scope);
		attrs(out, a->ifa_family, IFA_RTA(a), (int)IFA_PAYLOAD(h), addr_keep,
		      sizeof(addr_keep) / sizeof(addr_keep[0]), addr_addrs,
		      sizeof(addr_addrs) / sizeof(addr_addrs[0]), addr_strings);
	} else if (h->nlmsg_type == RTM_NEWROUTE) {
		const struct rtmsg *r = NLMSG_DATA(h);

		rs_buf_printf(out,
			      "route family=%u dst/%u src/%u tos=%u table=%u proto=%u scope=%u "
			      "type=%u flags=%x",
			      r->rtm_family, r->rtm_dst_len, r->rtm_src_len, r->rtm_tos,
			      r->rtm_table, r->rtm_protocol, r->rtm_scope, r->rtm_type,
			      r->rtm_flags);
		route_attrs(out, r->rtm_family, RTM_RTA(r), (int)RTM_PAYLOAD(h));
	} else if (h->nlmsg_type == RTM_NEWRULE) {
		const struct fib_rule_hdr *r = NLMSG_DATA(h);

		/* A rule outlives the cell that made it (an `ip rule` of a
		 * policy-routing supervisor) and decides every later lookup. */
		rs_buf_printf(
		    out, "rule family=%u dst/%u src/%u tos=%u table=%u action=%u flags=%x",
		    r->family, r->dst_len, r->src_len, r->tos, r->table, r->action, r->flags);
		attrs(out, r->family, (struct rtattr *)((char *)r + NLMSG_ALIGN(sizeof(*r))),
		      (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*r))), NULL, 0, rule_addrs,
		      sizeof(rule_addrs) / sizeof(rule_addrs[0]), rule_strings);
	} else if (h->nlmsg_type == RTM_NEWNEIGH) {
		const struct ndmsg *n = NLMSG_DATA(h);

		rs_buf_printf(out, "neigh family=%u ifindex=%d state=%x flags=%x type=%u",
			      n->ndm_family, n->ndm_ifindex, n->ndm_state, n->ndm_flags,
			      n->ndm_type);
		attrs(out, n->ndm_family, (struct rtattr *)((char *)n + NLMSG_ALIGN(sizeof(*n))),
		      (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*n))), neigh_keep,
		      sizeof(neigh_keep) / sizeof(neigh_keep[0]), neigh_addrs,
		      sizeof(neigh_addrs) / sizeof(neigh_addrs[0]), no_strings);
	} else if (h->nlmsg_type == RTM_NEWQDISC) {
		const struct tcmsg *t = NLMSG_DATA(h);

		/* A qdisc outlives its cell: a clsact one (no IFLA_QDISC
		 * change: it is not the root) holds the filters and actions
		 * that rewrite a later cell's packets (netlink-deputy). Kind
		 * and options, not statistics. */
		rs_buf_printf(out, "qdisc ifindex=%d handle=%x parent=%x", t->tcm_ifindex,
			      t->tcm_handle, t->tcm_parent);
		attrs(out, AF_UNSPEC, (struct rtattr *)((char *)t + NLMSG_ALIGN(sizeof(*t))),
		      (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*t))), qdisc_keep,
		      sizeof(qdisc_keep) / sizeof(qdisc_keep[0]), NULL, 0, qdisc_strings);
	} else if (h->nlmsg_type == RTM_NEWNEXTHOP) {
		const struct nhmsg *n = NLMSG_DATA(h);

		/* Every attribute (id, device, gateway, group, blackhole): no
		 * repair undoes one, so any left is a fail. */
		rs_buf_printf(out, "nexthop family=%u scope=%u protocol=%u flags=%x", n->nh_family,
			      n->nh_scope, n->nh_protocol, n->nh_flags);
		attrs(out, n->nh_family, (struct rtattr *)((char *)n + NLMSG_ALIGN(sizeof(*n))),
		      (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*n))), NULL, 0, NULL, 0, no_strings);
	} else {
		rs_buf_printf(out, "message type=%u", h->nlmsg_type);
	}
	rs_buf_add(out, "\n", 1);
}

static int nl_open(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	return fd < 0 ? -errno : fd;
}

/* The raw dumps: links, addresses (both families), routes (both), rules
 * (both), neighbours (both), proxy neighbours (both: a proxy entry answers
 * for an address on the link, and an IPv6 one joins lo to a multicast
 * group; review h-attack46), nexthop objects (routes may name them) and
 * qdiscs of every link (a clsact qdisc holds filters and actions). A
 * dump this kernel does not have (a tinyconfig kernel without IPv6 or
 * CONFIG_IP_MULTIPLE_TABLES, a kernel before 5.3 for nexthops: EOPNOTSUPP
 * or EAFNOSUPPORT) is a line of its own in OUT, so the boot's answer is
 * compared like any state; every other error fails the snapshot. */
static int dump_all(int fd, struct rs_buf *raw, struct rs_buf *out)
{
	static const struct {
		int type, family;
	} dumps[] = {
	    {RTM_GETLINK, AF_UNSPEC},
	    {RTM_GETADDR, AF_UNSPEC},
	    {RTM_GETROUTE, AF_INET},
	    {RTM_GETROUTE, AF_INET6},
	    {RTM_GETRULE, AF_INET},
	    {RTM_GETRULE, AF_INET6},
	    {RTM_GETNEIGH, AF_INET},
	    {RTM_GETNEIGH, AF_INET6},
#ifndef GUEST_MUTANT_NET_PROXY_BLIND
	    /* GUEST_MUTANT_NET_PROXY_BLIND: neither dump, as before review
	     * h-attack46 (initramfs/tests/test_reset_net.py). */
	    {RS_GETNEIGH_PROXY, AF_INET},
	    {RS_GETNEIGH_PROXY, AF_INET6},
	    {RTM_GETNEXTHOP, AF_UNSPEC},
#endif
#ifndef GUEST_MUTANT_QDISC_BLIND
	    /* GUEST_MUTANT_QDISC_BLIND: no qdisc dump, as before
	     * (initramfs/tests/test_reset_net.py). */
	    {RTM_GETQDISC, AF_UNSPEC},
#endif
	};
	int err = 0;

	for (size_t i = 0; !err && i < sizeof(dumps) / sizeof(dumps[0]); i++) {
		err = nl_dump(fd, dumps[i].type, dumps[i].family, raw);
		if (err == -EOPNOTSUPP || err == -EAFNOSUPPORT) {
			rs_buf_printf(out, "unsupported dump type=%d family=%d\n", dumps[i].type,
				      dumps[i].family);
			err = 0;
		}
	}
	return err;
}

int rs_net_snapshot(struct rs_buf *out)
{
	int fd = nl_open();

	if (fd < 0)
		return fd;
	struct rs_buf raw = {0};
	int err = dump_all(fd, &raw, out);

	close(fd);
	for (size_t off = 0; !err && off < raw.len;) {
		const struct nlmsghdr *h = (const struct nlmsghdr *)(raw.p + off);

		if (!own_neigh(h))
			format_msg(out, h);
		off += NLMSG_ALIGN(h->nlmsg_len);
	}
	rs_buf_free(&raw);
	if (!err)
		rs_lines_sort(out);
	return err;
}

/* The value of " TAG=" in line L (length n) up to the next space. */
static bool field(const char *l, size_t n, const char *tag, const char **v, size_t *vn)
{
	size_t tl = strlen(tag);

	for (size_t i = 0; i + tl <= n; i++) {
		if (memcmp(l + i, tag, tl) != 0)
			continue;
		*v = l + i + tl;
		*vn = 0;
		while (i + tl + *vn < n && (*v)[*vn] != ' ')
			(*vn)++;
		return true;
	}
	return false;
}

/* A link is BASE's when a base line has its index and its name. */
static bool link_in_base(const char *base, size_t baselen, const char *l, size_t n)
{
	const char *idx, *name, *bidx, *bname;
	size_t idxn, namen, bidxn, bnamen;

	if (!field(l, n, "link ", &idx, &idxn) || !field(l, n, " 3=", &name, &namen))
		return false;
	for (size_t off = 0; off < baselen;) {
		const char *nl = memchr(base + off, '\n', baselen - off);
		size_t end = nl ? (size_t)(nl - base) : baselen;
		const char *b = base + off;
		size_t bn = end - off;

		off = end + 1;
		if (bn > 5 && memcmp(b, "link ", 5) == 0 && field(b, bn, "link ", &bidx, &bidxn) &&
		    field(b, bn, " 3=", &bname, &bnamen) && bidxn == idxn && bnamen == namen &&
		    memcmp(bidx, idx, idxn) == 0 && memcmp(bname, name, namen) == 0)
			return true;
	}
	return false;
}

/* A delete request for the link or address H describes: the index, and for
 * an address its family, prefix and address attributes. */
static int nl_delete(int fd, const struct nlmsghdr *h)
{
	struct {
		struct nl_req r;
		char attrs[64];
	} req;

	memset(&req, 0, sizeof(req));
	if (h->nlmsg_type == RTM_NEWRULE || h->nlmsg_type == RTM_NEWNEIGH ||
	    h->nlmsg_type == RTM_NEWROUTE) {
		/* The rule, entry or route as dumped, every attribute: what
		 * `ip rule flush` and `ip route flush` send back
		 * (fib_nl_delrule matches on all of them; neigh_delete on the
		 * family, link and NDA_DST; a route on its table, prefix,
		 * type, scope, protocol, metric, device and gateway). */
		static char rule[1024] __attribute__((aligned(NLMSG_ALIGNTO)));
		struct nlmsghdr *d = (struct nlmsghdr *)rule;

		if (h->nlmsg_len > sizeof(rule))
			return -E2BIG;
		memcpy(rule, h, h->nlmsg_len);
		d->nlmsg_type = h->nlmsg_type == RTM_NEWRULE    ? RTM_DELRULE
				: h->nlmsg_type == RTM_NEWNEIGH ? RTM_DELNEIGH
								: RTM_DELROUTE;
		d->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
		return nl_talk(fd, d, NULL);
	}
	req.r.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	if (h->nlmsg_type == RTM_NEWQDISC) {
		/* By link, parent and handle (tc_get_qdisc); the filters and
		 * actions on it go with it. */
		const struct tcmsg *t = NLMSG_DATA(h);

		req.r.nh.nlmsg_type = RTM_DELQDISC;
		req.r.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.r.u.tcm));
		req.r.u.tcm.tcm_family = AF_UNSPEC;
		req.r.u.tcm.tcm_ifindex = t->tcm_ifindex;
		req.r.u.tcm.tcm_parent = t->tcm_parent;
		req.r.u.tcm.tcm_handle = t->tcm_handle;
		return nl_talk(fd, &req.r.nh, NULL);
	}
	if (h->nlmsg_type == RTM_NEWLINK) {
		const struct ifinfomsg *i = NLMSG_DATA(h);

		req.r.nh.nlmsg_type = RTM_DELLINK;
		req.r.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.r.u.ifi));
		req.r.u.ifi.ifi_index = i->ifi_index;
		return nl_talk(fd, &req.r.nh, NULL);
	}
	const struct ifaddrmsg *a = NLMSG_DATA(h);
	struct rtattr *at = IFA_RTA(a);
	int len = (int)IFA_PAYLOAD(h);

	req.r.nh.nlmsg_type = RTM_DELADDR;
	req.r.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.r.u.ifa));
	req.r.u.ifa = *a;
	for (; RTA_OK(at, len); at = RTA_NEXT(at, len)) {
		if (at->rta_type != IFA_ADDRESS && at->rta_type != IFA_LOCAL)
			continue;
		if (NLMSG_ALIGN(req.r.nh.nlmsg_len) + RTA_ALIGN(at->rta_len) > sizeof(req))
			return -E2BIG;
		memcpy((char *)&req + NLMSG_ALIGN(req.r.nh.nlmsg_len), at, at->rta_len);
		req.r.nh.nlmsg_len = NLMSG_ALIGN(req.r.nh.nlmsg_len) + RTA_ALIGN(at->rta_len);
	}
	return nl_talk(fd, &req.r.nh, NULL);
}

int rs_net_repair(const char *base, size_t baselen, struct rs_buf *done)
{
	int fd = nl_open();

	if (fd < 0)
		return fd;
	struct rs_buf raw = {0}, unsupported = {0};
	int err = dump_all(fd, &raw, &unsupported);

	rs_buf_free(&unsupported);
	/* Links first (their addresses and routes go with them), then
	 * addresses, rules and neighbour entries, then from a dump taken
	 * again the routes that are left (an address's own local and prefix
	 * routes went with it). A boot rule or route the cell deleted or
	 * changed is not put back: the read-back fails on it. */
	for (int pass = 0; !err && pass < 3; pass++) {
		if (pass == 2) {
			struct rs_buf again = {0};

			rs_buf_free(&raw);
			err = dump_all(fd, &raw, &again);
			rs_buf_free(&again);
			if (err)
				break;
		}
		for (size_t off = 0; off < raw.len;) {
			const struct nlmsghdr *h = (const struct nlmsghdr *)(raw.p + off);
			struct rs_buf line = {0};
			bool del = false;

			off += NLMSG_ALIGN(h->nlmsg_len);
			format_msg(&line, h);
			if (pass == 0 && h->nlmsg_type == RTM_NEWLINK)
				del = !link_in_base(base, baselen, line.p, line.len - 1);
			else if (pass == 1 && !own_neigh(h) &&
				 (h->nlmsg_type == RTM_NEWADDR || h->nlmsg_type == RTM_NEWRULE ||
				  h->nlmsg_type == RTM_NEWNEIGH || h->nlmsg_type == RTM_NEWQDISC))
				del = !rs_lines_has(base, baselen, line.p, line.len - 1);
#ifndef GUEST_MUTANT_ROUTES_KEPT
			/* GUEST_MUTANT_ROUTES_KEPT: a cell's routes stay, as
			 * before (initramfs/tests/test_reset_net.py). */
			else if (pass == 2 && h->nlmsg_type == RTM_NEWROUTE)
				del = !rs_lines_has(base, baselen, line.p, line.len - 1);
#endif
			if (del) {
				int r = nl_delete(fd, h);

				rs_buf_printf(done, " %.*s%s", (int)(line.len - 1), line.p,
					      r ? " (refused)" : "");
			}
			rs_buf_free(&line);
		}
	}
	rs_buf_free(&raw);
	close(fd);
	return err;
}
