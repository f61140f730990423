/*
 * ll-oom MARK: the agent of a uid-1000 supervisor whose memory cgroup has a
 * limit (a systemd unit's MemoryMax=, a container's --memory). It makes the
 * kernel's OOM killer end its supervisor, with no signal and no write of
 * its own: it forks small children (a fork of a static binary maps about
 * 100 kB) until the cgroup is out of memory; the OOM killer takes the task
 * with the most memory, which is the supervisor (a few hundred kB). A
 * setsid grandchild appends "PID ppid PPID" to MARK every 200 ms: with the
 * supervisor (the subreaper) gone it lives on with ppid 1. The children
 * exit once the supervisor is gone. ll-oom.sh sets it up.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static char sp[64];
static int alive(void)
{
	char b[256];
	int fd = open(sp, O_RDONLY);
	if (fd < 0)
		return 0;
	int n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	b[n] = 0;
	char *r = strrchr(b, ')');
	return r && r[2] != 'Z' && r[2] != 'X';
}
int main(int argc, char **argv)
{
	pid_t sup = getppid();
	snprintf(sp, sizeof(sp), "/proc/%d/stat", (int)sup);
	if (fork() == 0) {
		setsid();
		if (fork() == 0) {
			for (;;) {
				int fd = open(argv[1], O_WRONLY | O_APPEND);
				char b[64];
				int n = snprintf(b, sizeof(b), "%d ppid %d\n", getpid(), getppid());
				if (fd >= 0) {
					(void)!write(fd, b, n);
					close(fd);
				}
				usleep(200000);
			}
		}
		_exit(0);
	}
	for (int i = 0; i < 200000; i++) {
		if (getppid() != sup)
			break;
		pid_t p = fork();
		if (p == 0) {
			while (alive())
				usleep(100000);
			_exit(0);
		}
		if (p < 0)
			usleep(1000);
	}
	printf("agent: supervisor %d gone: %s\n", sup, alive() ? "no" : "yes");
	fflush(stdout);
	sleep(2);
	return 0;
}
