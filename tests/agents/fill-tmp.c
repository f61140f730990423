/*
 * fill-tmp: fills the file system of DIR (a directory it may write, such as
 * /tmp/sv) until a write fails, runs PROGRAM (another agent) as its child
 * with that file system full, then frees it and exits with the child's
 * status: whatever else shares that file system cannot write while PROGRAM
 * runs, and has room again afterwards (hostile review h-attack34, finding 5:
 * the guest's sink used to keep its record there). With --keep it leaves
 * the file system full when it exits (review h-attack43: the guest's init
 * wrote its own record of the cell there after the run).
 *
 *   fill-tmp [--keep] DIR PROGRAM [ARG...]
 *
 * Logs "fill" with the bytes written (result) and the errno that stopped
 * it; the log itself is on the full file system when DIR is the log's, so
 * that line is written before the fill and the program's own lines may be
 * lost (agentlib never tears one).
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[65536];
	char path[4096];
	long long total = 0;
	int fd, status = 0, err = 0, keep = 0;
	pid_t pid;

	agent_init("fill-tmp");
	if (argc > 1 && strcmp(argv[1], "--keep") == 0) {
		keep = 1;
		argv++;
		argc--;
	}
	if (argc < 3)
		return agent_usage("[--keep] DIR PROGRAM [ARG...]");
	snprintf(path, sizeof(path), "%s/fill-tmp.junk", argv[1]);
	agent_log("fill", argv[1], 0, 0, NULL);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		agent_log("fill", argv[1], -1, errno, NULL);
		return 1;
	}
	for (;;) {
		ssize_t w = write(fd, buf, sizeof(buf));

		if (w <= 0) {
			err = w < 0 ? errno : ENOSPC;
			break;
		}
		total += w;
	}
	/* Smaller pieces: what is left below one buffer. */
	for (;;) {
		ssize_t w = write(fd, buf, 512);

		if (w <= 0)
			break;
		total += w;
	}
	fprintf(stderr, "fill-tmp: %lld bytes written to %s (stopped by %s)\n", total, path,
		strerror(err));
	pid = fork();
	if (pid == 0) {
		execv(argv[2], &argv[2]);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	close(fd);
	if (!keep)
		unlink(path);
	agent_log("fill", argv[1], (long)(total >> 10), err,
		  keep ? ",\"freed\":false" : ",\"freed\":true");
	if (pid < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
