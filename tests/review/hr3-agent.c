/*
 * hr3-agent: the third hostile review's attacks on a uid-1000 agent's
 * supervisor (its parent, in subreaper+landlock mode). Each mode prints one
 * line per attempt ("name rc errno") and whether the parent is still alive
 * and not stopped afterwards.
 *
 *     hr3-agent signals        kill/tgkill/rt_sigqueueinfo/pidfd SIGSTOP, SIGIO
 *                              (F_SETOWN+F_SETSIG SIGKILL) and SIGURG to the parent
 *     hr3-agent nosignal       setpriority, sched_setaffinity, SCHED_IDLE,
 *                              ioprio_set, migrate_pages, move_pages,
 *                              process_madvise, /proc/PPID/oom_score_adj
 *     hr3-agent cgkill DIR     DIR: the delegated cgroup the parent sits in
 *                              (DIR/sup); move self to DIR/esc, write DIR/sup/
 *                              cgroup.kill, then keep writing a mark file
 *     hr3-agent cgfreeze DIR   as cgkill with cgroup.freeze
 *     hr3-agent prlimit        prlimit64 on the parent's RLIMIT_CORE (a marker,
 *                              read back from /proc/PPID/limits) through the
 *                              x86-64, i386 (int 0x80) and x32 entries and a
 *                              high-bit pid; and a read of its own limit by pid
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static pid_t sup;

static void line(const char *what, long rc)
{
	printf("%s rc=%ld errno=%s\n", what, rc, rc < 0 ? strerror(errno) : "-");
	fflush(stdout);
}

static void state(const char *when)
{
	char path[64], buf[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)sup);
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		printf("%s parent %d gone\n", when, (int)sup);
	} else {
		char *p = strrchr(buf, ')');
		printf("%s parent %d state %c\n", when, (int)sup, p ? p[2] : '?');
	}
	if (f)
		fclose(f);
	fflush(stdout);
}

static void sigio(int sig)
{
	int p[2];
	char b = 'x';

	if (pipe(p) != 0)
		return;
	line("F_SETOWN", fcntl(p[0], F_SETOWN, sup));
	line("F_SETSIG", fcntl(p[0], F_SETSIG, sig));
	line("O_ASYNC", fcntl(p[0], F_SETFL, O_ASYNC | O_NONBLOCK));
	line("write->sigio", write(p[1], &b, 1));
	usleep(200000);
	state(sig == SIGKILL ? "after-sigio-kill" : "after-sigio-stop");
}

static void sigurg(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001)};
	socklen_t al = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0), s;

	if (bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &al) ||
	    connect(c, (struct sockaddr *)&a, sizeof(a))) {
		line("sigurg-setup", -1);
		return;
	}
	s = accept(l, NULL, NULL);
	line("F_SETOWN(urg)", fcntl(s, F_SETOWN, sup));
	line("send MSG_OOB", send(c, "u", 1, MSG_OOB));
	usleep(200000);
	state("after-sigurg");
}

static void signals(void)
{
	siginfo_t si;
	int pfd;

	line("kill(SIGSTOP)", kill(sup, SIGSTOP));
	line("tgkill(SIGSTOP)", syscall(SYS_tgkill, sup, sup, SIGSTOP));
	memset(&si, 0, sizeof(si));
	si.si_code = SI_QUEUE;
	line("rt_sigqueueinfo", syscall(SYS_rt_sigqueueinfo, sup, SIGSTOP, &si));
	pfd = (int)syscall(SYS_pidfd_open, sup, 0);
	line("pidfd_open", pfd);
	line("pidfd_send_signal", syscall(SYS_pidfd_send_signal, pfd, SIGSTOP, NULL, 0));
	line("kill(-pgid)", kill(-getpgid(sup), SIGSTOP));
	state("after-direct");
	sigurg();
	sigio(SIGSTOP);
	sigio(SIGKILL);
}

static void nosignal(void)
{
	cpu_set_t set;
	struct sched_param sp = {0};
	unsigned long nodes = 1;
	void *page = NULL;
	int status = 0, pfd, fd;
	struct iovec iov;
	char path[64];

	line("setpriority(19)", setpriority(PRIO_PROCESS, sup, 19));
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	line("sched_setaffinity(cpu0)", sched_setaffinity(sup, sizeof(set), &set));
	line("sched_setscheduler(IDLE)", sched_setscheduler(sup, SCHED_IDLE, &sp));
	line("ioprio_set(IDLE)", syscall(SYS_ioprio_set, 1, sup, 3 << 13));
	line("migrate_pages", syscall(SYS_migrate_pages, sup, 64, &nodes, &nodes));
	line("move_pages(query)", syscall(SYS_move_pages, sup, 1, &page, NULL, &status, 0));
	pfd = (int)syscall(SYS_pidfd_open, sup, 0);
	iov.iov_base = (void *)0x400000;
	iov.iov_len = 4096;
	line("process_madvise(PAGEOUT)", syscall(SYS_process_madvise, pfd, &iov, 1, 21, 0));
	snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", (int)sup);
	fd = open(path, O_WRONLY);
	line("open oom_score_adj", fd);
	if (fd >= 0)
		line("write oom_score_adj", write(fd, "1000", 4));
	snprintf(path, sizeof(path), "/proc/%d/timerslack_ns", (int)sup);
	fd = open(path, O_WRONLY);
	line("open timerslack_ns", fd);
	state("after-nosignal");
}

static int put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	long r;

	if (fd < 0)
		return -1;
	r = write(fd, s, strlen(s));
	close(fd);
	return r < 0 ? -1 : 0;
}

static void cgroup(const char *dir, const char *knob, const char *mark)
{
	char path[512], pid[32];

	snprintf(path, sizeof(path), "%s/esc", dir);
	line("mkdir esc", mkdir(path, 0755));
	snprintf(path, sizeof(path), "%s/esc/cgroup.procs", dir);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	line("move self to esc", put(path, pid));
	if (fork() == 0) {
		/* a descendant that should die with the run */
		setsid();
		for (int i = 0; i < 60; i++) {
			FILE *f = fopen(mark, "a");
			if (f) {
				fprintf(f, "%d alive ppid %d\n", i, (int)getppid());
				fclose(f);
			}
			sleep(1);
		}
		_exit(0);
	}
	snprintf(path, sizeof(path), "%s/sup/%s", dir, knob);
	line(knob, put(path, "1"));
	usleep(300000);
	state("after-cgroup");
	sleep(30);
}

static struct rlimit32 {
	unsigned long long cur, max;
} mark32 = {12345, RLIM_INFINITY};

static void core_of_parent(const char *when)
{
	char path[64], buf[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/limits", (int)sup);
	f = fopen(path, "r");
	while (f && fgets(buf, sizeof(buf), f))
		if (strncmp(buf, "Max core", 8) == 0)
			printf("%s: %s", when, buf);
	if (f)
		fclose(f);
	fflush(stdout);
}

static void prlimits(void)
{
	struct rlimit mine, mark = {12345, RLIM_INFINITY};
	long r;

	core_of_parent("before");
	line("prlimit64(getpid(), read NOFILE)",
	     syscall(SYS_prlimit64, getpid(), RLIMIT_NOFILE, NULL, &mine));
	line("prlimit64(ppid|1<<32)",
	     syscall(SYS_prlimit64, (1ul << 32) | (unsigned long)sup, RLIMIT_CORE, &mark, NULL));
	line("prlimit64(1<<32: self)",
	     syscall(SYS_prlimit64, 1ul << 32, RLIMIT_NOFILE, NULL, &mine));
	/* i386 prlimit64 (340): the marker must sit below 4 GiB (static, non-PIE). */
	__asm__ volatile("int $0x80"
			 : "=a"(r)
			 : "a"(340), "b"(sup), "c"(RLIMIT_CORE), "d"(&mark32), "S"(0)
			 : "memory");
	errno = r < 0 ? (int)-r : 0;
	line("i386 prlimit64(ppid)", r < 0 ? -1 : r);
	r = syscall(0x40000000 | 302, sup, RLIMIT_CORE, &mark, NULL);
	line("x32 prlimit64(ppid)", r);
	core_of_parent("after");
}

int main(int argc, char **argv)
{
	sup = getppid();
	printf("agent %d parent %d\n", (int)getpid(), (int)sup);
	if (argc == 2 && strcmp(argv[1], "signals") == 0)
		signals();
	else if (argc == 2 && strcmp(argv[1], "nosignal") == 0)
		nosignal();
	else if (argc == 2 && strcmp(argv[1], "prlimit") == 0)
		prlimits();
	else if (argc == 4 && strcmp(argv[1], "cgkill") == 0)
		cgroup(argv[2], "cgroup.kill", argv[3]);
	else if (argc == 4 && strcmp(argv[1], "cgfreeze") == 0)
		cgroup(argv[2], "cgroup.freeze", argv[3]);
	else
		return 2;
	return 0;
}
