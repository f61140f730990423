/*
 * ha10-mmsg.c (review h-attack10): sendmmsg batches whose later message is
 * judged denied, and which still end in a bucket other than denied.
 *
 *     ha10-mmsg MODE DECLPORT
 *
 * Every batch's message 0 goes to the declared 127.0.0.1:DECLPORT, every
 * later one to the undeclared 127.0.0.2:9999.
 * MODE:
 *   badfd    2 messages on descriptor 55, which is not open: the kernel
 *            answers EBADF and sends nothing
 *   notsock  2 messages on a pipe: ENOTSOCK, nothing sent
 *   first    control: 1 message, the undeclared one, on descriptor 55
 *   intr     200 batches of 1024 messages on a UDP socket, under a
 *            SIGALRM every 4 ms (handler, no SA_RESTART): a signal that
 *            lands while the supervisor copies and judges the batch kills
 *            the notification after message 1 was judged denied
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#define VLEN 1024
#ifndef ALARM_US
#define ALARM_US 4000
#endif

static struct mmsghdr m[VLEN];

static void on_alarm(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	static char payload[] = "ha10";
	struct sockaddr_in decl = {.sin_family = AF_INET}, und = {.sin_family = AF_INET};
	struct iovec good = {.iov_base = payload, .iov_len = 4};
	const char *mode = argc == 3 ? argv[1] : "";
	int fd = 55, n = 2, p[2];
	long r;

	if (argc != 3) {
		fprintf(stderr, "usage: ha10-mmsg badfd|notsock|first|intr DECLPORT\n");
		return 2;
	}
	decl.sin_port = htons((uint16_t)atoi(argv[2]));
	inet_pton(AF_INET, "127.0.0.1", &decl.sin_addr);
	und.sin_port = htons(9999);
	inet_pton(AF_INET, "127.0.0.2", &und.sin_addr);
	for (int i = 0; i < VLEN; i++) {
		m[i].msg_hdr.msg_name = i ? &und : &decl;
		m[i].msg_hdr.msg_namelen = sizeof(decl);
		m[i].msg_hdr.msg_iov = &good;
		m[i].msg_hdr.msg_iovlen = 1;
	}
	if (strcmp(mode, "first") == 0) {
		m[0].msg_hdr.msg_name = &und;
		n = 1;
	} else if (strcmp(mode, "notsock") == 0) {
		if (pipe(p) != 0)
			return 2;
		fd = p[1];
	} else if (strcmp(mode, "intr") == 0) {
		struct sigaction sa = {.sa_handler = on_alarm};
		struct itimerval it = {{0, ALARM_US}, {0, ALARM_US}};
		int counts[4] = {0}; /* -1 EINTR, other errors, 0, >0 */

		fd = socket(AF_INET, SOCK_DGRAM, 0);
		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &it, NULL);
		for (int k = 0; k < 200; k++) {
			r = syscall(SYS_sendmmsg, fd, m, VLEN, 0);
			counts[r < 0 ? (errno == EINTR ? 0 : 1) : r == 0 ? 2 : 3]++;
		}
		printf("  200 batches: EINTR %d, other error %d, 0 sent %d, sent>0 %d\n", counts[0],
		       counts[1], counts[2], counts[3]);
		return 0;
	} else if (strcmp(mode, "badfd") != 0) {
		fprintf(stderr, "ha10-mmsg: unknown mode %s\n", mode);
		return 2;
	}
	r = syscall(SYS_sendmmsg, fd, m, n, 0);
	printf("  sendmmsg(%s) -> %ld%s%s\n", mode, r, r < 0 ? " " : "",
	       r < 0 ? strerror(errno) : "");
	return 0;
}
