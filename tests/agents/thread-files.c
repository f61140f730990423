/*
 * thread-files: a thread made with CLONE_THREAD but without CLONE_FILES has
 * its own descriptor table. The thread puts its socket at descriptor 100 of
 * its table, the leader puts another socket at 100 of its own, and the
 * thread connects its 100 to DEST. Afterwards both sockets are asked for
 * their peer: a supervisor that acted on the leader's table would have
 * connected the leader's socket and told the thread it succeeded.
 *
 * Logs one "connect" line (the thread's result) with "thread_peer" and
 * "leader_peer" (ok or the getpeername errno). Exit 0 when what the thread
 * was told is what happened to its own socket and the leader's socket was
 * left alone; 1 otherwise (the lie is logged as "table_mismatch").
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SLOT 100

static struct agent_dest dest;
static atomic_int leader_ready, thread_done;
static long thread_result;
static int thread_err, thread_peer_err, thread_setup_err;

static int peer_err(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	return syscall(SYS_getpeername, fd, &ss, &len) == 0 ? 0 : errno;
}

/* Runs on its own stack with its own table; raw syscalls only (it shares
 * the leader's TLS, so libc state is the leader's). */
static int thread_main(void *arg)
{
	long s = syscall(SYS_socket, dest.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	const struct timespec ms = {.tv_nsec = 1000 * 1000};

	(void)arg;
	if (s < 0 || syscall(SYS_dup3, (int)s, SLOT, O_CLOEXEC) < 0) {
		thread_setup_err = errno;
		atomic_store(&thread_done, 1);
		return 0;
	}
	syscall(SYS_close, (int)s);
	while (!atomic_load(&leader_ready))
		syscall(SYS_nanosleep, &ms, NULL);
	thread_result = syscall(SYS_connect, SLOT, &dest.ss, dest.len);
	thread_err = thread_result < 0 ? errno : 0;
	thread_peer_err = peer_err(SLOT);
	atomic_store(&thread_done, 1);
	return 0;
}

static const char *err_text(int err)
{
	return err ? agent_errno_name(err) : "ok";
}

int main(int argc, char **argv)
{
	static const char usage[] = "DEST";
	size_t stack_size = 256 * 1024;
	char *stack;
	char extra[200];
	int l, leader_peer, told_ok, ok;

	agent_init("thread-files");
	if (argc != 2 || agent_parse_dest(argv[1], &dest) < 0)
		return agent_usage(usage);
	stack = malloc(stack_size);
	if (!stack) {
		agent_log("clone", NULL, -1, ENOMEM, NULL);
		return 1;
	}
	/* No CLONE_FILES: the thread's table is a copy of ours from here on. */
	if (clone(thread_main, stack + stack_size,
		  CLONE_VM | CLONE_FS | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM, NULL) < 0) {
		agent_log("clone", NULL, -1, errno, NULL);
		return 1;
	}
	l = socket(dest.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || dup3(l, SLOT, O_CLOEXEC) < 0) {
		agent_log("socket", NULL, -1, errno, NULL);
		return 1;
	}
	close(l);
	atomic_store(&leader_ready, 1);
	for (int i = 0; i < 20000 && !atomic_load(&thread_done); i++)
		usleep(1000);
	if (!atomic_load(&thread_done) || thread_setup_err) {
		agent_log("thread", NULL, -1, thread_setup_err ? thread_setup_err : ETIMEDOUT,
			  NULL);
		return 1;
	}
	leader_peer = peer_err(SLOT);
	told_ok = thread_result == 0 || thread_err == EINPROGRESS;
	/* Told it connected: its own socket must have a peer; told it failed:
	 * it must not. The leader's socket is never the one to connect. */
	ok = (told_ok ? thread_peer_err == 0 : thread_peer_err != 0) && leader_peer != 0;
	snprintf(extra, sizeof(extra), ",\"thread_peer\":\"%s\",\"leader_peer\":\"%s\"",
		 err_text(thread_peer_err), err_text(leader_peer));
	agent_log("connect", dest.text, thread_result, thread_err, extra);
	if (!ok)
		agent_log("table_mismatch", dest.text, -1, 0, extra);
	return ok ? 0 : 1;
}
