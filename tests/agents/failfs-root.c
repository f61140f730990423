/*
 * failfs-root [--i386] DEST: sends one UDP datagram to DEST (undeclared in its
 * scenario: denied, so fail is due), then moves its root to failfs with
 * Linux 7.3's fchroot(FD_FAILFS_ROOT) (no capability needed under
 * no_new_privs; ENOSYS before 7.3), then connects an AF_UNIX socket to a
 * path name. A root agent's names are looked up through /proc/TID/root,
 * which failfs will not open: a supervisor that calls that a mechanism
 * failure lets the agent choose capability-error over its fail (review
 * h-attack47).
 *
 * With --i386 the fchroot is made through int $0x80 (the i386 ABI, where
 * the supervisor's own filter cannot name it by number).
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

/* int $0x80 from 64-bit code; r8-r11 are not preserved on every kernel. A
 * kernel without IA32 emulation raises SIGSEGV: the agent then dies. */
static long int80(long nr, long a, long b)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b)
			 : "r8", "r9", "r10", "r11", "memory");
	return ret;
}

int main(int argc, char **argv)
{
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	struct agent_dest d;
	long r;
	int fd, i386 = argc > 1 && strcmp(argv[1], "--i386") == 0;

	agent_init("failfs-root");
	argv += i386;
	argc -= i386;
	if (argc != 2 || agent_parse_dest(argv[1], &d) < 0)
		return agent_usage("[--i386] DEST");
	fd = socket(d.family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	r = sendto(fd, "secret", 6, 0, (const struct sockaddr *)&d.ss, d.len);
	agent_log("sendto", d.text, r, errno, NULL);
	close(fd);
	if (i386) {
		r = int80(FF_NR_FCHROOT, FF_FD_FAILFS_ROOT, 0);
		errno = r < 0 ? (int)-r : 0;
		r = r < 0 ? -1 : r;
	} else {
		r = syscall(FF_NR_FCHROOT, FF_FD_FAILFS_ROOT, 0);
	}
	agent_log(i386 ? "fchroot_i386" : "fchroot", NULL, r, errno, NULL);
	strcpy(un.sun_path, "/egress-failfs-none");
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	r = connect(fd, (const struct sockaddr *)&un, sizeof(un));
	agent_log("connect", "unix:/egress-failfs-none", r, errno, NULL);
	close(fd);
	return 0;
}
