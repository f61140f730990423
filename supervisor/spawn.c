#include "spawn.h"

#include <errno.h>
#include <linux/capability.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "filter.h"

/* Capabilities that would let the agent step around mediation: raw and
 * packet sockets, routing and netfilter, BPF hooks, and ptrace or memory
 * access to the supervisor itself. */
static const int risky_caps[] = {
    12 /* NET_ADMIN */,  13 /* NET_RAW */,   16 /* SYS_MODULE */, 17 /* SYS_RAWIO */,
    19 /* SYS_PTRACE */, 21 /* SYS_ADMIN */, 38 /* PERFMON */,    39 /* BPF */};

/* Removes risky_caps from every set. For a root supervisor that is what
 * keeps a root agent mediated; an unprivileged one holds none of them and
 * cannot drop from the bounding set (EPERM, on purpose ignored: no_new_privs
 * already stops exec from granting file capabilities). Unknown capabilities
 * on older kernels (EINVAL) are likewise nothing to drop. */
static void drop_risky_caps(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];

	for (size_t i = 0; i < sizeof(risky_caps) / sizeof(risky_caps[0]); i++)
		prctl(PR_CAPBSET_DROP, risky_caps[i], 0, 0, 0);
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (syscall(SYS_capget, &h, d) != 0)
		return;
	for (size_t i = 0; i < sizeof(risky_caps) / sizeof(risky_caps[0]); i++) {
		unsigned idx = (unsigned)risky_caps[i] / 32, bit = 1u << (risky_caps[i] % 32);

		d[idx].effective &= ~bit;
		d[idx].permitted &= ~bit;
		d[idx].inheritable &= ~bit;
	}
	syscall(SYS_capset, &h, d);
}

static void child(pid_t parent, int report_fd, void (*fn)(void *), void *arg)
{
	sigset_t none;
	int msg[2];

	/* The agent never outlives the supervisor. The check after prctl closes
	 * the window where the parent died before it took effect. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGUSR1, SIG_DFL);
	/* The supervisor is not dumpable (so the agent cannot write into it);
	 * the child must be, like an exec'd agent, or the canary would prove
	 * access to a process unlike the agent. */
	prctl(PR_SET_DUMPABLE, 1);
	drop_risky_caps();

	msg[0] = sv_filter_install();
	msg[1] = 0;
	/* From here on the parent may close and open descriptors: take a private
	 * copy of the table before telling it where the listener is. */
	if (unshare(CLONE_FILES) != 0)
		msg[1] = -errno;
	if (write(report_fd, msg, sizeof(msg)) != (ssize_t)sizeof(msg) || msg[0] < 0 || msg[1])
		_exit(127);
	close(report_fd);
	close(msg[0]); /* our copy of the listener; close-on-exec anyway */
	fn(arg);
	_exit(127);
}

/* Our own copy of the write end stays open while the table is shared, so a
 * child that dies before reporting never gives us EOF: watch the child too. */
static ssize_t wait_report(int fd, pid_t pid, int *msg, size_t len)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	siginfo_t si;

	for (;;) {
		int rc = poll(&pfd, 1, 50);

		if (rc > 0) {
			ssize_t n = read(fd, msg, len);

			if (n < 0 && errno == EINTR)
				continue;
			return n;
		}
		if (rc < 0 && errno != EINTR)
			return -1;
		si.si_pid = 0;
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid == pid) {
			errno = ECHILD;
			return -1;
		}
	}
}

int sv_spawn(struct sv_child *out, void (*fn)(void *arg), void *arg)
{
	pid_t parent = getpid();
	int p[2], msg[2];
	ssize_t n;
	long pid;

	if (pipe2(p, O_CLOEXEC) != 0)
		return -errno;
	/* A raw clone with CLONE_FILES and no new stack behaves like fork but
	 * shares the fd table. The child only uses async-signal-safe calls and
	 * libseccomp before it unshares. */
	pid = syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);
	if (pid < 0) {
		int err = -errno;
		close(p[0]);
		close(p[1]);
		return err;
	}
	if (pid == 0)
		child(parent, p[1], fn, arg);
	/* Until the child has unshared, both share one table: touch nothing. */
	n = wait_report(p[0], (pid_t)pid, msg, sizeof(msg));
	close(p[0]);
	close(p[1]);
	out->pid = (pid_t)pid;
	out->listener = -1;
	out->install_err = 0;
	if (n != (ssize_t)sizeof(msg)) {
		out->install_err = n < 0 ? -errno : -EPIPE;
		return 0;
	}
	if (msg[0] < 0) {
		out->install_err = msg[0];
		return 0;
	}
	if (msg[1]) {
		close(msg[0]);
		out->install_err = msg[1];
		return 0;
	}
	out->listener = msg[0];
	return 0;
}
