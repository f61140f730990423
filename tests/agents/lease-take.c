/*
 * lease-take DIR: takes a read lease on DIR/lease-file (made if missing)
 * with F_SETLEASE, then F_SETDELEG (Linux 6.19) read delegations on that
 * file and on DIR itself, and gives each back at once. A lease or a
 * delegation on a file of the agent's uid needs no capability, and while
 * it is held every process that opens the file for writing (or, for a
 * directory, creates, unlinks or renames in it) waits up to
 * fs.lease-break-time (review h-attack41, h-attack43).
 *
 * Logs each call ("F_SETLEASE", "F_SETDELEG_file", "F_SETDELEG_dir": its
 * result and errno). Exit 0 when no lease or delegation was granted, else 1.
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

/* include/uapi/linux/fcntl.h, 6.19: F_LINUX_SPECIFIC_BASE + 16, and its
 * argument (struct delegation). */
#define LT_F_SETDELEG 1040
struct lt_delegation {
	unsigned int d_flags;
	unsigned short d_type;
	unsigned short d_pad;
};

/* Raw, so musl's fcntl wrapper passes the command through untouched. */
static long take(int fd, int cmd, long arg, const char *what)
{
	long r = syscall(SYS_fcntl, fd, cmd, arg);
	int err = r < 0 ? errno : 0;

	agent_log(what, NULL, r, err, NULL);
	if (r == 0) {
		if (cmd == F_SETLEASE)
			(void)syscall(SYS_fcntl, fd, F_SETLEASE, (long)F_UNLCK);
		else {
			struct lt_delegation un = {.d_type = F_UNLCK};

			(void)syscall(SYS_fcntl, fd, LT_F_SETDELEG, (long)&un);
		}
	}
	return r;
}

int main(int argc, char **argv)
{
	char path[4096];
	struct lt_delegation rd = {.d_type = F_RDLCK};
	int fd, dfd, granted = 0;

	agent_init("lease-take");
	if (argc != 2)
		return agent_usage("DIR");
	snprintf(path, sizeof(path), "%s/lease-file", argv[1]);
	fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0600);
	dfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || dfd < 0) {
		perror("lease-take: open");
		return 2;
	}
	granted += take(fd, F_SETLEASE, F_RDLCK, "F_SETLEASE") == 0;
	granted += take(fd, LT_F_SETDELEG, (long)&rd, "F_SETDELEG_file") == 0;
	granted += take(dfd, LT_F_SETDELEG, (long)&rd, "F_SETDELEG_dir") == 0;
	return granted ? 1 : 0;
}
