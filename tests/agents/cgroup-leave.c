/*
 * cgroup-leave: a root agent's child leaves the run's cgroup (review
 * h-attack71, finding 2). The child writes "0" (itself) to CGROUP's
 * cgroup.procs, logs the answer and lives SECS seconds; the agent exits 0
 * as soon as the child has tried. A root process owns the root cgroup's
 * cgroup.procs, so only what the supervisor does to the cgroup file system
 * (read-only in its run) keeps the child where the guest's survivors check
 * looks; a supervisor that contains nothing leaves a survivor the check
 * must still find (tests/bundles/passthrough in make bundle-smoke).
 *
 *     cgroup-leave CGROUP SECS [plain|zleader|chain|cover]
 *
 * Shapes of the child after its move (reviews h-attack74): zleader, its
 * leader exits and a thread lives on (/proc/PID/stat says Z); chain, it
 * forks to a new pid every 5 ms; cover, it joins init's mount namespace
 * (/proc/1/ns/mnt) and mounts an empty tmpfs over its own /proc/PID there,
 * so a walk of init's /proc cannot read it.
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long secs;

static void *live_on(void *arg)
{
	(void)arg;
	sleep((unsigned)secs);
	_exit(0);
	return NULL;
}

/* cover, before the agent may exit: init's mount namespace joined and an
 * empty tmpfs over the child's own /proc/PID there. */
static void cover(void)
{
	char path[64];
	int ns = open("/proc/1/ns/mnt", O_RDONLY | O_CLOEXEC);
	long r = ns >= 0 ? setns(ns, CLONE_NEWNS) : -1;

	agent_log("setns_init_mnt", "/proc/1/ns/mnt", r, errno, NULL);
	snprintf(path, sizeof(path), "/proc/%d", (int)getpid());
	r = r == 0 ? mount("cover", path, "tmpfs", MS_RDONLY, NULL) : -1;
	agent_log("mount_over_own_proc", path, r, errno, NULL);
}

/* After the move: what the child does until SECS have passed. */
static void live(const char *shape)
{
	if (strcmp(shape, "zleader") == 0) {
		pthread_t t;

		if (pthread_create(&t, NULL, live_on, NULL) == 0)
			syscall(SYS_exit, 0); /* the leader alone */
	} else if (strcmp(shape, "chain") == 0) {
		struct timespec start, now;

		clock_gettime(CLOCK_MONOTONIC, &start);
		do {
			struct timespec tick = {0, 5 * 1000 * 1000};

			nanosleep(&tick, NULL);
			if (fork() > 0)
				_exit(0); /* the parent goes; its child carries on */
			clock_gettime(CLOCK_MONOTONIC, &now);
		} while (now.tv_sec - start.tv_sec < secs);
		_exit(0);
	}
	sleep((unsigned)secs);
}

int main(int argc, char **argv)
{
	char path[512], c = 0;
	const char *shape = argc == 4 ? argv[3] : "plain";
	int p[2];
	pid_t pid;

	agent_init("cgroup-leave");
	if (argc < 3 || argc > 4 || (secs = agent_parse_count(argv[2])) < 0 ||
	    (strcmp(shape, "plain") != 0 && strcmp(shape, "zleader") != 0 &&
	     strcmp(shape, "chain") != 0 && strcmp(shape, "cover") != 0) ||
	    (size_t)snprintf(path, sizeof(path), "%s/cgroup.procs", argv[1]) >= sizeof(path))
		return agent_usage("CGROUP SECS [plain|zleader|chain|cover]");
	if (pipe(p) != 0 || (pid = fork()) < 0) {
		agent_log("fork", NULL, -1, errno, NULL);
		return 1;
	}
	if (pid == 0) {
		int fd = open(path, O_WRONLY | O_CLOEXEC), err = fd < 0 ? errno : 0;
		long r = -1;

		close(p[0]);
		if (fd >= 0) {
			r = write(fd, "0", 1);
			err = r < 0 ? errno : 0;
			close(fd);
		}
		agent_log("cgroup_move", path, r, err, NULL);
		if (strcmp(shape, "cover") == 0)
			cover();
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		close(p[1]);
		live(shape);
		_exit(0);
	}
	close(p[1]);
	/* The child has tried before we go: the check that follows our exit
	 * must find it wherever it went. */
	if (read(p[0], &c, 1) != 1)
		return 1;
	return 0;
}
