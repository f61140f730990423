/*
 * hf3-bpfkill: a supervisor of another design for the appliance (review
 * h-foreign3). "Deny in BPF, no listener": a plain seccomp filter, no user
 * notification, no reading of the agent's memory. A BPF program cannot
 * read a socket name, so it cannot tell loopback from the world: this
 * supervisor allows the agent no network at all, only AF_UNIX sockets
 * without a name (socketpair, or an unnamed socket), and makes every
 * refusal visible to itself by making it SECCOMP_RET_KILL_PROCESS: the
 * agent is one process (threads allowed; a fork is itself a refused call),
 * so whatever it tried ends it with SIGSYS, which waitpid shows.
 *
 * Verdict: fail when the agent died of SIGSYS (something was refused),
 * pass otherwise (nothing was tried that it refuses; nothing else can
 * reach the network). It says capability-error when it cannot install the
 * filter. report = none (exit statuses 0/1/3).
 *
 * What it refuses (kills): any syscall of a foreign ABI (i386, x32);
 * socket() and socketpair() of a family other than AF_UNIX; connect, bind,
 * listen, accept, sendto with a name, sendmsg, sendmmsg (a msghdr is in
 * memory: its name cannot be seen from BPF), io_uring_*, ptrace,
 * process_vm_writev, pidfd_getfd, fork, vfork, clone without CLONE_THREAD,
 * clone3 (flags in memory), setns, unshare. The agent gets no descriptor
 * but 0-2, and none of those is a socket or a terminal.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define KILL SECCOMP_RET_KILL_PROCESS
#define ALLOW SECCOMP_RET_ALLOW
#define LD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define KILL_IF(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, KILL)

static int install(void)
{
	struct sock_filter f[] = {
	    LD(arch),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, KILL),
	    LD(nr),
	    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, KILL),
	    KILL_IF(SYS_connect),
	    KILL_IF(SYS_bind),
	    KILL_IF(SYS_listen),
	    KILL_IF(SYS_accept),
	    KILL_IF(SYS_accept4),
	    KILL_IF(SYS_sendmsg),
	    KILL_IF(SYS_sendmmsg),
	    KILL_IF(SYS_io_uring_setup),
	    KILL_IF(SYS_io_uring_enter),
	    KILL_IF(SYS_io_uring_register),
	    KILL_IF(SYS_ptrace),
	    KILL_IF(SYS_process_vm_writev),
	    KILL_IF(438), /* pidfd_getfd */
	    KILL_IF(SYS_fork),
	    KILL_IF(SYS_vfork),
	    KILL_IF(435), /* clone3 */
	    KILL_IF(SYS_setns),
	    KILL_IF(SYS_unshare),
	    /* sendto: a name (args[4], both words) is refused; none is a
	     * send on a connected socket, which only socketpair can make. */
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_sendto, 0, 6),
	    LD(args[4]),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[4]) + 4),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, ALLOW),
	    BPF_STMT(BPF_RET | BPF_K, KILL),
	    /* socket, socketpair: AF_UNIX only. */
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 1, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socketpair, 0, 4),
	    LD(args[0]),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, ALLOW),
	    BPF_STMT(BPF_RET | BPF_K, KILL),
	    /* clone: threads only (A is still nr here). */
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4),
	    LD(args[0]),
	    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, ALLOW),
	    BPF_STMT(BPF_RET | BPF_K, KILL),
	    BPF_STMT(BPF_RET | BPF_K, ALLOW),
	};
	struct sock_fprog prog = {sizeof(f) / sizeof(f[0]), f};

	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

int main(int argc, char **argv)
{
	char **av = NULL;
	int i, status, err[2];
	pid_t pid;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			av = argv + i + 1;
			break;
		}
	if (!av || !av[0])
		return 2;
	close(9); /* report = none: the agent must not inherit the channel */
	if (pipe2(err, O_CLOEXEC) < 0)
		return 3;
	pid = fork();
	if (pid < 0)
		return 3;
	if (pid == 0) {
		int fd, null;
		struct stat st;

		null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		for (fd = 1; fd <= 2; fd++)
			if (fstat(fd, &st) < 0 || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode))
				dup2(null, fd);
		for (fd = 3; fd < 4096; fd++)
			if (fd != err[1])
				close(fd);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || install() < 0) {
			int e = errno;
			if (write(err[1], &e, sizeof(e)) < 0)
				_exit(127);
			_exit(127);
		}
		execv(av[0], av);
		_exit(127);
	}
	close(err[1]);
	{
		int e;
		ssize_t n = read(err[0], &e, sizeof(e));
		waitpid(pid, &status, 0);
		if (n == sizeof(e)) {
			fprintf(stderr, "hf3-bpfkill: filter: %s\n", strerror(e));
			return 3;
		}
	}
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS) {
		fprintf(stderr, "hf3-bpfkill: the agent made a refused call: fail\n");
		return 1;
	}
	fprintf(stderr, "hf3-bpfkill: agent status %#x, nothing refused: pass\n", status);
	return 0;
}
