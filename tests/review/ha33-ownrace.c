/* ha33-ownrace.c (hostile review h-attack33, against 9c8b986): the calling
 * thread's own namespace links, read by judge_nsfd before ID_VALID, made to
 * name another task: the caller's tid reused by a task of a foreign network
 * namespace between the caller's death and the supervisor's read.
 *
 *   ha33-ownrace join NSFILE DELAY_US exit|signal|none
 *       the agent: one thread calls the raw setns(NSFILE's descriptor,
 *       CLONE_NEWNET); DELAY_US microseconds after it started, the main
 *       thread ends the process (exit: the caller dies, its tid is freed at
 *       once, a non-leader thread reaps itself), or interrupts the call with
 *       SIGUSR1 without SA_RESTART (signal: the caller lives, EINTR), or
 *       does nothing (none: the control, a denial). Prints how the setns
 *       ended and whether the thread's network namespace changed.
 *   ha33-ownrace main NSFILE
 *       the agent's main thread, alone, calls setns(NSFILE, CLONE_NEWNET)
 *       and prints whether its network namespace changed.
 *   ha33-ownrace churn
 *       the foreign service's stand-in, run inside the foreign network
 *       namespace outside the run: forks children, one
 *       every millisecond, each living 100 ms, so that a freed pid number
 *       is soon a task of that namespace again (the script runs everything in a pid namespace of
 *       its own with a small pid_max, per namespace since 6.14).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_int tid_ready;
static int nsfd;
static long result;
static int result_errno;
static char before[64], after[64];

static void on_usr1(int sig)
{
	(void)sig;
}

static void ns_of_self(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/thread-self/ns/net", buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
}

static void *joiner(void *arg)
{
	(void)arg;
	atomic_store(&tid_ready, (int)syscall(SYS_gettid));
	result = syscall(SYS_setns, nsfd, CLONE_NEWNET);
	result_errno = errno;
	ns_of_self(after, sizeof(after));
	return NULL;
}

static int churn(void)
{
	const struct timespec life = {0, 100000000}, gap = {0, 1000000};

	signal(SIGCHLD, SIG_IGN); /* children reap themselves */
	for (;;) {
		if (fork() == 0) {
			nanosleep(&life, NULL);
			_exit(0);
		}
		nanosleep(&gap, NULL);
	}
}

/* The main thread joins, alone: a join the supervisor allows is answered
 * CONTINUE only for a thread that shares its table with no one. */
static int join_here(const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	long rc;

	if (fd < 0) {
		perror("open");
		return 2;
	}
	ns_of_self(before, sizeof(before));
	rc = syscall(SYS_setns, fd, CLONE_NEWNET);
	result_errno = errno;
	ns_of_self(after, sizeof(after));
	printf("tid %ld: setns=%ld errno=%s netns %s (%s -> %s)\n", (long)syscall(SYS_gettid), rc,
	       rc ? strerror(result_errno) : "-", strcmp(before, after) ? "CHANGED" : "unchanged",
	       before, after);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_usr1};
	struct timespec d;
	pthread_t t;
	long delay;
	int tid;

	if (argc == 2 && strcmp(argv[1], "churn") == 0)
		return churn();
	if (argc == 3 && strcmp(argv[1], "main") == 0)
		return join_here(argv[2]);
	if (argc != 5 || strcmp(argv[1], "join") != 0)
		return 2;
	delay = atol(argv[3]);
	nsfd = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (nsfd < 0) {
		perror("open");
		return 2;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	ns_of_self(before, sizeof(before));
	pthread_create(&t, NULL, joiner, NULL);
	while (!(tid = atomic_load(&tid_ready)))
		;
	d.tv_sec = delay / 1000000;
	d.tv_nsec = delay % 1000000 * 1000;
	nanosleep(&d, NULL);
	if (strcmp(argv[4], "exit") == 0)
		syscall(SYS_exit_group, 0);
	if (strcmp(argv[4], "signal") == 0)
		syscall(SYS_tgkill, getpid(), tid, SIGUSR1);
	pthread_join(t, NULL);
	printf("setns=%ld errno=%s netns %s\n", result, result ? strerror(result_errno) : "-",
	       strcmp(before, after) ? "CHANGED" : "unchanged");
	return 0;
}
