/* ha32-nshide.c (hostile review h-attack32, against 7d6cbe9): a real
 * setns into a foreign network namespace, hidden as abandoned on purpose.
 *
 *   ha32-nshide NSFILE NPROC DELAY_US [exit]
 *       the agent: NPROC children that sleep (they make the supervisor's
 *       scan of the run's processes, sv_runprocs_each in judge_nsfd, take
 *       longer); a handler for SIGUSR1 without SA_RESTART; then one thread
 *       calls the raw setns(NSFILE's descriptor, CLONE_NEWNET), and the
 *       main thread, DELAY_US microseconds after that thread started,
 *       interrupts it with SIGUSR1 (tgkill). A signal ends a seccomp user
 *       notification's wait (no SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV):
 *       the call's notification is gone while the caller lives on. Prints
 *       how the setns ended (errno) and whether the process's network
 *       namespace changed (it must not: nothing is joined). With "exit",
 *       the main thread ends the process (exit_group) instead: the caller
 *       really dies, as in the run-ending case 923d8e9 meant to excuse.
 *
 * Since 923d8e9 (nsjoin.c, item "a setns whose caller died while the run's
 * processes were looked for is abandoned"), a notification gone after a
 * scan that found no process of the run in the namespace is abandoned,
 * not foreign-namespace: the caller did not die, the run is not ending,
 * the scan was sound, and the attempt is filed as nothing.
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
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_int tid_ready;
static int nsfd;
static long result;
static int result_errno;

static void on_usr1(int sig)
{
	(void)sig;
}

static void *joiner(void *arg)
{
	(void)arg;
	atomic_store(&tid_ready, (int)syscall(SYS_gettid));
	result = syscall(SYS_setns, nsfd, CLONE_NEWNET);
	result_errno = errno;
	return NULL;
}

static void ns_of_self(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/ns/net", buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_usr1};
	char before[64], after[64];
	struct timespec d;
	pthread_t t;
	pid_t parent = getpid(), kids[4096];
	int nproc, tid;
	long delay;

	if (argc != 4 && argc != 5)
		return 2;
	nproc = atoi(argv[2]);
	if (nproc > 4096)
		nproc = 4096;
	delay = atol(argv[3]);
	for (int i = 0; i < nproc; i++) {
		pid_t p = fork();

		if (p == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(0);
			pause();
			_exit(0);
		}
		kids[i] = p;
	}
	nsfd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (nsfd < 0) {
		perror("open");
		return 2;
	}
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: the interrupted setns answers EINTR */
	sigaction(SIGUSR1, &sa, NULL);
	ns_of_self(before, sizeof(before));
	pthread_create(&t, NULL, joiner, NULL);
	while (!(tid = atomic_load(&tid_ready)))
		;
	d.tv_sec = delay / 1000000;
	d.tv_nsec = delay % 1000000 * 1000;
	nanosleep(&d, NULL);
	if (argc == 5)
		syscall(SYS_exit_group, 0); /* the children go with PDEATHSIG */
	syscall(SYS_tgkill, getpid(), tid, SIGUSR1);
	pthread_join(t, NULL);
	ns_of_self(after, sizeof(after));
	for (int i = 0; i < nproc; i++)
		if (kids[i] > 0)
			kill(kids[i], SIGKILL);
	printf("setns=%ld errno=%s netns %s\n", result, result ? strerror(result_errno) : "-",
	       strcmp(before, after) ? "CHANGED" : "unchanged");
	return 0;
}
