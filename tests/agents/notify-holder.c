/*
 * notify-holder: runs PROGRAM under a seccomp filter with a listener of its
 * own, as a container runtime's SCMP_ACT_NOTIFY profile or another
 * supervisor would: the filter traps only acct(2), which nothing here
 * calls, and nobody ever reads the listener. A second listener in the same
 * filter chain is refused by the kernel (EBUSY): what a supervisor started
 * under it meets. Not an agent: no log.
 *
 *     notify-holder PROGRAM [ARG]...
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sock_filter prog[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_acct, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fprog = {.len = sizeof(prog) / sizeof(prog[0]), .filter = prog};
	long fd;

	if (argc < 2)
		return agent_usage("PROGRAM [ARG]...");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return 1;
	fd =
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &fprog);
	if (fd < 0) {
		fprintf(stderr, "notify-holder: seccomp: %s\n", strerror(errno));
		return 1;
	}
	/* The listener must stay open across the exec: the kernel forgets a
	 * filter's listener when its last descriptor closes, and it is made
	 * close-on-exec. */
	if (fcntl((int)fd, F_SETFD, 0) != 0)
		return 1;
	execvp(argv[1], argv + 1);
	fprintf(stderr, "notify-holder: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
