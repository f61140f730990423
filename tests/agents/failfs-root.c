/*
 * failfs-root DEST: sends one UDP datagram to DEST (undeclared in its
 * scenario: denied, so fail is due), then moves its root to failfs with
 * Linux 7.3's fchroot(FD_FAILFS_ROOT) (no capability needed under
 * no_new_privs; ENOSYS before 7.3), then connects an AF_UNIX socket to a
 * path name. A root agent's names are looked up through /proc/TID/root,
 * which failfs will not open: a supervisor that calls that a mechanism
 * failure lets the agent choose capability-error over its fail (review
 * h-attack47).
 *
 * Logs "sendto", "fchroot" and "connect" (result and errno). Exit 0.
 */
#include "agentlib.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#define FF_NR_FCHROOT 472 /* x86_64 and i386, Linux 7.3 */
#define FF_FD_FAILFS_ROOT (-10004)

int main(int argc, char **argv)
{
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	struct agent_dest d;
	long r;
	int fd;

	agent_init("failfs-root");
	if (argc != 2 || agent_parse_dest(argv[1], &d) < 0)
		return agent_usage("DEST");
	fd = socket(d.family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	r = sendto(fd, "secret", 6, 0, (const struct sockaddr *)&d.ss, d.len);
	agent_log("sendto", d.text, r, errno, NULL);
	close(fd);
	r = syscall(FF_NR_FCHROOT, FF_FD_FAILFS_ROOT, 0);
	agent_log("fchroot", NULL, r, errno, NULL);
	strcpy(un.sun_path, "/egress-failfs-none");
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	r = connect(fd, (const struct sockaddr *)&un, sizeof(un));
	agent_log("connect", "unix:/egress-failfs-none", r, errno, NULL);
	close(fd);
	return 0;
}
