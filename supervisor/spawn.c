#include "spawn.h"

#include <errno.h>
#include <linux/capability.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caps.h"
#include "fault.h"
#include "fds.h"
#include "filterload.h"
#include "landlock.h"
#include "notify.h"

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
	int by_getfd; /* the table is private from the clone; the listener is taken */
	int ack_fd;   /* by_getfd: read end, one byte from the parent once taken */
	int ack_wr;   /* by_getfd: our copy of the write end, closed at once */
	enum sv_contain_mode mode;
	int sentinels; /* pid-namespace: bracket the agent's calls (notify.h) */
	void (*fn)(void *);
	void *arg;
};

/* How the listener reaches the supervisor. A child that shares our table
 * leaves it there without any ptrace-level access; a seccomp profile that
 * refuses unshare (Docker's default does without CAP_SYS_ADMIN) leaves that
 * child no table of its own to run the agent in. From the first such
 * refusal on, every child gets a private table at the clone and the
 * listener is taken from it with pidfd_getfd: the access the run needs for
 * every socket it acts on anyway. */
static struct {
	int by_getfd;
	int refusal; /* errno of the unshare(CLONE_FILES) that was refused */
} handover;

/* In the private-table child: the filter is installed and the parent told
 * where its listener is; wait until the parent has taken it (1) or given
 * up (0, or EOF: it died), then drop our copy. */
static void await_handover(const struct child_args *a, int listener)
{
	char go = 0;
	ssize_t n;

	do
		n = read(a->ack_fd, &go, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1 || go != 1)
		_exit(127);
	close(a->ack_fd);
	close(listener);
}

static void child(const struct child_args *a)
{
	int pidns = a->mode != SV_CONTAIN_SUBREAPER;
	sigset_t none;
	int msg[4], ns_step = 1;
	pid_t ppid;

	/* The agent never outlives the supervisor. The check after prctl closes
	 * the window where the parent died before it took effect. In a new pid
	 * namespace getppid() says 0: /proc, still the supervisor's, says who. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	ppid = pidns ? sv_contain_outer_ppid() : getppid();
	if (ppid != a->parent)
		_exit(127);
	if (a->by_getfd)
		close(a->ack_wr);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGUSR1, SIG_DFL);
	/* Needs CAP_SYS_ADMIN, so before the capabilities are dropped. */
	msg[2] = pidns ? sv_contain_mounts(a->mode == SV_CONTAIN_PIDNS, &ns_step) : 0;
	/* The namespaces' step, not Landlock's nor the working directory's
	 * (review h-attack68: another process of our uid shut a directory
	 * above it, EACCES, and the run fell back to the subreaper). */
	msg[3] = msg[2] != 0 && ns_step;
	/* The supervisor is not dumpable (so the agent cannot write into it);
	 * the child must be, like an exec'd agent, or the canary would prove
	 * access to a process unlike the agent. */
	prctl(PR_SET_DUMPABLE, 1);
	sv_caps_drop_for_agent();

	msg[0] = msg[2] == 0 ? sv_filterload_install(sv_contain_judges_names(a->mode)) : -ECANCELED;
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
	 * copy of the table before telling it where the listener is. (Seam: a
	 * seccomp profile that refuses unshare.) */
	if (!a->by_getfd) {
		msg[1] = sv_fault("unshare_files");
		if (msg[1] == 0 && unshare(CLONE_FILES) != 0)
			msg[1] = -errno;
	}
	if (write(a->report_fd, msg, sizeof(msg)) != (ssize_t)sizeof(msg) || msg[0] < 0 || msg[1] ||
	    msg[2])
		_exit(127);
	close(a->report_fd);
	if (a->by_getfd)
		await_handover(a, msg[0]);
	else
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
#ifndef SV_MUTANT_SENTINELS_ABSENT
		/* MUTANT sentinels-absent: no bracketing calls; the calls the
		 * kernel withdrew before the first and after the last id taken
		 * go uncounted. */
		if (a->sentinels)
			sv_notify_sentinel_call(1);
#endif
#ifndef SV_MUTANT_REAPER_SHARES_SESSION
#ifndef SV_MUTANT_SHARED_SESSION
		/* MUTANT shared-session keeps the agent in the caller's session,
		 * so the reaper stays there too. A session, so an autogroup, of its own: the
		 * namespace's pid 1, it is what the agent names /proc/1, and root owns
		 * /proc/1/autogroup, whose write lowers the nice of every
		 * process in the autogroup with no capability (review
		 * h-attack75: the caller's whole session ran at nice 19 after a
		 * run that passed). Unmade, the agent must not run. */
		if (setsid() < 0)
			_exit(127);
#endif
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
		/* Every task of the namespace is gone, each call of the agent
		 * answered or withdrawn: the next id closes the range. */
#ifndef SV_MUTANT_SENTINELS_ABSENT
		if (a->sentinels)
			sv_notify_sentinel_call(2);
#endif
		_exit(0);
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

/* The listener the private-table child reported as fd number `theirs`,
 * taken with pidfd_getfd (seam: "handover"): a descriptor in our table, or
 * -errno. The child is ours and not reaped, so its pid names it. */
static int take_listener(pid_t pid, int theirs)
{
	int err = sv_fault("handover");

	return err ? err : sv_fds_take(pid, theirs);
}

/* Whether this kernel has SysV IPC an agent could share with outsiders:
 * proven by making (and removing) a private segment. Only ENOSYS says
 * there is none (CONFIG_SYSVIPC=n); any other failure counts as some.
 * Keeps errno. */
static int ipc_to_share(void)
{
	int saved = errno, id, present;

#ifdef SV_MUTANT_IPC_RETRY_BLIND
	/* MUTANT ipc-retry-blind: asked again without CLONE_NEWIPC whatever
	 * the kernel shares, as before. */
	return 0;
#endif
	id = shmget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	present = id >= 0 || errno != ENOSYS;
	if (id >= 0)
		shmctl(id, IPC_RMID, NULL);
	errno = saved;
	return present;
}

/* One attempt in the given mode. *ns_err is set (with contain_err) when the
 * pid and mount namespaces could not be made: the clone refused, or the
 * child's mounts. */
static int spawn_as(struct sv_child *out, void (*fn)(void *arg), void *arg, int keep_fd,
		    int sentinels, enum sv_contain_mode mode, int *ns_err)
{
	struct child_args a = {.parent = getpid(),
			       .status_fd = -1,
			       .keep_fd = keep_fd,
			       .by_getfd = handover.by_getfd,
			       .ack_fd = -1,
			       .ack_wr = -1,
			       .mode = mode,
			       .sentinels = sentinels,
			       .fn = fn,
			       .arg = arg};
	unsigned long flags = (a.by_getfd ? 0 : CLONE_FILES) | SIGCHLD;
	int p[2] = {-1, -1}, st[2] = {-1, -1}, ack[2] = {-1, -1}, msg[4], rc;
	ssize_t n;
	long pid;

	*out = (struct sv_child){.pid = -1, .listener = -1, .status_fd = -1, .mode = mode};
	if (pipe2(p, O_CLOEXEC) != 0 ||
	    (a.mode != SV_CONTAIN_SUBREAPER && pipe2(st, O_CLOEXEC) != 0) ||
	    (a.by_getfd && pipe2(ack, O_CLOEXEC) != 0)) {
		rc = -errno;
		sv_fds_close_pair(p);
		sv_fds_close_pair(st);
		return rc;
	}
	if (a.mode != SV_CONTAIN_SUBREAPER)
		/* Its own SysV IPC too: a root agent (CAP_IPC_OWNER) or one
		 * of the owner's uid attached an outside process's shared
		 * memory segment and wrote into it (hostile re-run h-rerun2). */
		flags |= CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC;
	a.report_fd = p[1];
	a.status_fd = st[1];
	a.ack_fd = ack[0];
	a.ack_wr = ack[1];
	/* A raw clone with CLONE_FILES and no new stack behaves like fork but
	 * shares the fd table. The child only uses async-signal-safe calls and
	 * libseccomp before it unshares. */
	/* Seam: a kernel without pid namespaces answers EINVAL to CLONE_NEWPID;
	 * clone_newipc: one without CONFIG_IPC_NS, EINVAL to CLONE_NEWIPC. */
	rc = a.mode != SV_CONTAIN_SUBREAPER ? sv_fault("clone_newpid") : 0;
	if (rc == 0 && (flags & CLONE_NEWIPC) && sv_fault("clone_newipc") < 0)
		pid = (errno = EINVAL, -1L);
	else
		pid = rc < 0 ? (errno = -rc, -1L) : syscall(SYS_clone, flags, 0, 0, 0, 0);
	/* Without CONFIG_IPC_NS the agent would share the host's SysV IPC:
	 * asked again without CLONE_NEWIPC only where there is none to share
	 * (the matrix's tinyconfig kernels); elsewhere the EINVAL stands, a
	 * containment failure. */
	if (pid < 0 && errno == EINVAL && rc == 0 && (flags & CLONE_NEWIPC) && !ipc_to_share()) {
		flags &= ~(unsigned long)CLONE_NEWIPC;
		pid = syscall(SYS_clone, flags, 0, 0, 0, 0);
	}
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

		sv_fds_close_pair(p);
		sv_fds_close_pair(st);
		sv_fds_close_pair(ack);
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
	/* Until the child has unshared, both share one table: touch nothing.
	 * A private table is the child's from the clone: our ends go now. */
	if (a.by_getfd) {
		close(p[1]);
		p[1] = -1;
		close(ack[0]);
		ack[0] = -1;
	}
	n = wait_report(p[0], (pid_t)pid, msg, sizeof(msg));
	sv_fds_close_pair(p);
	if (st[1] >= 0)
		close(st[1]);
	out->pid = (pid_t)pid;
	out->status_fd = st[0];
	out->by_getfd = a.by_getfd;
	if (n != (ssize_t)sizeof(msg)) {
		out->install_err = n < 0 ? -errno : -EPIPE;
		sv_fds_close_pair(ack);
		return 0;
	}
	if (msg[2] < 0) {
		if (msg[0] >= 0 && !a.by_getfd)
			close(msg[0]);
		out->contain_err = msg[2];
		if (msg[3])
			*ns_err = msg[2];
		sv_fds_close_pair(ack);
		return 0;
	}
	if (msg[0] < 0) {
		out->install_err = msg[0];
		sv_fds_close_pair(ack);
		return 0;
	}
	if (msg[1]) {
		close(msg[0]);
		out->install_err = msg[1];
		out->unshare_err = msg[1];
		return 0;
	}
	if (a.by_getfd) {
		/* The child waits for one byte: 1 once we hold the listener,
		 * 0 (it exits without running fn) when we could not take it. */
		char go;
		int fd = take_listener((pid_t)pid, msg[0]);

		go = fd >= 0;
		if (write(ack[1], &go, 1) != 1 && fd >= 0) {
			close(fd);
			fd = -EPIPE;
		}
		sv_fds_close_pair(ack);
		if (fd < 0) {
			out->install_err = fd;
			return 0;
		}
		msg[0] = fd;
	}
	out->listener = msg[0];
	return 0;
}

/* spawn_as, and once more with a private table when the shared table's
 * child could not unshare it (then every later child too). */
static int spawn_handed_over(struct sv_child *out, void (*fn)(void *arg), void *arg, int keep_fd,
			     int sentinels, enum sv_contain_mode mode, int *ns_err)
{
	int rc = spawn_as(out, fn, arg, keep_fd, sentinels, mode, ns_err), status;

#ifdef SV_MUTANT_HANDOVER_SHARED_ONLY
	/* MUTANT handover-shared-only: a refused unshare(CLONE_FILES) refuses
	 * the run, as before the pidfd_getfd hand-over. */
	return rc;
#endif
	if (rc < 0 || !out->unshare_err || handover.by_getfd)
		return rc;
	/* The child exits by itself after reporting. */
	if (out->pid > 0)
		while (waitpid(out->pid, &status, 0) < 0 && errno == EINTR)
			;
	if (out->status_fd >= 0)
		close(out->status_fd);
	handover.by_getfd = 1;
	handover.refusal = -out->unshare_err;
	return spawn_as(out, fn, arg, keep_fd, sentinels, mode, ns_err);
}

int sv_spawn(struct sv_child *out, void (*fn)(void *arg), void *arg, int keep_fd, int sentinels)
{
	enum sv_contain_mode mode = SV_CONTAIN_SUBREAPER;
	int rc = sv_contain_choose(&mode), ns_err = 0, status;

	if (rc < 0) {
		*out = (struct sv_child){
		    .pid = -1, .listener = -1, .status_fd = -1, .mode = mode, .contain_err = rc};
		return 0;
	}
	rc = spawn_handed_over(out, fn, arg, keep_fd, sentinels, mode, &ns_err);
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
	if (!sv_contain_host_refuses(ns_err)) {
		/* A namespace used up for the moment: a containment failure,
		 * never the subreaper by another process's choice. */
		*out = (struct sv_child){.pid = -1,
					 .listener = -1,
					 .status_fd = -1,
					 .mode = mode,
					 .contain_err = ns_err};
		return 0;
	}
	sv_contain_fall_back(ns_err);
	return spawn_handed_over(out, fn, arg, keep_fd, sentinels, SV_CONTAIN_SUBREAPER, &ns_err);
}

int sv_spawn_handover(int *refusal)
{
	*refusal = handover.refusal;
	return handover.by_getfd;
}

int sv_spawn_agent_poll(struct sv_child *ch, int *status)
{
	struct pollfd pfd = {.fd = ch->status_fd, .events = POLLIN};
	ssize_t n;

	if (!ch->said && ch->status_fd >= 0 && poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN)) {
		do
			n = read(ch->status_fd, &ch->said_status, sizeof(ch->said_status));
		while (n < 0 && errno == EINTR);
		ch->said = n == (ssize_t)sizeof(ch->said_status) && ch->said_status >= 0;
	}
	if (ch->said)
		*status = ch->said_status;
	return ch->said;
}

int sv_spawn_agent_status(struct sv_child *ch, int child_status)
{
	int status = child_status;
	ssize_t n;

	if (ch->said) {
		if (ch->status_fd >= 0)
			close(ch->status_fd);
		ch->status_fd = -1;
		return ch->said_status;
	}
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
