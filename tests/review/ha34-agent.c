/* ha34-agent: hostile review h-attack34 (run integrity). One static binary,
 * one attack per mode:
 *
 *   ha34-agent probe ADDR PORT   UDP sendto(MSG_PROBE) to ADDR:PORT: the
 *                                kernel returns the length and sends
 *                                nothing; then one plain sendto as control.
 *   ha34-agent threads N SECS    N threads, each a blocking connect() to one
 *                                loopback listener whose accept queue is full
 *                                (the SYNs are dropped, the connects hang);
 *                                after SECS the listener is closed, every
 *                                connect ends, the agent exits 0.
 *   ha34-agent chmod DIR MODE    chmod DIR (octal MODE) and exit 0: the
 *                                directory of a --report FILE the agent may
 *                                write, made one the supervisor cannot.
 *   ha34-agent rename DIR        rename DIR to DIR.gone and exit 0 (the same,
 *                                for a root agent under a --writable path).
 *   ha34-agent redirect DIR TARGET  try to create TARGET/agent-was-here (a
 *                                root agent: EROFS outside the declared
 *                                paths), then rename DIR to DIR.gone and
 *                                put a symbolic link to TARGET in its place.
 *   ha34-agent cgroup DIR FILE   a root agent: a user namespace of its own
 *                                (0 mapped to 0), then a mount and cgroup
 *                                namespace in it, cgroup2 mounted on DIR
 *                                (its cgroup namespace's root: the cgroup
 *                                the supervisor started in) and "1" written
 *                                to DIR/FILE (cgroup.kill, cgroup.freeze);
 *                                FILE "hide": make DIR/hide, move itself
 *                                into it, sleep 3 s.
 *   ha34-agent fill FILE         write FILE until the file system is full
 *                                (ENOSPC) and exit 0, leaving it there.
 *   ha34-agent churn P [S]       S sleeping children, and P workers, each
 *                                forking children that live 0-2 ms and
 *                                reaping them, for ever: pids are freed and
 *                                taken again all the time.
 *   ha34-agent victims SECS [K [MS]]  not an agent: the bystander. Keeps K
 *                                (64) children alive, each sleeping MS (300)
 *                                ms; after SECS prints how many were killed
 *                                by a SIGKILL nobody of ours sent.
 *
 * Prints one line per step on stdout. Build:
 *   musl-gcc -D_GNU_SOURCE -O2 -static -pthread -o ha34-agent ha34-agent.c
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#ifndef MSG_PROBE
#define MSG_PROBE 0x10
#endif

static int mode_probe(const char *addr, int port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	ssize_t n;

	if (fd < 0 || inet_pton(AF_INET, addr, &sin.sin_addr) != 1) {
		perror("socket/addr");
		return 2;
	}
	n = sendto(fd, "probe-payload", 13, MSG_PROBE, (struct sockaddr *)&sin, sizeof(sin));
	printf("sendto MSG_PROBE %s:%d -> %zd (%s)\n", addr, port, n,
	       n < 0 ? strerror(errno) : "ok");
	fflush(stdout);
	return 0;
}

static struct sockaddr_in listen_addr;
static pthread_barrier_t start;

static void *one_connect(void *arg)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	long *res = arg;

	pthread_barrier_wait(&start);
	if (fd < 0) {
		*res = -errno;
		return NULL;
	}
	*res = connect(fd, (struct sockaddr *)&listen_addr, sizeof(listen_addr)) == 0 ? 0 : -errno;
	close(fd);
	return NULL;
}

static int mode_threads(int n, int secs)
{
	socklen_t len = sizeof(listen_addr);
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	long *res = calloc((size_t)n, sizeof(*res));
	pthread_attr_t attr;
	struct rlimit rl;
	int lfd = socket(AF_INET, SOCK_STREAM, 0), ok = 0, refused = 0, other = 0, started = 0;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)n + 64) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	listen_addr.sin_family = AF_INET;
	listen_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&listen_addr, sizeof(listen_addr)) != 0 ||
	    getsockname(lfd, (struct sockaddr *)&listen_addr, &len) != 0 || listen(lfd, 0) != 0) {
		perror("listener");
		return 2;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_barrier_init(&start, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++) {
		if (pthread_create(&t[i], &attr, one_connect, &res[i]) != 0) {
			printf("pthread_create %d failed\n", i);
			return 2;
		}
		started++;
	}
	pthread_barrier_wait(&start);
	printf("threads %d connecting to 127.0.0.1:%d (accept queue full)\n", started,
	       ntohs(listen_addr.sin_port));
	fflush(stdout);
	sleep((unsigned)secs);
	/* Each connect ends: a SYN_SENT socket whose SYNs keep being dropped is
	 * cut short only by its own timeout; shutting the listener makes the
	 * next retransmission a RST. */
	close(lfd);
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		if (res[i] == 0)
			ok++;
		else if (res[i] == -ECONNREFUSED)
			refused++;
		else
			other++;
	}
	printf("connects: %d ok, %d refused, %d other\n", ok, refused, other);
	return 0;
}

static void mode_churn(int p, int sleepers)
{
	/* Sleepers first: they keep their low pids and make /proc longer to
	 * read, which widens the window between a pid read and its kill. */
	for (int i = 0; i < sleepers; i++)
		if (fork() == 0)
			for (;;)
				pause();
	for (int i = 0; i < p; i++)
		if (fork() == 0)
			for (;;) {
				pid_t c = fork();

				if (c == 0) {
					usleep((useconds_t)(getpid() % 2000));
					_exit(0);
				}
				if (c > 0)
					waitpid(c, NULL, 0);
			}
	printf("churning with %d workers\n", p);
	for (;;)
		pause();
}

static int mode_victims(int secs, int keep, int sleep_ms)
{
	time_t end = time(NULL) + secs;
	long born = 0, killed = 0, other = 0;
	int alive = 0, st;
	pid_t w;

	while (time(NULL) < end) {
		while (alive < keep) {
			pid_t c = fork();

			if (c == 0) {
				usleep((useconds_t)sleep_ms * 1000);
				_exit(0);
			}
			if (c < 0)
				break;
			alive++;
			born++;
		}
		w = wait(&st);
		if (w > 0) {
			alive--;
			if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) {
				killed++;
				printf("victim pid %d killed by SIGKILL\n", (int)w);
			} else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
				other++;
		}
	}
	while (alive > 0 && wait(&st) > 0) {
		alive--;
		if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
			killed++;
	}
	printf("VICTIMS born %ld, killed by SIGKILL %ld, other %ld\n", born, killed, other);
	return killed ? 1 : 0;
}

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = -1;

	if (fd >= 0) {
		rc = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1;
		close(fd);
	}
	printf("write %s <- %s: %s\n", path, text, rc ? strerror(errno) : "ok");
	return rc;
}

static int mode_cgroup(const char *dir, const char *file)
{
	char path[4096];

	if (unshare(CLONE_NEWUSER) != 0) {
		printf("unshare(CLONE_NEWUSER): %s\n", strerror(errno));
		return 0;
	}
	write_text("/proc/self/uid_map", "0 0 1");
	write_text("/proc/self/setgroups", "deny");
	write_text("/proc/self/gid_map", "0 0 1");
	if (unshare(CLONE_NEWNS | CLONE_NEWCGROUP) != 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("cgroup2", dir, "cgroup2", 0, NULL) != 0) {
		printf("namespaces or mount of cgroup2 on %s: %s\n", dir, strerror(errno));
		return 0;
	}
	printf("cgroup2 mounted on %s\n", dir);
	if (strcmp(file, "hide") == 0) {
		/* A cgroup below the supervisor's, and this process moved into
		 * it: a check that reads only the supervisor's cgroup.procs no
		 * longer lists it. */
		char line[256];
		FILE *f;

		snprintf(path, sizeof(path), "%s/hide", dir);
		printf("mkdir %s: %s\n", path, mkdir(path, 0755) == 0 ? "ok" : strerror(errno));
		snprintf(path, sizeof(path), "%s/hide/cgroup.procs", dir);
		write_text(path, "0");
		f = fopen("/proc/self/cgroup", "re");
		while (f && fgets(line, sizeof(line), f))
			printf("now in %s", line);
		if (f)
			fclose(f);
		fflush(stdout);
		sleep(3);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fflush(stdout);
	write_text(path, "1");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && strcmp(argv[1], "probe") == 0)
		return mode_probe(argv[2], atoi(argv[3]));
	if (argc == 4 && strcmp(argv[1], "threads") == 0)
		return mode_threads(atoi(argv[2]), atoi(argv[3]));
	if (argc == 4 && strcmp(argv[1], "chmod") == 0) {
		int rc = chmod(argv[2], (mode_t)strtol(argv[3], NULL, 8));

		printf("chmod %s %s -> %d (%s)\n", argv[2], argv[3], rc,
		       rc ? strerror(errno) : "ok");
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "rename") == 0) {
		char to[4096];
		int rc;

		snprintf(to, sizeof(to), "%s.gone", argv[2]);
		rc = rename(argv[2], to);
		printf("rename %s %s -> %d (%s)\n", argv[2], to, rc, rc ? strerror(errno) : "ok");
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "redirect") == 0) {
		char gone[4096], probe[4096];
		int fd, rc;

		snprintf(probe, sizeof(probe), "%s/agent-was-here", argv[3]);
		fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0644);
		printf("create %s -> %s\n", probe, fd < 0 ? strerror(errno) : "created");
		if (fd >= 0)
			close(fd);
		snprintf(gone, sizeof(gone), "%s.gone", argv[2]);
		rc = rename(argv[2], gone) == 0 ? symlink(argv[3], argv[2]) : -1;
		printf("%s -> symlink to %s: %s\n", argv[2], argv[3], rc ? strerror(errno) : "ok");
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "cgroup") == 0)
		return mode_cgroup(argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "fill") == 0) {
		static char block[65536];
		long long total = 0;
		FILE *f = fopen(argv[2], "w");
		ssize_t w = 0;

		if (!f) {
			perror("fill");
			return 2;
		}
		setvbuf(f, NULL, _IONBF, 0);
		while ((w = write(fileno(f), block, sizeof(block))) > 0)
			total += w;
		/* Smaller pieces fill the last blocks too. */
		while ((w = write(fileno(f), block, 512)) > 0)
			total += w;
		printf("fill %s: %lld bytes, then %s\n", argv[2], total, strerror(errno));
		fclose(f);
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "churn") == 0)
		mode_churn(atoi(argv[2]), argc > 3 ? atoi(argv[3]) : 0);
	if (argc >= 3 && strcmp(argv[1], "victims") == 0)
		return mode_victims(atoi(argv[2]), argc > 3 ? atoi(argv[3]) : 64,
				    argc > 4 ? atoi(argv[4]) : 300);
	fprintf(stderr, "usage: ha34-agent probe ADDR PORT | threads N SECS | chmod DIR MODE | "
			"rename DIR | cgroup DIR FILE | fill FILE | churn P [S] | "
			"victims SECS [K [MS]]\n");
	return 2;
}
