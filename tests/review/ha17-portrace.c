/* ha17-portrace: hostile review h-attack17 (against main d07b047), a false
 * red a legitimate program hits. Two threads make the first sendto() on
 * one fresh IPv6 UDP socket at the same moment (a resolver asking two
 * questions on one socket from two threads does). The supervisor mediates
 * both at once: each sees the socket portless (getsockname: port 0) and
 * give_port binds it; the bind that comes second finds it bound (EINVAL),
 * and "a port give_port cannot take is a mechanism failure": EPERM to the
 * agent, verdict capability-error, on a run that did nothing but send to
 * its declared destination. Without the supervisor both sends succeed (the
 * kernel's autobind takes the socket lock; the second finds the port).
 *
 *   ha17-portrace DEST PORT [ROUNDS]   (DEST: an IPv6 address)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static struct sockaddr_in6 dst = {.sin6_family = AF_INET6};
static pthread_barrier_t go;
static int sock;
static long eperm, other, ok;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void *sender(void *arg)
{
	long rc;

	(void)arg;
	pthread_barrier_wait(&go);
	rc = sendto(sock, "q", 1, 0, (struct sockaddr *)&dst, sizeof(dst));
	pthread_mutex_lock(&mu);
	if (rc == 1)
		ok++;
	else if (errno == EPERM)
		eperm++;
	else
		other++;
	pthread_mutex_unlock(&mu);
	return NULL;
}

int main(int argc, char **argv)
{
	long rounds = argc > 3 ? atol(argv[3]) : 200;

	if (argc < 3 || inet_pton(AF_INET6, argv[1], &dst.sin6_addr) != 1) {
		fprintf(stderr, "usage: ha17-portrace DEST PORT [ROUNDS]\n");
		return 2;
	}
	dst.sin6_port = htons((unsigned short)atoi(argv[2]));
	pthread_barrier_init(&go, NULL, 2);
	for (long r = 0; r < rounds; r++) {
		pthread_t a, b;

		sock = socket(AF_INET6, SOCK_DGRAM, 0);
		pthread_create(&a, NULL, sender, NULL);
		pthread_create(&b, NULL, sender, NULL);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		close(sock);
	}
	printf(
	    "agent: %ld rounds of two first sends on one socket: %ld sent, %ld EPERM, %ld other\n",
	    rounds, ok, eperm, other);
	return 0;
}
