/* ha28-closed.c (hostile review h-attack28, against 321a0eb): a false red
 * the pins make. The agent listens on an abstract name (backlog 0), fills
 * the queue, and a thread makes a blocking connect to it: the supervisor
 * emulates the wait (sv_unixpeer_act, wait_again) holding its pin of the
 * listener. The agent then closes its listener, as a server that shuts
 * down does. The kernel alone answers the waiting connect ECONNREFUSED (the
 * name is gone). Under the supervisor, wait_again judges the name again
 * while its own pin still holds the listener bound: sock_diag lists it,
 * judge_bound drops the pin, the cached holder's descriptor is closed, no
 * process of the run holds the socket any more, and the run's own listener
 * is denied as "unix-peer": EACCES, verdict fail, and the report says the
 * agent tried a socket that is not the run's.
 *   ha28-closed NAME [MODE]   MODE: wait (default; the queue is full, one
 *       connect waits) or race (8 threads connect in a loop, no full queue,
 *       while the listener closes: another call's pin holds it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static struct sockaddr_un A;
static socklen_t AL;
static volatile int stop;

static void *waiter(void *arg)
{
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	int rc = connect(s, (struct sockaddr *)&A, AL);

	(void)arg;
	printf("waiting connect: %s\n", rc == 0 ? "connected" : strerror(errno));
	return NULL;
}

static void *looper(void *arg)
{
	unsigned long n[3] = {0};

	(void)arg;
	while (!stop) {
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		int rc = connect(s, (struct sockaddr *)&A, AL);

		n[rc == 0 ? 0 : errno == ECONNREFUSED ? 1 : 2]++;
		if (rc != 0 && errno != ECONNREFUSED)
			printf("looping connect: %s\n", strerror(errno));
		close(s);
	}
	printf("looping connects: %lu connected, %lu refused, %lu other\n", n[0], n[1], n[2]);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[2] : "wait";
	int l = socket(AF_UNIX, SOCK_STREAM, 0), fill = socket(AF_UNIX, SOCK_STREAM, 0);
	pthread_t t[8];
	size_t n;

	if (argc < 2 || argv[1][0] != '@')
		return 2;
	n = strlen(argv[1] + 1);
	A.sun_family = AF_UNIX;
	memcpy(A.sun_path + 1, argv[1] + 1, n);
	AL = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (bind(l, (struct sockaddr *)&A, AL) != 0 || listen(l, strcmp(mode, "wait") ? 4096 : 0)) {
		perror("bind/listen");
		return 1;
	}
	if (strcmp(mode, "wait") == 0) {
		if (connect(fill, (struct sockaddr *)&A, AL) != 0)
			perror("fill");
		pthread_create(&t[0], NULL, waiter, NULL);
		usleep(500000);
		printf("closing the listener\n");
		close(l);
		pthread_join(t[0], NULL);
		return 0;
	}
	for (int i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, looper, NULL);
	usleep(300000);
	printf("closing the listener\n");
	close(l);
	usleep(200000);
	stop = 1;
	for (int i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	return 0;
}
