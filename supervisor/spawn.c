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

#include "caps.h"
#include "fault.h"
#include "filter.h"
#include "landlock.h"

/* Closes the caller's descriptors and runs fn. A descriptor that cannot be
 * closed means the agent must not run: the errno goes to keep_fd. */
static void run_fn(int keep_fd, void (*fn)(void *), void *arg)
{
	int rc = sv_contain_close_fds(keep_fd);

	/* Its own session, without a controlling terminal: TIOCSTI into the
	 * caller's terminal (input its shell runs after the run, outside every
	 * filter) then needs CAP_SYS_ADMIN, which is dropped, and kill(0, ...)
	 * reaches only the agent's own process group, never the caller's. */
#ifndef SV_MUTANT_SHARED_SESSION
	if (rc == 0 && setsid() < 0)
		rc = -errno;
#endif

	if (rc < 0) {
		int err = -rc;

		if (keep_fd >= 0 && write(keep_fd, &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	fn(arg);
	_exit(127);
}

struct child_args {
	pid_t parent;
	int report_fd;
	int status_fd; /* pid-namespace only: write end for the agent's status */
	int keep_fd;
	enum sv_contain_mode mode;
	void (*fn)(void *);
	void *arg;
};

static void child(const struct child_args *a)
{
	int pidns = a->mode != SV_CONTAIN_SUBREAPER;
	sigset_t none;
	int msg[4];
	pid_t ppid;

	/* The agent never outlives the supervisor. The check after prctl closes
	 * the window where the parent died before it took effect. In a new pid
	 * namespace getppid() says 0: /proc, still the supervisor's, says who. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	ppid = pidns ? sv_contain_outer_ppid() : getppid();
	if (ppid != a->parent)
		_exit(127);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGUSR1, SIG_DFL);
	/* Needs CAP_SYS_ADMIN, so before the capabilities are dropped. */
	msg[2] = pidns ? sv_contain_mounts(a->mode == SV_CONTAIN_PIDNS) : 0;
	msg[3] = msg[2] != 0; /* the namespaces' step, not Landlock's */
	/* The supervisor is not dumpable (so the agent cannot write into it);
	 * the child must be, like an exec'd agent, or the canary would prove
	 * access to a process unlike the agent. */
	prctl(PR_SET_DUMPABLE, 1);
	sv_caps_drop_for_agent();

	msg[0] = msg[2] == 0 ? sv_filter_install() : -ECANCELED;
	/* Without a pid namespace, the Landlock domain is what keeps the agent
	 * away from other processes of its uid: required. In a root agent's
	 * pid namespace outsiders cannot be named; the domain is not needed
	 * there. A uid-1000 agent in its user namespace keeps it all the same:
	 * its uid may own a delegated cgroup's files, and another proc mount
	 * would show outsiders of its uid. Its supervisor is outside its pid
	 * namespace, so no signal scope is asked for (nor could it be proven by
	 * signalling a parent this child cannot name). */
	if (msg[0] >= 0 && a->mode != SV_CONTAIN_PIDNS)
		msg[2] = sv_landlock_restrict(a->mode == SV_CONTAIN_SUBREAPER &&
					      sv_landlock_signal_scoped());
	msg[1] = 0;
	/* From here on the parent may close and open descriptors: take a private
	 * copy of the table before telling it where the listener is. */
	if (unshare(CLONE_FILES) != 0)
		msg[1] = -errno;
	if (write(a->report_fd, msg, sizeof(msg)) != (ssize_t)sizeof(msg) || msg[0] < 0 || msg[1] ||
	    msg[2])
		_exit(127);
	close(a->report_fd);
	close(msg[0]); /* our copy of the listener; close-on-exec anyway */
	if (pidns) {
		/* We are init of the namespace: fn runs in our child, we reap.
		 * Our table is a copy of the supervisor's, the caller's
		 * descriptors (the report channel among them) included. The agent
		 * has our uid and may be root without CAP_SYS_PTRACE, so we are
		 * non-dumpable before it exists (it could otherwise open
		 * /proc/1/fd/N before we close them), and it gets its
		 * dumpability back in its own child. */
		pid_t pid;

#ifndef SV_MUTANT_REAPER_HOLDS_FDS
		prctl(PR_SET_DUMPABLE, 0);
#endif
		pid = fork();
		if (pid == 0) {
			close(a->status_fd);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			prctl(PR_SET_DUMPABLE, 1);
			run_fn(a->keep_fd, a->fn, a->arg);
		}
		if (pid < 0)
			_exit(127);
#ifdef SV_MUTANT_REAPER_HOLDS_FDS
		/* MUTANT reaper-holds-fds: dumpable until it reaps, and the
		 * caller's descriptors kept. */
		if (a->keep_fd >= 0)
			close(a->keep_fd);
		prctl(PR_SET_DUMPABLE, 0);
#else
		/* Nothing of ours reaches the agent now that it runs; a failed
		 * close leaves a descriptor only a non-dumpable process holds,
		 * which the agent cannot open, so it does not stop the run. */
		(void)sv_contain_close_fds(a->status_fd);
#endif
		sv_contain_reap(pid, a->status_fd);
	}
	run_fn(a->keep_fd, a->fn, a->arg);
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

/* One attempt in the given mode. *ns_err is set (with contain_err) when the
 * pid and mount namespaces could not be made: the clone refused, or the
 * child's mounts. */
static int spawn_as(struct sv_child *out, void (*fn)(void *arg), void *arg, int keep_fd,
		    enum sv_contain_mode mode, int *ns_err)
{
	struct child_args a = {.parent = getpid(),
			       .status_fd = -1,
			       .keep_fd = keep_fd,
			       .mode = mode,
			       .fn = fn,
			       .arg = arg};
	unsigned long flags = CLONE_FILES | SIGCHLD;
	int p[2], st[2] = {-1, -1}, msg[4], rc;
	ssize_t n;
	long pid;

	*out = (struct sv_child){.pid = -1, .listener = -1, .status_fd = -1, .mode = mode};
	if (pipe2(p, O_CLOEXEC) != 0)
		return -errno;
	if (a.mode != SV_CONTAIN_SUBREAPER) {
		if (pipe2(st, O_CLOEXEC) != 0) {
			rc = -errno;
			close(p[0]);
			close(p[1]);
			return rc;
		}
		flags |= CLONE_NEWPID | CLONE_NEWNS;
	}
	a.report_fd = p[1];
	a.status_fd = st[1];
	/* A raw clone with CLONE_FILES and no new stack behaves like fork but
	 * shares the fd table. The child only uses async-signal-safe calls and
	 * libseccomp before it unshares. */
	/* Seam: a kernel without pid namespaces answers EINVAL to CLONE_NEWPID. */
	rc = a.mode != SV_CONTAIN_SUBREAPER ? sv_fault("clone_newpid") : 0;
	pid = rc < 0 ? (errno = -rc, -1L) : syscall(SYS_clone, flags, 0, 0, 0, 0);
	/* The pid namespace of the user namespace trial or of the probe's
	 * canary, just reaped, may still count against user.max_pid_namespaces
	 * (contain.h): ENOSPC is asked again a while before it is believed. */
	for (int tries = 0; pid < 0 && errno == ENOSPC && a.mode != SV_CONTAIN_SUBREAPER &&
			    tries < SV_NS_ENOSPC_TRIES;
	     tries++) {
#ifdef SV_MUTANT_TRIAL_HOLDS_SLOT
		break;
#endif
		usleep(SV_NS_ENOSPC_WAIT_US);
		pid = syscall(SYS_clone, flags, 0, 0, 0, 0);
	}
	if (pid < 0) {
		int err = -errno;
		close(p[0]);
		close(p[1]);
		if (st[0] >= 0) {
			close(st[0]);
			close(st[1]);
		}
		/* EINVAL: a kernel without CONFIG_PID_NS or CONFIG_NAMESPACES. A
		 * containment failure, not a failure to start a process. In our
		 * own user namespace any refusal is one (an LSM that denies the
		 * capabilities a new user namespace gives: Ubuntu's AppArmor). */
		if ((a.mode == SV_CONTAIN_PIDNS && err == -EINVAL) || a.mode == SV_CONTAIN_USERNS) {
			out->contain_err = err;
			*ns_err = err;
			return 0;
		}
		return err;
	}
	if (pid == 0)
		child(&a);
	/* Until the child has unshared, both share one table: touch nothing. */
	n = wait_report(p[0], (pid_t)pid, msg, sizeof(msg));
	close(p[0]);
	close(p[1]);
	if (st[1] >= 0)
		close(st[1]);
	out->pid = (pid_t)pid;
	out->status_fd = st[0];
	if (n != (ssize_t)sizeof(msg)) {
		out->install_err = n < 0 ? -errno : -EPIPE;
		return 0;
	}
	if (msg[2] < 0) {
		if (msg[0] >= 0)
			close(msg[0]);
		out->contain_err = msg[2];
		if (msg[3])
			*ns_err = msg[2];
		return 0;
	}
	if (msg[0] < 0) {
		out->install_err = msg[0];
		return 0;
	}
	if (msg[1]) {
		close(msg[0]);
		out->install_err = msg[1];
		out->unshare_err = msg[1];
		return 0;
	}
	out->listener = msg[0];
	return 0;
}

int sv_spawn(struct sv_child *out, void (*fn)(void *arg), void *arg, int keep_fd)
{
	enum sv_contain_mode mode = SV_CONTAIN_SUBREAPER;
	int rc = sv_contain_choose(&mode), ns_err = 0, status;

	if (rc < 0) {
		*out = (struct sv_child){
		    .pid = -1, .listener = -1, .status_fd = -1, .mode = mode, .contain_err = rc};
		return 0;
	}
	rc = spawn_as(out, fn, arg, keep_fd, mode, &ns_err);
	if (rc < 0 || !ns_err || mode != SV_CONTAIN_USERNS)
		return rc;
	/* Inside our user namespace, but the host would not let us make the
	 * pid and mount namespaces in it: the subreaper, from here on for
	 * every child of the run (the agent as the canary), said in the report.
	 * The failed child exits by itself after reporting. */
	if (out->pid > 0)
		while (waitpid(out->pid, &status, 0) < 0 && errno == EINTR)
			;
	if (out->status_fd >= 0)
		close(out->status_fd);
	sv_contain_fall_back(ns_err);
	return spawn_as(out, fn, arg, keep_fd, SV_CONTAIN_SUBREAPER, &ns_err);
}

int sv_spawn_agent_status(struct sv_child *ch, int child_status)
{
	int status = child_status;
	ssize_t n;

	if (ch->status_fd < 0)
		return child_status;
	do
		n = read(ch->status_fd, &status, sizeof(status));
	while (n < 0 && errno == EINTR);
	close(ch->status_fd);
	ch->status_fd = -1;
	/* Nothing said (the reaper was killed), or the agent never ran (-1). */
	if (n != (ssize_t)sizeof(status) || status < 0)
		return child_status;
	return status;
}
