/*
 * bench-allow-filter: runs PROGRAM under a one-instruction seccomp filter
 * that allows every call. Any seccomp supervisor pays at least this much per
 * untrapped syscall (the kernel's entry slow path for a task with a
 * filter), whatever its own filter does; `make bench` compares the
 * supervisor with it so the untrapped-loop figure can be read against the
 * floor of the mechanism itself, measured in the same run.
 *
 *     bench-allow-filter PROGRAM [ARG]...
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	struct sock_fprog prog = {.len = 1, .filter = allow};
	int err;

	if (argc < 2) {
		fprintf(stderr, "usage: bench-allow-filter PROGRAM [ARG]...\n");
		return 2;
	}
	/* No new privileges: a filter without CAP_SYS_ADMIN needs it. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
		err = errno;
		fprintf(stderr,
			"bench-allow-filter: installing the filter: %s (CONFIG_SECCOMP_FILTER?)\n",
			strerror(err));
		return 1;
	}
	execv(argv[1], argv + 1);
	err = errno;
	fprintf(stderr, "bench-allow-filter: exec %s: %s\n", argv[1], strerror(err));
	return 1;
}
