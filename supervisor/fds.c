#include "fds.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

int sv_fds_take(pid_t pid, int theirs)
{
	long pidfd = syscall(SYS_pidfd_open, pid, 0), fd;
	int err;

	if (pidfd < 0)
		return -errno;
	fd = syscall(SYS_pidfd_getfd, (int)pidfd, theirs, 0);
	err = fd < 0 ? -errno : 0;
	close((int)pidfd);
	return err ? err : (int)fd;
}

void sv_fds_close_pair(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0) {
			close(p[i]);
			p[i] = -1;
		}
}
