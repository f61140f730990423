/* ha44-agent.c: hostile review h-attack44's agent (the reaper's bracketing
 * calls, cfab595). Built static with musl-gcc by the scripts. Modes:
 *
 *   sig N INTERVAL_US RESTART STACK THREADS ADDR PORT
 *       THREADS threads make N UDP connects in all to ADDR:PORT (undeclared:
 *       denied, nothing sent) while a SIGALRM every INTERVAL_US interrupts
 *       them (handler installed with SA_RESTART when RESTART is 1, so a
 *       withdrawn call is restarted by the kernel and notified afresh). With
 *       STACK 1 the agent first stacks its own filters: one with
 *       SECCOMP_FILTER_FLAG_TSYNC that returns SECCOMP_RET_USER_NOTIF for
 *       getppid (no listener of its own: ENOSYS, the supervisor's id counter
 *       untouched), then one asking SECCOMP_FILTER_FLAG_NEW_LISTENER (the
 *       kernel refuses a second listener in the chain: EBUSY). Prints how
 *       many connect calls the program made and what they returned.
 *   nested
 *       the reaper's call from somewhere else: connect(-1, NULL, 0) from the
 *       agent itself, from a thread, and from pid 1 of a pid namespace the
 *       agent makes inside its own (unshare(CLONE_NEWUSER | CLONE_NEWPID)),
 *       each printed with what it returned. Any of them answered EBADF
 *       with no event in the report would be a call hidden as a sentinel.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static struct sockaddr_in dst;
static atomic_int next_call, n_calls, n_eintr, n_eacces, n_other;

static void on_alarm(int sig)
{
	(void)sig;
}

static void *connector(void *arg)
{
	/* One socket, made before the signals: the only trapped calls under
	 * SIGALRM are the connects (a denied UDP connect leaves it unconnected). */
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	sigset_t none;

	(void)arg;
	sigemptyset(&none);
	pthread_sigmask(SIG_SETMASK, &none, NULL);
	while (atomic_fetch_add(&next_call, 1) < atomic_load(&n_calls)) {
		int rc = connect(u, (struct sockaddr *)&dst, sizeof(dst));

		if (rc == 0)
			atomic_fetch_add(&n_other, 1);
		else if (errno == EINTR)
			atomic_fetch_add(&n_eintr, 1);
		else if (errno == EACCES || errno == EPERM)
			atomic_fetch_add(&n_eacces, 1);
		else
			atomic_fetch_add(&n_other, 1);
	}
	close(u);
	return NULL;
}

static int load_filter(unsigned flags, int notif_nr)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)notif_nr, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};

	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

static int sig_mode(int n, long interval_us, int restart, int stack, int threads)
{
	struct sigaction sa = {.sa_handler = on_alarm};
	struct itimerval it = {{0, interval_us}, {0, interval_us}};
	pthread_t t[64];
	sigset_t all;
	long r;

	if (stack) {
		r = load_filter(SECCOMP_FILTER_FLAG_TSYNC, SYS_getppid);
		printf("ha44 stack: own filter (TSYNC) %ld (%s)\n", r,
		       r < 0 ? strerror(errno) : "ok");
		r = syscall(SYS_getppid);
		printf("ha44 stack: getppid under own USER_NOTIF %ld (%s)\n", r,
		       r < 0 ? strerror(errno) : "ok");
		r = load_filter(SECCOMP_FILTER_FLAG_NEW_LISTENER, SYS_getppid);
		printf("ha44 stack: own listener %ld (%s)\n", r, r < 0 ? strerror(errno) : "ok");
		if (r >= 0)
			close((int)r);
	}
	sa.sa_flags = restart ? SA_RESTART : 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	if (threads < 1 || threads > 64)
		threads = 1;
	atomic_store(&n_calls, n);
	/* Only the connectors take SIGALRM. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, connector, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	it = (struct itimerval){0};
	setitimer(ITIMER_REAL, &it, NULL);
	printf("ha44 sig: made %d connects: eintr %d denied %d other %d\n", n,
	       atomic_load(&n_eintr), atomic_load(&n_eacces), atomic_load(&n_other));
	fflush(stdout);
	return 0;
}

static void bad_connect(const char *who)
{
	long rc = syscall(SYS_connect, -1, NULL, 0);

	printf("ha44 nested: %s (pid %d) connect(-1, NULL, 0) = %ld (%s)\n", who, (int)getpid(), rc,
	       rc < 0 ? strerror(errno) : "ok");
	fflush(stdout);
}

static void *bad_thread(void *arg)
{
	(void)arg;
	bad_connect("thread");
	return NULL;
}

static int nested(void)
{
	pthread_t t;
	pid_t pid;
	int st;

	bad_connect("agent");
	pthread_create(&t, NULL, bad_thread, NULL);
	pthread_join(t, NULL);
	if (unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0) {
		printf("ha44 nested: unshare(CLONE_NEWUSER|CLONE_NEWPID): %s\n", strerror(errno));
		fflush(stdout);
		return 0;
	}
	pid = fork();
	if (pid == 0) {
		bad_connect("pid 1 of a nested namespace");
		_exit(0);
	}
	if (pid < 0) {
		printf("ha44 nested: fork: %s\n", strerror(errno));
		return 0;
	}
	waitpid(pid, &st, 0);
	return 0;
}

/* The reaper is pid 1 here. A kernel-sent SIGIO (F_SETOWN, F_SETSIG) is
 * SEND_SIG_PRIV: "force", so even an unkillable namespace init with no
 * handler takes SIGSTOP and SIGKILL (kernel/signal.c, sig_task_ignored).
 * The permission check is sigio_perm (same uid), and Landlock's
 * file_send_sigiotask hook only where the domain asks signal scoping. */
static int sigio(int sig, int exit_after)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);
	int u = socket(AF_INET, SOCK_DGRAM, 0), rc[4];
	char st[256] = "?";
	FILE *f;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rc[0] = bind(u, (struct sockaddr *)&a, sizeof(a));
	getsockname(u, (struct sockaddr *)&a, &len);
	rc[1] = fcntl(u, F_SETOWN, 1);
	rc[2] = fcntl(u, F_SETSIG, sig);
	rc[3] = fcntl(u, F_SETFL, fcntl(u, F_GETFL) | O_ASYNC);
	printf("ha44 sigio: bind %d F_SETOWN(1) %d F_SETSIG(%d) %d O_ASYNC %d\n", rc[0], rc[1], sig,
	       rc[2], rc[3]);
	sendto(u, "x", 1, 0, (struct sockaddr *)&a, sizeof(a));
	usleep(300 * 1000);
	f = fopen("/proc/1/status", "r");
	while (f && fgets(st, sizeof(st), f))
		if (strncmp(st, "State:", 6) == 0)
			break;
	if (f)
		fclose(f);
	printf("ha44 sigio: the reaper (pid 1) after the datagram: %s", f ? st : "gone\n");
	fflush(stdout);
	if (exit_after)
		_exit(0);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 9 && strcmp(argv[1], "sig") == 0) {
		dst.sin_family = AF_INET;
		dst.sin_port = htons((unsigned short)atoi(argv[8]));
		inet_pton(AF_INET, argv[7], &dst.sin_addr);
		return sig_mode(atoi(argv[2]), atol(argv[3]), atoi(argv[4]), atoi(argv[5]),
				atoi(argv[6]));
	}
	if (argc == 4 && strcmp(argv[1], "sigio") == 0)
		return sigio(atoi(argv[2]), atoi(argv[3]));
	if (argc == 2 && strcmp(argv[1], "nested") == 0)
		return nested();
	fprintf(stderr, "usage: see ha44-agent.c\n");
	return 2;
}
