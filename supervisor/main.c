/* egress-supervisor: runs a program, mediates its egress against an
 * allow-list and answers pass, fail or capability-error. It never says pass
 * when it could not see. The flow: parse, probe, spawn, mediate, reap,
 * report. Only set-up exits early; see docs/design.md. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "call.h"
#include "cli.h"
#include "contain.h"
#include "descendants.h"
#include "errnames.h"
#include "fault.h"
#include "notify.h"
#include "probe.h"
#include "report.h"
#include "rootfs.h"
#include "nsjoin.h"
#include "unixpeer.h"
#include "walkwatch.h"
#include "spawn.h"
#include "stdfds.h"
#include "target.h"

enum { EXIT_PASS = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_CAPABILITY = 3 };

static pthread_t main_thread;

struct agent_launch {
	char **argv;
	int errfd;     /* write end: the errno of a failed execvp */
	int report_fd; /* the caller's report channel, or -1: never the agent's */
};

static void launch_agent(void *arg)
{
	struct agent_launch *l = arg;
	int err;

	/* The supervisor ignores SIGPIPE and SIGTTOU; the agent gets the
	 * defaults back, as an ignored disposition would survive exec. */
	signal(SIGPIPE, SIG_DFL);
	signal(SIGTTOU, SIG_DFL);
#ifndef SV_MUTANT_REPORT_FD_LEAK
	/* The child has its own descriptor table by now (spawn.c unshares it),
	 * so this closes only the agent's copy; it is close-on-exec as well. */
	if (l->report_fd >= 0)
		close(l->report_fd);
#endif
	execvp(l->argv[0], l->argv);
	err = errno;
	if (write(l->errfd, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

/* PROGRAM must be runnable before anything runs (bad invocation: exit 2). */
static int resolve_program(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0 ? 0 : -errno;
	if (!path)
		path = "/usr/local/bin:/bin:/usr/bin";
	while (*path) {
		const char *end = strchr(path, ':');
		size_t n = end ? (size_t)(end - path) : strlen(path);
		struct stat st;

		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? path : ".", prog) <
			(int)sizeof(buf) &&
		    stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
			return 0;
		path += n + (end ? 1 : 0);
		if (!end)
			break;
	}
	return -ENOENT;
}

/* The agent's child record: its exit status comes through it in
 * pid-namespace mode (the reaper says what the agent's status was). */
static struct sv_child agent_ch = {.pid = -1, .listener = -1, .status_fd = -1};

/* When the agent itself exited (CLOCK_MONOTONIC), 0 while it runs: the run
 * goes on until every process it started has exited. */
static struct timespec agent_gone;

static void note_agent_exit(int status)
{
	sv_report_set_agent_exit(status);
	if (!agent_gone.tv_sec && !agent_gone.tv_nsec)
		clock_gettime(CLOCK_MONOTONIC, &agent_gone);
}

static void record_exit(pid_t w, pid_t agent, int status)
{
	if (w == agent)
		note_agent_exit(sv_spawn_agent_status(&agent_ch, status));
}

/* Seconds after the agent's exit before the caller is told what the run
 * still waits for: ssh's ControlPersist master, a daemon the agent started
 * (review h-realprog4: a run that seemed to hang for ever, with no word). */
#define LINGER_NOTE_S 5

/* Whether the agent has exited, as far as can be known now without
 * blocking: our own child reaped (subreaper mode), or the reaper's word on
 * the status pipe (the pid-namespace modes). */
static int agent_exited(void)
{
	int status;

	if (agent_ch.mode != SV_CONTAIN_SUBREAPER && sv_spawn_agent_poll(&agent_ch, &status))
		note_agent_exit(status);
	return agent_gone.tv_sec || agent_gone.tv_nsec;
}

/* Once per run, on stderr: the agent has exited, and the run waits for the
 * processes it left (every process the agent starts is part of the run). */
static void note_lingering(void)
{
	static int said;
	struct timespec now;
	char names[256];
	int n;

	if (said || !agent_exited())
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec - agent_gone.tv_sec < LINGER_NOTE_S)
		return;
	said = 1;
	n = sv_descendants_describe(agent_ch.mode != SV_CONTAIN_SUBREAPER, names, sizeof(names));
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (n < 0) {
		fprintf(stderr,
			"egress-supervisor: the agent exited %ld s ago; the run goes on until "
			"every process it started has exited (what is left, /proc did not say: "
			"%s)\n",
			(long)(now.tv_sec - agent_gone.tv_sec), strerror(-n));
		return;
	}
	fprintf(stderr,
		"egress-supervisor: the agent exited %ld s ago; the run goes on until every "
		"process it started has exited: %d left%s%s\n",
		(long)(now.tv_sec - agent_gone.tv_sec), n, n > 0 ? ": " : "", n > 0 ? names : "");
}

/* A child reaped while the tree is killed (sv_descendants_kill). */
static void record_reaped(pid_t w, int status)
{
	record_exit(w, agent_ch.pid, status);
}

/* Kills and reaps the agent's whole tree (descendants.h): in pid-namespace
 * modes our child is the namespace's reaper. */
static void kill_descendants(void)
{
	sv_descendants_kill(agent_ch.mode != SV_CONTAIN_SUBREAPER, record_reaped);
}

/* --report-fd must name a descriptor open for writing; it is made
 * close-on-exec so that no program we start holds it. Returns 0 or -errno
 * (-EBADF: not open, -EACCES: read-only). */
static int claim_report_fd(int fd)
{
	int fl = fcntl(fd, F_GETFL), fdfl;

	if (fl < 0)
		return -errno;
	if ((fl & O_ACCMODE) == O_RDONLY)
		return -EACCES;
	fdfl = fcntl(fd, F_GETFD);
	if (fdfl < 0)
		return -errno;
#ifdef SV_MUTANT_REPORT_FD_LEAK
	/* MUTANT report-fd-leak: the agent inherits the report channel and can
	 * append a forged record to it. */
	return fcntl(fd, F_SETFD, fdfl & ~FD_CLOEXEC) == 0 ? 0 : -errno;
#endif
	return fcntl(fd, F_SETFD, fdfl | FD_CLOEXEC) == 0 ? 0 : -errno;
}

/* Whether the --report-fd channel has a name: one the agent can find and
 * may open for writing (our uid, or root's CAP_DAC_OVERRIDE), so it is only
 * as good as the exit status that agrees with it. A regular file or a FIFO
 * with a link (a named FIFO is as open as a file: review h-attack3), and a
 * device (a tty, found under /dev). An unlinked file, a memfd, a pipe (on
 * pipefs, whose device a fresh pipe shows) or a socket has none. */
static int report_fd_named(int fd)
{
	struct stat st, anon;
	int p[2];

	if (fstat(fd, &st) != 0)
		return 0;
	if (S_ISREG(st.st_mode))
		return st.st_nlink > 0;
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		return 1;
#ifdef SV_MUTANT_NAMED_FIFO_SILENT
	/* MUTANT named-fifo-silent: a FIFO is taken for an anonymous pipe. */
	return 0;
#endif
	if (!S_ISFIFO(st.st_mode) || st.st_nlink == 0)
		return 0;
	/* No fresh pipe to compare with: a linked FIFO is taken to have a
	 * name (a warning too many, never one too few). */
	if (pipe2(p, O_CLOEXEC) != 0)
		return 1;
	if (fstat(p[0], &anon) != 0)
		anon.st_dev = st.st_dev;
	close(p[0]);
	close(p[1]);
	return st.st_dev != anon.st_dev;
}

/* Whether the agent, which has our uid, could replace a report at path: it
 * can when it may write the directory (rename over the file). A root agent
 * sees the host's files read-only but for the declared paths (rootfs.h), so
 * for it only a directory at or under one of those counts. */
static int path_agent_writable(const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	if (access(dir, W_OK) != 0)
		return 0;
	/* A directory that cannot be resolved counts as the agent's. */
	return geteuid() != 0 || sv_rootfs_under_declared(dir) != 0;
}

static void on_fatal(void)
{
	pthread_kill(main_thread, SIGUSR2);
}

/* Waits until every descendant has exited, or a signal ends the run. */
static void supervise(pid_t agent, const sigset_t *set)
{
	/* Every 100 ms without a signal: interrupt work for dead notifications. */
	const struct timespec tick = {.tv_nsec = 100 * 1000 * 1000};

	for (;;) {
		siginfo_t si;
		int sig = sigtimedwait(set, &si, &tick), status;
		pid_t w;

		if (sig < 0) {
			if (errno == EAGAIN) {
				sv_notify_reap_dead();
				note_lingering();
			}
			continue;
		}
		if (sig == SIGUSR2) {
			sv_report_internal_error("the listener failed, so the agent was killed", 0);
			kill_descendants();
			return;
		}
		if (sig != SIGCHLD) {
			/* What has exited already is said first: a SIGTERM just
			 * after the agent's exit, before the tick read the
			 * reaper's word, reported "killed the agent" beside its
			 * exit code 0 (review h-attack78, 9 of 10 at 5 ms). */
#ifndef SV_MUTANT_INTERRUPT_BEFORE_REAP
			while ((w = waitpid(-1, &status, WNOHANG)) > 0)
				record_exit(w, agent, status);
			(void)agent_exited();
#endif
			sv_report_set_interrupted(sig);
			kill_descendants();
			return;
		}
		while ((w = waitpid(-1, &status, WNOHANG)) > 0)
			record_exit(w, agent, status);
		if (w < 0 && errno == ECHILD)
			return;
	}
}

static int finish_run(int complete)
{
	int verdict = sv_report_verdict(complete);
	int rc = sv_report_write(complete);

	if (rc < 0) {
		fprintf(stderr, "egress-supervisor: cannot write the report: %s\n", strerror(-rc));
		return EXIT_CAPABILITY;
	}
	return verdict;
}

/* Says, once, in the report and on stderr, why the agent is not contained
 * in a user namespace of ours (sv_contain_userns_err), as soon as it is
 * known: at set-up, or when the pid and mount namespaces inside ours were
 * refused to a child (the canary's or the agent's). */
static void say_userns_refused(void)
{
	static int said;
	int err = sv_contain_userns_err();

	if (!err || said)
		return;
	said = 1;
	sv_report_set_userns_refused(err);
	fprintf(stderr,
		"egress-supervisor: warning: no user namespace for the agent (%s): it is this "
		"supervisor's child, so before Linux 6.12 it can signal it, and a supervisor "
		"the OOM killer takes leaves the agent's descendants alive "
		"(user.max_user_namespaces, CONFIG_USER_NS, a seccomp profile or an LSM "
		"refusing what a user namespace gives)\n",
		strerror(-err));
}

static int run(struct sv_cli *cli, const sigset_t *set)
{
	static char stdio_why[512];
	struct sv_probe_result pr;
	struct agent_launch launch;
	struct sv_child *ch = &agent_ch;
	enum sv_contain_mode mode;
	int p[2], rc, err = 0;
	ssize_t n;

	/* Before the probe: its canary is contained as the agent will be. */
	if ((rc = sv_contain_setup()) < 0) {
		fprintf(stderr,
			"egress-supervisor: entered a user namespace of our own but could not "
			"map our ids or lower our capabilities in it: not running the agent\n");
		sv_report_internal_error("user namespace set-up", -rc);
		return finish_run(1);
	}
	rc = sv_probe_run(&pr);
	sv_report_set_probe(&pr);
	/* Refused at set-up, or to the canary's namespaces inside ours. */
	say_userns_refused();
	if (cli->probe_only) {
		sv_probe_print(&pr);
		return finish_run(1) == EXIT_CAPABILITY ? EXIT_CAPABILITY : EXIT_PASS;
	}
	if (rc < 0) {
		fprintf(stderr,
			"egress-supervisor: capability probe failed; not running the agent\n");
		sv_probe_print(&pr);
		return finish_run(1);
	}
	if (sv_report_write(0) < 0)
		fprintf(stderr,
			"egress-supervisor: warning: cannot write the provisional report\n");
	if (sv_stdfds_check(&cli->policy, stdio_why, sizeof(stdio_why)) < 0 ||
	    (sv_contain_choose(&mode) == 0 && mode == SV_CONTAIN_PIDNS &&
	     sv_rootfs_check_stdio(stdio_why, sizeof(stdio_why)) < 0)) {
		fprintf(stderr, "egress-supervisor: %s; not running the agent\n", stdio_why);
		sv_report_internal_error(stdio_why, EACCES);
		return finish_run(1);
	}
	/* Before the spawn: the agent's first call may be a connect. */
	sv_unixpeer_set_judged(sv_contain_choose(&mode) == 0 && sv_contain_judges_names(mode));
	if (pipe2(p, O_CLOEXEC) != 0) {
		sv_report_internal_error("pipe", errno);
		return finish_run(1);
	}
	launch.argv = cli->argv;
	launch.errfd = p[1];
	launch.report_fd = cli->report_fd;
	/* The exec-error pipe is the one descriptor above 2 the agent keeps
	 * until exec (close-on-exec); every other one is closed in the child. */
#ifdef SV_MUTANT_REPORT_FD_LEAK
	/* MUTANT report-fd-leak: the report channel is the descriptor kept. */
	rc = sv_spawn(ch, launch_agent, &launch, cli->report_fd >= 0 ? cli->report_fd : p[1], 1);
#else
	rc = sv_spawn(ch, launch_agent, &launch, p[1], 1);
#endif
	close(p[1]);
	/* The pid and mount namespaces may have been refused inside our user
	 * namespace only now (sv_spawn falls back). */
	say_userns_refused();
	sv_report_set_containment(sv_contain_name(ch->mode));
	sv_report_set_host_files(ch->mode == SV_CONTAIN_PIDNS ? "read-only" : "uid");
	/* A run with a pid namespace judges its agent's joins; a subreaper
	 * run's agent has no namespace of its own to join (nsjoin.h). */
	sv_nsjoin_set_judged(rc == 0 && !ch->contain_err &&
			     (ch->mode == SV_CONTAIN_PIDNS || ch->mode == SV_CONTAIN_USERNS));
	/* The children's namespaces are made: the capability kept for them in
	 * our user namespace goes, so the run holds none at all. */
	if (rc == 0 && !ch->contain_err && (err = sv_contain_settle()) < 0) {
		sv_report_internal_error("could not drop CAP_SYS_ADMIN in our user namespace",
					 -err);
		close(p[0]);
		kill_descendants();
		return finish_run(1);
	}
	if (rc == 0 && ch->contain_err) {
		fprintf(stderr, "egress-supervisor: cannot contain the agent: %s (%s)\n",
			strerror(-ch->contain_err), sv_probe_containment_hint(-ch->contain_err));
		sv_report_internal_error("could not contain the agent (pid and mount namespace)",
					 -ch->contain_err);
		close(p[0]);
		if (ch->pid > 0)
			kill_descendants();
		return finish_run(1);
	}
	if (rc < 0 || ch->listener < 0) {
		sv_report_internal_error("could not start the agent with the filter",
					 rc < 0 ? -rc : -ch->install_err);
		close(p[0]);
		if (rc == 0)
			kill_descendants();
		return finish_run(1);
	}
	sv_report_set_agent(ch->pid);
	/* Each call a receiver performs holds a duplicate of the agent's
	 * socket until it is done: a thread-per-connection agent with 1100
	 * slow connects needs more than the usual soft limit of 1024 (EMFILE:
	 * capability-error). Raised to the hard limit for us only: the agent
	 * was started with the caller's. Failing leaves the old limit. */
#ifndef SV_MUTANT_NOFILE_KEPT
	/* MUTANT nofile-kept: the caller's soft limit stays (review
	 * h-attack39's control: EMFILE at 1024 descriptors). */
	{
		struct rlimit nofile;

		if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
			nofile.rlim_cur = nofile.rlim_max;
			(void)setrlimit(RLIMIT_NOFILE, &nofile);
		}
	}
#endif
	/* In a pid namespace our child is the reaper, whose two calls bracket
	 * the agent's (notify.h). */
	if (ch->mode != SV_CONTAIN_SUBREAPER)
		sv_notify_expect_sentinels(ch->pid);
	rc = sv_notify_start(ch->listener, &cli->policy, on_fatal);
	if (rc < 0) {
		sv_report_internal_error("could not start the notification loop", -rc);
		kill_descendants();
		close(p[0]);
		return finish_run(1);
	}
	supervise(ch->pid, set);
	/* Read only now: the reaper's first call waits for a receiver before
	 * the agent exists, and a receiver that fails ends the run through
	 * supervise(), which a read here would never reach. The agent's end
	 * was close-on-exec and nothing else held it: EOF means execvp
	 * succeeded, an int is its errno (never a wait: non-blocking). */
	(void)fcntl(p[0], F_SETFL, O_NONBLOCK);
	n = read(p[0], &err, sizeof(err));
	close(p[0]);
	if (n == (ssize_t)sizeof(err))
		sv_report_internal_error("could not execute the agent", err);
	if (sv_notify_stop() < 0)
		sv_report_internal_error("a notification thread did not stop", ETIMEDOUT);
	close(ch->listener);
	return finish_run(1);
}

int main(int argc, char **argv)
{
	struct sv_cli cli;
	struct sv_run_info info;
	sigset_t set;
	char err[512];
	int rc, verdict;

	rc = sv_cli_parse(argc, argv, &cli, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "egress-supervisor: %s\n%s", rc == -ENOMEM ? "out of memory" : err,
			sv_cli_usage);
		return EXIT_USAGE;
	}
	if (cli.help) {
		fputs(sv_cli_usage, stdout);
		return EXIT_PASS;
	}
	if (!cli.probe_only && (rc = resolve_program(cli.argv[0])) < 0) {
		fprintf(stderr, "egress-supervisor: cannot execute PROGRAM '%s': %s\n", cli.argv[0],
			strerror(-rc));
		return EXIT_USAGE;
	}
	if (sv_fault_init() < 0)
		return EXIT_USAGE;
	sv_rootfs_declare(cli.writable, cli.nwritable);
	if (sv_unixpeer_declare(cli.unix_peer, cli.nunix_peer, err, sizeof(err)) < 0) {
		fprintf(stderr, "egress-supervisor: %s\n%s", err, sv_cli_usage);
		return EXIT_USAGE;
	}
	if ((rc = sv_walkwatch_init()) < 0)
		fprintf(
		    stderr,
		    "egress-supervisor: warning: inotify_init1: %s: a root agent's failing AF_UNIX "
		    "names are checked with instances made when needed, and a refusal then is a "
		    "mechanism failure (fs.inotify.max_user_instances)\n",
		    strerror(-rc));
	if ((rc = sv_target_init()) < 0)
		fprintf(stderr,
			"egress-supervisor: warning: /proc/sys/vm/mmap_min_addr: %s: a name the "
			"agent's call points at that cannot be read is filed as a mechanism "
			"failure even below it\n",
			strerror(-rc));
	if (cli.report_fd >= 0 && (rc = claim_report_fd(cli.report_fd)) < 0) {
		fprintf(stderr, "egress-supervisor: --report-fd %d: %s\n%s", cli.report_fd,
			rc == -EACCES ? "open read-only: the report cannot be written to it"
				      : strerror(-rc),
			sv_cli_usage);
		return EXIT_USAGE;
	}
	info.report_fd_named = cli.report_fd >= 0 && report_fd_named(cli.report_fd);
	if (info.report_fd_named)
		fprintf(
		    stderr,
		    "egress-supervisor: warning: --report-fd %d is a file with a name: an agent "
		    "that finds it and may open it can write records into it (give an unlinked "
		    "file, a memfd or a pipe for a channel the agent cannot write)\n",
		    cli.report_fd);
	sv_stdfds_note_closed(cli.report_fd);
	info.agent_argv = cli.argv;
	info.policy = &cli.policy;
	info.report_path = cli.report;
	info.report_fd = cli.report_fd;
	info.path_agent_writable = cli.report && path_agent_writable(cli.report);
	/* Not refused: a report at such a path is still the supervisor's as long
	 * as its exit status agrees (docs/design.md "Report"); the caller is told
	 * what it does not guarantee. */
	if (info.path_agent_writable)
		fprintf(stderr,
			"egress-supervisor: warning: the agent runs with our uid and can write the "
			"directory of '%s': a report there is only as good as the exit status "
			"that agrees with it (use --report-fd for one the agent cannot write)\n",
			cli.report);
	rc = sv_report_init(&info);
	if (rc < 0) {
		fprintf(stderr, "egress-supervisor: --report %s: %s\n",
			cli.report ? cli.report : "",
			rc == -ENOMEM ? "out of memory" : strerror(-rc));
		return EXIT_CAPABILITY;
	}
	/* A caller that ignores SIGCHLD (an exec keeps SIG_IGN) would have the
	 * kernel reap our children for us: no status for the agent, a probe
	 * and a loop waiting for one for ever (found by review h-attack8's
	 * note, seen hanging). Ours is the default. */
#ifndef SV_MUTANT_SIGCHLD_INHERITED
	signal(SIGCHLD, SIG_DFL);
#endif
	/* Signals are taken synchronously by the main thread; every thread
	 * created from here on inherits the mask, the agent gets it cleared. */
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* A background supervisor whose terminal the agent set TOSTOP on would
	 * stop at its closing line on stderr (found by the third review): a
	 * hang the agent chose. Ignored, the write goes through. */
	signal(SIGTTOU, SIG_IGN);
	main_thread = pthread_self();
	/* Same uid as the agent: without this the agent could read or write our
	 * memory (the allow-list) through ptrace or /proc/PID/mem. */
	if (prctl(PR_SET_DUMPABLE, 0) != 0) {
		int e = errno;

		fprintf(stderr, "egress-supervisor: PR_SET_DUMPABLE: %s\n", strerror(e));
		sv_report_internal_error("PR_SET_DUMPABLE", e);
	}
	/* Descendants that daemonize stay ours: Yama scope 1 only lets us read
	 * descendants, and we must reap them all before the verdict. */
#ifdef SV_MUTANT_NO_SUBREAPER
	/* MUTANT no-subreaper: daemonized descendants go to init. */
	if (0) {
#else
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
#endif
		int e = errno;

		fprintf(stderr,
			"egress-supervisor: PR_SET_CHILD_SUBREAPER: %s (needs Linux >= 3.4)\n",
			strerror(e));
		sv_report_internal_error("PR_SET_CHILD_SUBREAPER", e);
	}
	if ((cli.report || cli.report_fd >= 0) && (rc = sv_report_write(0)) < 0) {
		fprintf(stderr, "egress-supervisor: cannot write the report to '%s': %s\n",
			cli.report ? cli.report : "--report-fd", strerror(-rc));
		return EXIT_USAGE;
	}
	verdict = run(&cli, &set);
	{
		unsigned long long c[SV_NBUCKETS], nots;

		sv_report_counts(c, &nots);
		fprintf(
		    stderr,
		    "egress-supervisor: %s (notifications %llu: allowed %llu, denied %llu, "
		    "invalid %llu, mechanism failures %llu, abandoned %llu; neutralized %llu)\n",
		    verdict == EXIT_PASS   ? "pass"
		    : verdict == EXIT_FAIL ? "fail"
					   : "capability-error",
		    nots, c[SV_ALLOWED], c[SV_DENIED], c[SV_INVALID], c[SV_MECH_FAILURE],
		    c[SV_ABANDONED], c[SV_NEUTRALIZED]);
	}
	sv_policy_free(&cli.policy);
	return verdict;
}
