/*
 * ha78-chain N: the agent builds a chain of N processes (each forks the
 * next and waits in pause()), then exits 0 once the deepest says it is up.
 * What it leaves keeps the run going; 5 s later the supervisor's main
 * thread walks every /proc entry's parents in sv_descendants_describe,
 * with a linear search per hop: about N^3/6 steps for a chain of N.
 * While it walks, a SIGTERM from the caller waits (ha78-chain.sh).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000, p[2];
	char c = 'x';

	if (pipe(p) != 0)
		return 2;
	for (int depth = 0; depth < n; depth++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "ha78-chain: fork failed at depth %d\n", depth);
			if (write(p[1], &c, 1) < 0)
				return 2;
			break;
		}
		if (pid > 0) {
			if (depth == 0) {
				/* The agent itself: waits for the deepest, then exits. */
				close(p[1]);
				if (read(p[0], &c, 1) != 1)
					return 2;
				fprintf(stderr, "ha78-chain: chain of %d up, agent exits\n", n);
				return 0;
			}
			for (;;)
				pause();
		}
		if (depth == n - 1) {
			if (write(p[1], &c, 1) < 0)
				return 2;
		}
	}
	close(p[0]);
	close(p[1]);
	for (;;)
		pause();
}
