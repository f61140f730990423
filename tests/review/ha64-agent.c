/* ha64-agent: hostile review h-attack64's agent (see ha64-host.sh).
 *   ha64-agent heavy T N NAME M
 *     T threads each make N connects to NAME (a failing name whose walk
 *     is long: a chain of 40 links, each "/./././..." near PATH_MAX), while
 *     the main thread makes M connects to /var/run/ha64-missing.sock (a
 *     legitimate failing name, walked once more by walk_as_kernel) with a
 *     pause of 2 ms between them. Prints the errnos and, in microseconds,
 *     the heavy connects' mean and the light ones' mean and maximum: the
 *     light ones wait for one of the supervisor's four inotify instances.
 *   ha64-agent heavyexit T NAME MS
 *     T threads start a heavy connect each; after MS ms the main thread
 *     calls exit_group with most of them still in the supervisor (held by
 *     a walk or waiting for an instance). The host script times how long
 *     the supervisor takes to end after that and reads its report.
 *   ha64-agent leak C N QUIET
 *     A thread makes and removes a file in /dev/shm/ha64c without pause;
 *     C threads connect without pause to /dev/shm/ha64c/missing.sock (their
 *     walks see the churn, denied, and leave events in flight on the
 *     marks they remove); the main thread makes N connects to QUIET, a
 *     missing name in directories nobody changes, whose walks reuse those
 *     instances. Prints how many of QUIET's were answered ENOENT: any
 *     other answer is an event of another walk read by this one. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static const char *heavy_name;
static int heavy_n;
static double heavy_sum;
static int heavy_cnt, heavy_enoent, heavy_other;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* One connect to name: its time in us; *e the errno (0 connected). */
static double one(const char *name, int *e)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	double t0 = now_us();
	int r;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", name);
	r = connect(s, (struct sockaddr *)&sa, sizeof(sa));
	*e = r == 0 ? 0 : errno;
	t0 = now_us() - t0;
	close(s);
	return t0;
}

static void *heavy(void *arg)
{
	(void)arg;
	for (int i = 0; i < heavy_n; i++) {
		int e;
		double d = one(heavy_name, &e);

		pthread_mutex_lock(&mu);
		heavy_sum += d;
		heavy_cnt++;
		if (e == ENOENT)
			heavy_enoent++;
		else
			heavy_other++;
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

static void *churn(void *arg)
{
	(void)arg;
	for (;;) {
		int fd = open("/dev/shm/ha64c/f", O_CREAT | O_WRONLY | O_CLOEXEC, 0600);

		if (fd >= 0)
			close(fd);
		unlink("/dev/shm/ha64c/f");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[1024];
	int t;

	if (argc < 5)
		return 2;
	t = atoi(argv[2]);
	if (t > 1024)
		t = 1024;
	if (strcmp(argv[1], "heavy") == 0 && argc >= 6) {
		int m = atoi(argv[5]), enoent = 0, other = 0;
		double sum = 0, hi = 0;

		heavy_n = atoi(argv[3]);
		heavy_name = argv[4];
		for (int i = 0; i < t; i++)
			pthread_create(&th[i], NULL, heavy, NULL);
		usleep(20000);
		for (int i = 0; i < m; i++) {
			int e;
			double d = one("/var/run/ha64-missing.sock", &e);

			sum += d;
			if (d > hi)
				hi = d;
			if (e == ENOENT)
				enoent++;
			else
				other++;
			usleep(2000);
		}
		for (int i = 0; i < t; i++)
			pthread_join(th[i], NULL);
		printf("heavy: %d connects, %d ENOENT, %d other, mean %.0f us\n", heavy_cnt,
		       heavy_enoent, heavy_other, heavy_cnt ? heavy_sum / heavy_cnt : 0);
		printf("light: %d connects, %d ENOENT, %d other, mean %.0f us, max %.0f us\n", m,
		       enoent, other, m ? sum / m : 0, hi);
		return 0;
	}
	if (strcmp(argv[1], "heavyexit") == 0) {
		heavy_n = 1;
		heavy_name = argv[3];
		for (int i = 0; i < t; i++)
			pthread_create(&th[i], NULL, heavy, NULL);
		usleep(atoi(argv[4]) * 1000);
		printf("exit_group with %d of %d heavy connects back\n", heavy_cnt, t);
		fflush(stdout);
		exit(0);
	}
	if (strcmp(argv[1], "leak") == 0 && argc >= 5) {
		static pthread_t ch;
		int n = atoi(argv[3]), enoent = 0, other = 0;

		mkdir("/dev/shm/ha64c", 0755);
		pthread_create(&ch, NULL, churn, NULL);
		heavy_n = 1 << 30;
		heavy_name = "/dev/shm/ha64c/missing.sock";
		for (int i = 0; i < t; i++)
			pthread_create(&th[i], NULL, heavy, NULL);
		usleep(20000);
		for (int i = 0; i < n; i++) {
			int e;

			one(argv[4], &e);
			if (e == ENOENT)
				enoent++;
			else
				other++;
		}
		pthread_mutex_lock(&mu);
		printf("leak: quiet %d ENOENT, %d other; churned walks %d ENOENT, %d other\n",
		       enoent, other, heavy_enoent, heavy_other);
		fflush(stdout);
		_exit(0);
	}
	return 2;
}
