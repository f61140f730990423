/* ha17-starve: hostile review h-attack17 (against main d07b047). How long
 * an IPv6 disconnect (connect(AF_UNSPEC), which takes the device lock
 * exclusively: sv_call_lock_disconnect) waits while other threads of the
 * same program send IPv6 datagrams on their own sockets (each holds the
 * lock shared from its device's judgement to its answer). musl's rwlock
 * prefers readers: while the senders overlap, the writer may wait. Also
 * one blocking fast-open send (MSG_FASTOPEN on a blocking IPv6 TCP socket
 * to a declared address that never answers: its connect holds the shared
 * lock for the whole SYN retry time) in "tfo" mode.
 *
 *   ha17-starve udp|tfo DEST6 PORT SENDERS ROUNDS   (tfo: DEST6 silent)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static struct sockaddr_in6 dst = {.sin6_family = AF_INET6};
static volatile int stop;
static volatile long sends;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void *udp_sender(void *arg)
{
	int s = socket(AF_INET6, SOCK_DGRAM, 0);

	(void)arg;
	while (!stop)
		if (sendto(s, "x", 1, 0, (struct sockaddr *)&dst, sizeof(dst)) == 1)
			sends++;
	return NULL;
}

static void *tfo_sender(void *arg)
{
	int s = socket(AF_INET6, SOCK_STREAM, 0), syn = 3;
	double t0 = now();
	long rc;

	(void)arg;
	/* 3 retries: about 15 s of SYNs before ETIMEDOUT. */
	setsockopt(s, IPPROTO_TCP, TCP_SYNCNT, &syn, sizeof(syn));
	rc = sendto(s, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&dst, sizeof(dst));
	printf("agent: blocking fast-open send: %s after %.1f s\n",
	       rc < 0 ? strerror(errno) : "sent", now() - t0);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr unspec = {.sa_family = AF_UNSPEC};
	struct sockaddr_in6 peer = {.sin6_family = AF_INET6};
	int tfo, senders, rounds, u;
	double worst = 0, total = 0;
	pthread_t t[64];

	if (argc != 6 || inet_pton(AF_INET6, argv[2], &dst.sin6_addr) != 1)
		return 2;
	tfo = strcmp(argv[1], "tfo") == 0;
	dst.sin6_port = htons((unsigned short)atoi(argv[3]));
	senders = atoi(argv[4]);
	rounds = atoi(argv[5]);
	if (senders > 64)
		senders = 64;
	for (int i = 0; i < senders; i++)
		pthread_create(&t[i], NULL, tfo ? tfo_sender : udp_sender, NULL);
	usleep(300000);
	/* The disconnecting socket: its own, connected to the declared
	 * address's port 9 (nothing sent on it). */
	peer.sin6_addr = dst.sin6_addr;
	peer.sin6_port = htons(9);
	u = socket(AF_INET6, SOCK_DGRAM, 0);
	for (int r = 0; r < rounds; r++) {
		double t0, dt;

		connect(u, (struct sockaddr *)&peer, sizeof(peer));
		t0 = now();
		connect(u, &unspec, sizeof(unspec));
		dt = now() - t0;
		total += dt;
		if (dt > worst)
			worst = dt;
	}
	stop = 1;
	printf("agent: %s, %d senders: %d disconnects on another socket took %.1f ms on "
	       "average, %.1f ms at worst (%ld datagrams sent meanwhile)\n",
	       argv[1], senders, rounds, total / rounds * 1e3, worst * 1e3, sends);
	fflush(stdout);
	for (int i = 0; i < senders; i++)
		pthread_join(t[i], NULL);
	return 0;
}
