/*
 * x32-connect: connect through the x32 ABI (syscall nr 42 | 0x40000000).
 * ENOSYS means the kernel has no CONFIG_X86_X32_ABI.
 */
#include "agentlib.h"

#include <errno.h>
#include <unistd.h>

#define X32_SYSCALL_BIT 0x40000000L
#define X86_64_CONNECT 42L

int main(int argc, char **argv)
{
	struct agent_dest d;
	long r;
	int fd;

	agent_init("x32-connect");
	if (argc != 2 || agent_parse_dest(argv[1], &d) < 0)
		return agent_usage("DEST");
	fd = socket(d.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		agent_log("socket", d.text, fd, errno, NULL);
		return 0;
	}
	r = syscall(X32_SYSCALL_BIT | X86_64_CONNECT, fd, &d.ss, d.len);
	agent_log("x32_connect", d.text, r, errno, NULL);
	close(fd);
	return 0;
}
