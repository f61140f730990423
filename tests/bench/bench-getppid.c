/*
 * bench-getppid: an untrapped syscall loop. B batches of K getppid() calls;
 * prints the median per-call time in nanoseconds. Batches, because one
 * getppid is shorter than the clock's own overhead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long batches, per, b, k;
	double *t;

	if (argc != 3 || (batches = atol(argv[1])) < 1 || (per = atol(argv[2])) < 1) {
		fprintf(stderr, "usage: bench-getppid BATCHES PER_BATCH\n");
		return 2;
	}
	t = calloc((size_t)batches, sizeof(*t));
	if (!t)
		return 1;
	for (b = 0; b < batches; b++) {
		double t0 = now_ns();

		/* The raw syscall: nothing may cache or elide it. */
		for (k = 0; k < per; k++)
			syscall(SYS_getppid);
		t[b] = (now_ns() - t0) / (double)per;
	}
	qsort(t, (size_t)batches, sizeof(*t), cmp_double);
	printf("{\"batches\":%ld,\"per_batch\":%ld,\"median_ns\":%.2f,\"p25_ns\":%.2f,\"p75_ns\":%."
	       "2f}\n",
	       batches, per, t[batches / 2], t[batches / 4], t[3 * batches / 4]);
	return 0;
}
