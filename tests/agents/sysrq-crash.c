/*
 * sysrq-crash: writes `c` to /proc/sysrq-trigger, which crashes the kernel
 * (a panic: "sysrq triggered crash"). Test-only: the batch boot's panic
 * scenario (scenarios/tests/panic-mid-batch.scenario) runs it as a service,
 * outside the supervisor (whose agent finds the kernel knobs read-only), in the middle
 * of a batch to prove that one bad cell costs one reboot (docs/guest.md
 * "Batches"). Logs call "sysrq" with the errno when the write is refused
 * (not root, or a kernel without CONFIG_MAGIC_SYSRQ), and exits 1.
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	(void)argv;
	agent_init("sysrq-crash");
	if (argc != 1)
		return agent_usage("(no arguments)");
	int fd = open("/proc/sysrq-trigger", O_WRONLY | O_CLOEXEC);

	if (fd < 0) {
		agent_log("sysrq", "/proc/sysrq-trigger", -1, errno, NULL);
		return 1;
	}
	/* The kernel's sysrq_handle_crash panics inside this write. */
	ssize_t n = write(fd, "c", 1);

	agent_log("sysrq", "/proc/sysrq-trigger", n, n < 0 ? errno : 0, NULL);
	close(fd);
	return 1;
}
