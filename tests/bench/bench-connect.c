/*
 * bench-connect: N (after W warm-up) timed connect+close pairs to DEST
 * (IPv4), each on a socket created outside the timed region. Prints one JSON
 * line: the median and quartiles in microseconds.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int parse_dest(const char *s, struct sockaddr_in *sin)
{
	char host[32];
	const char *colon = strrchr(s, ':');

	if (!colon || (size_t)(colon - s) >= sizeof(host))
		return -1;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((unsigned short)atoi(colon + 1));
	return inet_pton(AF_INET, host, &sin->sin_addr) == 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin;
	long n, warm, i, failures = 0, first_errno = 0;
	double *t;

	if (argc != 4 || (n = atol(argv[1])) < 1 || (warm = atol(argv[2])) < 0 ||
	    parse_dest(argv[3], &sin) < 0) {
		fprintf(stderr, "usage: bench-connect N WARMUP A.B.C.D:PORT\n");
		return 2;
	}
	t = calloc((size_t)n, sizeof(*t));
	if (!t)
		return 1;
	for (i = -warm; i < n; i++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		double t0 = now_us();

		if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 && failures++ == 0)
			first_errno = errno;
		close(fd);
		if (i >= 0)
			t[i] = now_us() - t0;
	}
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	printf("{\"n\":%ld,\"median_us\":%.3f,\"p25_us\":%.3f,\"p75_us\":%.3f,\"failures\":%ld,"
	       "\"first_errno\":%ld}\n",
	       n, t[n / 2], t[n / 4], t[3 * n / 4], failures, first_errno);
	return 0;
}
