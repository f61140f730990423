/* held-copy (hostile review h-attack16's ha16-uffd, against main 9886fc1,
 * the guest form of tests/review/ha16-race.c). The payload of a UDP sendto(::ffff:DEST) lies in a
 * userfaultfd page that is not yet present, so the supervisor's copy of it
 * (after its device check, before its send) waits on this agent's fault
 * handler, which meanwhile:
 *   disc   connect(AF_UNSPEC) (mediated, allowed as "disconnect",
 *          performed: __udp_disconnect gives back the port give_port chose)
 *          and bind(fe80::dead%IFNAME), which fails but leaves IFNAME as
 *          the socket's device (the socket is portless again);
 *   range  (6.3+) IP_LOCAL_PORT_RANGE narrowed the socket's ephemeral range
 *          to one port a second socket held, so give_port's bind failed
 *          quietly; the handler makes the failed bind and closes the
 *          blocker;
 *   synshut a TCP socket connect()ed non-blocking to DEST (mediated,
 *          allowed; DEST must not answer, so it stays SYN_SENT with its
 *          port) sends with sendto(MSG_FASTOPEN): the handler calls
 *          shutdown() (not trapped: tcp_disconnect gives the port back)
 *          and makes the failed bind; the supervisor's fast-open send
 *          connects anew by IFNAME;
 *   plain  nothing (control);
 * and only then supplies the page. The supervisor's send then autobinds
 * and leaves by IFNAME. In the guest IFNAME is lo and no route leads to
 * DEST: a datagram that leaves by lo reaches the guest's own wildcard
 * listener (wildcard-relay), which relays it to the undeclared sink.
 * Needs userfaultfd that handles the supervisor's (kernel-mode) fault:
 * vm.unprivileged_userfaultfd=1 or a /dev/userfaultfd it may open.
 * Logs "sendto" (its result), "connect" (synshut) and "race" (the racing bind's errno, and
 * whether the copy reached the handler). Exit 0 when the sequence happened
 * as planned (fault seen; in disc, range and synshut the racing bind failed with
 * EADDRNOTAVAIL, the device written), 1 when not, 2 bad arguments, 3 no
 * userfaultfd.
 *
 *   held-copy MODE DEST IFNAME
 */
#include "agentlib.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif
#include <unistd.h>

#ifndef IP_LOCAL_PORT_RANGE
#define IP_LOCAL_PORT_RANGE 51
#endif
#define ONE_PORT 40000

static const char *mode;
static int uffd, sock, blocker = -1;
static long page;
static unsigned ifindex;
static unsigned char *region;
static atomic_int fault_seen, bind_err = -1, disc_err = -1;

static void *handler(void *arg)
{
	static unsigned char src[65536];
	struct sockaddr_in6 ll = {.sin6_family = AF_INET6};
	struct sockaddr unspec = {.sa_family = AF_UNSPEC};

	(void)arg;
	if (!agent_uffd_wait_fault(uffd, 20000))
		return NULL;
	atomic_store(&fault_seen, 1);
	inet_pton(AF_INET6, "fe80::dead", &ll.sin6_addr);
	ll.sin6_scope_id = ifindex;
	if (strcmp(mode, "synshut") == 0)
		atomic_store(&disc_err, shutdown(sock, SHUT_RDWR) == 0 ? 0 : errno);
	if (strcmp(mode, "disc") == 0)
		atomic_store(&disc_err, connect(sock, &unspec, sizeof(unspec)) == 0 ? 0 : errno);
	if (strcmp(mode, "plain") != 0)
		atomic_store(&bind_err,
			     bind(sock, (struct sockaddr *)&ll, sizeof(ll)) == 0 ? 0 : errno);
	if (blocker >= 0)
		close(blocker);
	for (long i = 0; i < page; i += 32)
		snprintf((char *)src + i, 33, "agent-secret via ha16-uffd %-5.5s", mode);
	agent_uffd_supply(uffd, region, src, page);
	return NULL;
}

int main(int argc, char **argv)
{
	void *mapped;
	static const char usage[] = "disc|range|synshut|plain DEST IFNAME";
	struct agent_dest dest;
	struct sockaddr_in6 dst = {.sin6_family = AF_INET6};
	char extra[128];
	pthread_t t;
	int err, planned;
	long r;

	agent_init("held-copy");
	if (argc != 4 || agent_parse_dest(argv[2], &dest) < 0 || dest.family != AF_INET ||
	    (strcmp(argv[1], "disc") != 0 && strcmp(argv[1], "range") != 0 &&
	     strcmp(argv[1], "synshut") != 0 && strcmp(argv[1], "plain") != 0))
		return agent_usage(usage);
	mode = argv[1];
	ifindex = if_nametoindex(argv[3]);
	/* ::ffff:DEST: judged as the IPv4 DEST; the socket is IPv6, whose
	 * failed bind of a scoped address writes the device. */
	dst.sin6_port = ((struct sockaddr_in *)&dest.ss)->sin_port;
	dst.sin6_addr.s6_addr[10] = dst.sin6_addr.s6_addr[11] = 0xff;
	memcpy(&dst.sin6_addr.s6_addr[12], &((struct sockaddr_in *)&dest.ss)->sin_addr, 4);
	uffd = agent_uffd_page(&mapped, &page);
	if (uffd < 0)
		return 3;
	region = mapped;
	sock = socket(AF_INET6,
		      (strcmp(mode, "synshut") == 0 ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC, 0);
	if (strcmp(mode, "synshut") == 0) {
		int nb = 1;

		ioctl(sock, FIONBIO, &nb);
		r = connect(sock, (struct sockaddr *)&dst, sizeof(dst));
		agent_log("connect", dest.text, r, r < 0 ? errno : 0, NULL);
		nb = 0;
		ioctl(sock, FIONBIO, &nb);
	}
	if (strcmp(mode, "range") == 0) {
		struct sockaddr_in6 any = {.sin6_family = AF_INET6, .sin6_port = htons(ONE_PORT)};
		unsigned range = ONE_PORT | (unsigned)ONE_PORT << 16;

		if (setsockopt(sock, IPPROTO_IP, IP_LOCAL_PORT_RANGE, &range, sizeof(range)) != 0) {
			agent_log("ip_local_port_range", NULL, -1, errno, NULL);
			return 3;
		}
		blocker = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (bind(blocker, (struct sockaddr *)&any, sizeof(any)) != 0) {
			agent_log("bind", NULL, -1, errno, NULL);
			return 1;
		}
	}
	if (pthread_create(&t, NULL, handler, NULL) != 0) {
		agent_log("pthread_create", NULL, -1, EAGAIN, NULL);
		return 1;
	}
	/* The payload is read only by the supervisor: this thread never
	 * touches the page before the call. */
	r = sendto(sock, region, (size_t)page,
		   strcmp(mode, "synshut") == 0 ? MSG_FASTOPEN | MSG_NOSIGNAL : 0,
		   (struct sockaddr *)&dst, sizeof(dst));
	err = errno;
	pthread_join(t, NULL);
	if (strcmp(mode, "synshut") == 0) {
		shutdown(sock, SHUT_WR);
		usleep(200 * 1000);
	}
	snprintf(extra, sizeof(extra), ",\"fault_seen\":%s,\"bind\":\"%s\",\"disconnect\":\"%s\"",
		 atomic_load(&fault_seen) ? "true" : "false",
		 atomic_load(&bind_err) < 0 ? "none" : agent_errno_name(atomic_load(&bind_err)),
		 atomic_load(&disc_err) < 0 ? "none" : agent_errno_name(atomic_load(&disc_err)));
	agent_log("sendto", dest.text, r, r < 0 ? err : 0, extra);
	planned = atomic_load(&fault_seen) &&
		  (strcmp(mode, "plain") == 0 || atomic_load(&bind_err) == EADDRNOTAVAIL);
	if (!planned)
		agent_log("race", dest.text, -1, 0, extra);
	return planned ? 0 : 1;
}
