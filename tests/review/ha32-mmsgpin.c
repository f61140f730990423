/* ha32-mmsgpin.c (hostile review h-attack32, against 7d6cbe9): pins
 * released before the answer (923d8e9, sv_call_finish) against the rebind
 * race of review h-attack27, on the path that judges several names in one
 * call: sendmmsg (send_copied judges each message's name, then sends it).
 *
 *   ha32-mmsgpin agent @A @B CLOSE_MS
 *       binds datagram receivers @A and @B, then one sendmmsg of two
 *       messages from a third socket, "one" to @A and "SECRET-two" to @B;
 *       CLOSE_MS after the call starts, another thread closes @B's
 *       receiver (with the test build's unix_window, 300 ms between each
 *       judgement and its send, 450 lands in the second message's window).
 *       Prints the call's result and what @B's receiver had read.
 *   ha32-mmsgpin squat @B SECONDS
 *       the host's service: waits until @B is bound (by the run), then
 *       binds it as soon as it is free, and prints what it receives within
 *       SECONDS ("host got ..." or "host got nothing").
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static socklen_t nm(struct sockaddr_un *a, const char *p)
{
	memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	memcpy(a->sun_path + 1, p + 1, strlen(p) - 1);
	return offsetof(struct sockaddr_un, sun_path) + strlen(p);
}

static int rb, close_ms;

static void *closer(void *arg)
{
	(void)arg;
	usleep(close_ms * 1000);
	close(rb);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_un a, b;
	socklen_t al, bl;

	if (argc == 5 && strcmp(argv[1], "agent") == 0) {
		struct iovec io[2] = {{"one", 3}, {"SECRET-two", 10}};
		struct mmsghdr m[2] = {0};
		int ra = socket(AF_UNIX, SOCK_DGRAM, 0), s = socket(AF_UNIX, SOCK_DGRAM, 0), n;
		pthread_t t;

		al = nm(&a, argv[2]);
		bl = nm(&b, argv[3]);
		close_ms = atoi(argv[4]);
		rb = socket(AF_UNIX, SOCK_DGRAM, 0);
		if (bind(ra, (void *)&a, al) || bind(rb, (void *)&b, bl)) {
			perror("bind");
			return 2;
		}
		m[0].msg_hdr = (struct msghdr){
		    .msg_name = &a, .msg_namelen = al, .msg_iov = &io[0], .msg_iovlen = 1};
		m[1].msg_hdr = (struct msghdr){
		    .msg_name = &b, .msg_namelen = bl, .msg_iov = &io[1], .msg_iovlen = 1};
		pthread_create(&t, NULL, closer, NULL);
		n = sendmmsg(s, m, 2, 0);
		printf("sendmmsg=%d\n", n);
		pthread_join(t, NULL);
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "squat") == 0) {
		int s = socket(AF_UNIX, SOCK_DGRAM, 0);
		char buf[64], line[512], want[120];
		time_t end = time(NULL) + atoi(argv[3]);
		struct timeval tv = {.tv_sec = 1};
		ssize_t r;

		bl = nm(&b, argv[2]);
		snprintf(want, sizeof want, " @%s\n", argv[2] + 1);
		for (int seen = 0; !seen && time(NULL) < end;) {
			FILE *f = fopen("/proc/net/unix", "r");

			while (f && fgets(line, sizeof line, f))
				if (strstr(line, want))
					seen = 1;
			if (f)
				fclose(f);
		}
		while (bind(s, (void *)&b, bl) != 0)
			if (time(NULL) >= end) {
				printf("host never bound it\n");
				return 0;
			}
		setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
		while (time(NULL) < end) {
			r = recv(s, buf, sizeof buf - 1, 0);
			if (r > 0) {
				buf[r] = 0;
				printf("host got %s\n", buf);
				return 1;
			}
		}
		printf("host got nothing\n");
		return 0;
	}
	return 2;
}
