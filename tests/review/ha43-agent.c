/* ha43-agent: hostile review h-attack43 (run integrity in batch mode).
 * Built by tests/review/ha43-guest.sh into tests/review/ha43-guest/.
 *   fill PATH            fill the file system of PATH to ENOSPC and leave it
 *                        full (the file stays after the agent exits)
 *   fillsend PATH IP PORT  the same, then one UDP datagram to IP:PORT
 *   mqplant NAME         a POSIX message queue NAME with one message, left
 *   mqcheck NAME         says whether queue NAME exists and what it holds
 *   deleg DIR HOLD       F_SETDELEG (Linux 6.19) read delegations on DIR and
 *                        on a file DIR/f of its own, F_SETLEASE on the file
 *                        as a control, SIGIO ignored; holds HOLD seconds
 *   writer DIR... SECS   (a root service) creates and unlinks a name in
 *                        each DIR and opens DIR/f for writing when there,
 *                        every 200 ms for SECS seconds; says each call that
 *                        took over 300 ms and the longest
 * Lines start "ha43 " on stdout (the cell's supervisor_log). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int fill(const char *path)
{
	static char buf[1 << 20];
	long long total = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0) {
		printf("ha43 fill open %s: %s\n", path, strerror(errno));
		return 1;
	}
	memset(buf, 'x', sizeof(buf));
	/* Big writes first, then ever smaller ones: the last page too. */
	for (size_t chunk = sizeof(buf); chunk >= 1; chunk /= 2) {
		for (;;) {
			ssize_t n = write(fd, buf, chunk);

			if (n <= 0)
				break;
			total += n;
		}
	}
	printf("ha43 fill %s: %lld bytes, then %s\n", path, total, strerror(errno));
	fflush(stdout);
	close(fd);
	return 0;
}

static int send_udp(const char *ip, int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	ssize_t n;

	inet_pton(AF_INET, ip, &a.sin_addr);
	n = sendto(s, "ha43", 4, 0, (struct sockaddr *)&a, sizeof(a));
	printf("ha43 sendto %s:%d = %zd (%s)\n", ip, port, n, n < 0 ? strerror(errno) : "ok");
	fflush(stdout);
	return 0;
}

#ifndef F_SETDELEG
#define F_SETDELEG 1040 /* F_LINUX_SPECIFIC_BASE + 16, Linux 6.19 */
#endif
struct ha43_delegation {
	unsigned d_flags;
	unsigned short d_type;
	unsigned short pad;
};

static int deleg(const char *dir, int hold)
{
	char f[512];
	struct ha43_delegation d = {.d_type = F_RDLCK};
	int fd, dfd, r;

	signal(SIGIO, SIG_IGN);
	snprintf(f, sizeof(f), "%s/f", dir);
	close(open(f, O_WRONLY | O_CREAT, 0644));
	fd = open(f, O_RDONLY);
	r = fcntl(fd, F_SETLEASE, F_RDLCK);
	printf("ha43 deleg F_SETLEASE %s: %d (%s)\n", f, r, r ? strerror(errno) : "held");
	if (r == 0)
		fcntl(fd, F_SETLEASE, F_UNLCK);
	fd = open(f, O_RDONLY);
	r = fcntl(fd, F_SETDELEG, &d);
	printf("ha43 deleg F_SETDELEG file %s: %d (%s)\n", f, r, r ? strerror(errno) : "held");
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	r = fcntl(dfd, F_SETDELEG, &d);
	printf("ha43 deleg F_SETDELEG dir %s: %d (%s)\n", dir, r, r ? strerror(errno) : "held");
	fflush(stdout);
	sleep((unsigned)hold);
	printf("ha43 deleg done after %d s\n", hold);
	return 0;
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int writer(int ndirs, char **dirs, int secs)
{
	double end = now_ms() + secs * 1e3, longest = 0;
	long ops = 0;

	while (now_ms() < end) {
		for (int i = 0; i < ndirs; i++) {
			char n[512];
			double t0 = now_ms(), dt;
			int fd;

			snprintf(n, sizeof(n), "%s/ha43-w.%ld", dirs[i], ops);
			fd = open(n, O_WRONLY | O_CREAT, 0644);
			if (fd >= 0)
				close(fd);
			unlink(n);
			dt = now_ms() - t0;
			if (dt > 300)
				printf("ha43 writer create+unlink in %s took %.0f ms\n", dirs[i],
				       dt);
			longest = dt > longest ? dt : longest;
			snprintf(n, sizeof(n), "%s/f", dirs[i]);
			t0 = now_ms();
			fd = open(n, O_WRONLY);
			if (fd >= 0) {
				close(fd);
				dt = now_ms() - t0;
				if (dt > 300)
					printf("ha43 writer open(O_WRONLY) %s took %.0f ms\n", n,
					       dt);
				longest = dt > longest ? dt : longest;
			}
			ops++;
		}
		usleep(200000);
	}
	printf("ha43 writer: %ld rounds, longest call %.0f ms\n", ops, longest);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && strcmp(argv[1], "fill") == 0)
		return fill(argv[2]);
	if (argc == 5 && strcmp(argv[1], "fillsend") == 0) {
		fill(argv[2]);
		return send_udp(argv[3], atoi(argv[4]));
	}
	if (argc == 3 && strcmp(argv[1], "mqplant") == 0) {
		struct mq_attr at = {.mq_maxmsg = 4, .mq_msgsize = 64};
		mqd_t q = mq_open(argv[2], O_CREAT | O_RDWR, 0666, &at);

		if (q == (mqd_t)-1) {
			printf("ha43 mqplant %s: %s\n", argv[2], strerror(errno));
			return 0;
		}
		printf("ha43 mqplant %s: send %d\n", argv[2],
		       mq_send(q, "left-by-earlier-cell", 20, 0));
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "mqcheck") == 0) {
		char m[64] = {0};
		mqd_t q = mq_open(argv[2], O_RDONLY | O_NONBLOCK);

		if (q == (mqd_t)-1) {
			printf("ha43 mqcheck %s: absent (%s)\n", argv[2], strerror(errno));
			return 0;
		}
		ssize_t n = mq_receive(q, m, sizeof(m), NULL);

		printf("ha43 mqcheck %s: PRESENT, message %zd '%s'\n", argv[2], n, n > 0 ? m : "");
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "deleg") == 0)
		return deleg(argv[2], atoi(argv[3]));
	if (argc >= 4 && strcmp(argv[1], "writer") == 0)
		return writer(argc - 3, argv + 2, atoi(argv[argc - 1]));
	fprintf(stderr, "usage: ha43-agent fill PATH | fillsend PATH IP PORT | mqplant NAME | "
			"mqcheck NAME | deleg DIR HOLD | writer DIR... SECS\n");
	return 2;
}
