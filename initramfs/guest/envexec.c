/*
 * egress-envexec: runs the supervisor in the environment a cell asks for.
 *
 *     egress-envexec --cell FILE --readback FILE --report-fd N --supervisor PATH
 *                    [--hide DIR]... [--tty PTY-SLAVE]
 *
 * Phase 1 (as root, from the guest init): with --hide, moves the run into a
 * mount namespace of its own where / is read-only and each DIR (the init's
 * work directory: the cell, the sink's log, the report and status it sends;
 * /run: the batch's reset baseline) is covered by an empty read-only tmpfs, so not even a root
 * agent (which keeps CAP_DAC_OVERRIDE and CAP_LINUX_IMMUTABLE, but no CAP_SYS_ADMIN to undo a
 * mount) can reach what the host judges it by; mounts the caller's file systems there (mount=,
 * caller.h) and opens the caller's terminal (--tty, for stdio=N pty) by init's path before
 * that; then installs the cell's syscall mask, drops the
 * cell's capabilities from the bounding set, clears the ambient set, switches gid and uid, removes
 * the dropped capabilities from the remaining sets, then re-executes itself (/proc/self/exe) for
 * phase 2.
 *
 * Phase 2 (--verify, internal): runs with the credentials the supervisor will
 * have, because an exec is exactly what the supervisor's start will be: the
 * capability sets recomputed at exec, dumpability, the uid. It reads all of it
 * back from /proc/self/status and prctl, checks that each masked syscall
 * really returns its errno, writes one line per check to the readback file
 * (opened by phase 1, passed as an inherited descriptor so an unprivileged
 * phase 2 can still write it), puts what the caller hands the supervisor on
 * descriptors 0-2 (stdio=, caller.h: made with these credentials) and execs
 *
 *     egress-supervisor --report-fd N [--allow SPEC]... [--no-loopback]
 *                       [--writable DIR]... [--unix-peer PEER]... -- AGENT...
 *
 * only when every check passed. N is the report channel (docs/guest.md): a
 * descriptor of a file the guest init opened and unlinked as root; it passes
 * through both phases to the supervisor, which never lets the agent hold it.
 * Phase 2 checks that it is open for writing. Readback lines: "pass|fail|info|error NAME
 * DETAIL"; the last line is "exec PATH" when the supervisor was started.
 * Exit status when the supervisor is not started: 125 (a precondition did not
 * take effect), 126 (bad invocation or cell file: an infrastructure error).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caller.h"
#include "cellfile.h"
#include "hide.h"
#include "names.h"

#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#define EXIT_PRECONDITION 125
#define EXIT_INFRA 126
struct opts {
	const char *cell;
	const char *readback;
	const char *report_fd; /* decimal descriptor number of the report channel */
	const char *supervisor;
	const char *hide[4]; /* phase 1: the directories the run must not see */
	int nhide;
	const char *tty; /* phase 1: the pty slave of a stdio=N pty (init holds the master) */
	int tty_fd;      /* phase 2: that terminal, opened by phase 1 */
	int verify;
	int hidden; /* phase 2: phase 1 hid the guest's state (--hide was given) */
	int readback_fd;
	int cell_fd; /* phase 2: the cell file's descriptor, inherited from phase 1 */
	uint64_t expect_bnd;
};

static int readback_fd = -1;
static int failures;

/* Appends one line to the readback file (and stderr, for the guest log). */
static void readback(const char *status, const char *name, const char *fmt, ...)
{
	char detail[512];
	char line[768];
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	n = snprintf(line, sizeof(line), "%s %s %s\n", status, name, detail);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	if (strcmp(status, "fail") == 0 || strcmp(status, "error") == 0)
		failures++;
	if (readback_fd >= 0 && write(readback_fd, line, (size_t)n) != n)
		fprintf(stderr, "envexec: readback write: %s\n", strerror(errno));
	fprintf(stderr, "envexec: %s", line);
}

static _Noreturn void die_infra(const char *what, const char *fmt, ...)
{
	char detail[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	readback("error", what, "%s", detail);
	exit(EXIT_INFRA);
}

/* Reads "Key:\tvalue" from /proc/self/status into buf; 0 or -errno. */
static int status_field(const char *key, char *buf, size_t len)
{
	static char text[8192];
	size_t klen = strlen(key);
	char *line, *end;
	ssize_t n;
	int fd;

	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	text[n] = '\0';
	for (line = text; line && *line; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			line += klen + 1;
			while (*line == '\t' || *line == ' ')
				line++;
			n = end ? end - line : (ssize_t)strlen(line);
			if ((size_t)n >= len)
				return -ENAMETOOLONG;
			memcpy(buf, line, (size_t)n);
			buf[n] = '\0';
			return 0;
		}
	}
	return -ENOENT;
}

static int status_caps(const char *key, uint64_t *out)
{
	char buf[64];
	char *end;
	int r = status_field(key, buf, sizeof(buf));

	if (r)
		return r;
	*out = strtoull(buf, &end, 16);
	return *end ? -EINVAL : 0;
}

/*
 * The mask: native x86_64 calls whose number matches return the errno; every
 * other architecture passes untouched, so the i386 and x32 entry points the
 * supervisor must see are not hidden by the emulation.
 */
static int install_mask(const struct ev_cell *c)
{
	struct sock_filter insn[4 + 2 * EV_CELL_MAX_ITEMS];
	struct sock_fprog prog;
	unsigned short n = 0;
	int i;

	if (c->nmask == 0)
		return 0;
	insn[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, arch));
	insn[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0,
						 (unsigned char)(2 * c->nmask + 1));
	insn[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, nr));
	for (i = 0; i < c->nmask; i++) {
		insn[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							 (unsigned)c->mask[i].nr, 0, 1);
		insn[n++] = (struct sock_filter)BPF_STMT(
		    BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)c->mask[i].err & 0xffff));
	}
	insn[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	prog.len = n;
	prog.filter = insn;
	/* Root with CAP_SYS_ADMIN needs no no_new_privs; set it only as a fallback. */
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0)
		return 0;
	if (errno != EACCES)
		return -errno;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -errno;
	readback("info", "no_new_privs", "set to install the mask without CAP_SYS_ADMIN");
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
		return -errno;
	return 0;
}

/* Removes c->drop from the effective, permitted and inheritable sets. */
static int drop_process_caps(uint64_t drop)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct data[2];
	int i;

	if (syscall(SYS_capget, &hdr, data) != 0)
		return -errno;
	for (i = 0; i < 2; i++) {
		uint32_t keep = ~(uint32_t)(drop >> (32 * i));

		data[i].effective &= keep;
		data[i].permitted &= keep;
		data[i].inheritable &= keep;
	}
	if (syscall(SYS_capset, &hdr, data) != 0)
		return -errno;
	return 0;
}

/*
 * The guest's own state out of the run's reach (hide.c). The supervisor and
 * the agent inherit the namespace (or copies of it); undoing any of it needs
 * CAP_SYS_ADMIN. Before the mask: a cell may mask unshare or mount.
 */
static void hide_guest_state(const struct opts *o)
{
	char err[512];
	int i;

	if (ev_hide_enter(err, sizeof(err)) != 0)
		die_infra("hide", "%s", err);
	for (i = 0; i < o->nhide; i++) {
		if (ev_hide_cover(o->hide[i], err, sizeof(err)) != 0)
			die_infra("hide", "%s", err);
		readback("pass", "hide",
			 "%s covered by an empty read-only tmpfs in the run's own mount namespace",
			 o->hide[i]);
	}
	readback("pass", "hide",
		 "/ read-only, /dev the run's own (no serial port), writable mounts nodev, in the "
		 "run's own mount namespace");
}

static void apply(const struct opts *o, const struct ev_cell *c)
{
	char fdbuf[16], bndbuf[32], cellfd[16], cellpath[40], ttyfd[16] = "-1", err[512];
	uint64_t bnd;
	int r, cap, fd, i;

	/* Phase 2 reads the cell through this descriptor: its path may be
	 * hidden by then. No O_CLOEXEC: it crosses the re-exec. */
	fd = open(o->cell, O_RDONLY);
	if (fd < 0)
		die_infra("cell", "%s: %s", o->cell, strerror(errno));
	snprintf(cellfd, sizeof(cellfd), "%d", fd);
	snprintf(cellpath, sizeof(cellpath), "/proc/self/fd/%d", fd);
	/* The caller's terminal, by init's path before /dev is the run's own;
	 * phase 2 makes it the controlling terminal. No O_CLOEXEC either. */
	if (o->tty) {
		int t = open(o->tty, O_RDWR | O_NOCTTY);

		if (t < 0)
			die_infra("tty", "%s: %s", o->tty, strerror(errno));
		snprintf(ttyfd, sizeof(ttyfd), "%d", t);
	}
	if (o->nhide)
		hide_guest_state(o);
	/* The caller's mounts, in the run's namespace (they go with it;
	 * without one they would stay in init's). */
	if (c->nmount && !o->nhide)
		die_infra("mount", "mount= needs the run's own mount namespace (--hide)");
	for (i = 0; i < c->nmount; i++) {
		if (ev_caller_mount(c->mount[i], err, sizeof(err)) != 0)
			die_infra("mount", "%s", err);
		readback("pass", "mount", "%s in the run's own mount namespace", c->mount[i]);
	}
	/* The declared directories, made by the caller as the supervisor's
	 * caller would have them: open to every uid (the cell's may be 1000). */
	for (i = 0; i < c->nwritable; i++) {
		if ((mkdir(c->writable[i], 01777) != 0 && errno != EEXIST) ||
		    chmod(c->writable[i], 01777) != 0)
			die_infra("writable", "%s: %s", c->writable[i], strerror(errno));
		readback("pass", "writable", "%s made (mode 1777), given as --writable",
			 c->writable[i]);
	}
	r = status_caps("CapBnd", &bnd);
	if (r)
		die_infra("CapBnd", "cannot read /proc/self/status: %s", strerror(-r));
	r = install_mask(c);
	if (r)
		die_infra("mask", "seccomp(SET_MODE_FILTER): %s", strerror(-r));
	/* Bounding drops need CAP_SETPCAP in the effective set: before capset. */
	for (cap = 0; cap < CAP_COUNT; cap++) {
		if (!(c->drop & (1ULL << cap)))
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
			if (errno == EINVAL) {
				readback("info", "drop_cap", "capability %d unknown to this kernel",
					 cap);
				continue;
			}
			die_infra("drop_cap", "PR_CAPBSET_DROP %d: %s", cap, strerror(errno));
		}
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
		die_infra("ambient", "PR_CAP_AMBIENT_CLEAR_ALL: %s", strerror(errno));
	/* Ids before capset: the switch itself needs CAP_SETGID/CAP_SETUID. */
	if (setgroups(0, NULL) != 0)
		die_infra("setgroups", "%s", strerror(errno));
	if (setgid(c->gid) != 0)
		die_infra("setgid", "%u: %s", (unsigned)c->gid, strerror(errno));
	if (setuid(c->uid) != 0)
		die_infra("setuid", "%u: %s", (unsigned)c->uid, strerror(errno));
	r = drop_process_caps(c->drop);
	if (r)
		die_infra("capset", "%s", strerror(-r));
	/*
	 * setuid without exec leaves the process non-dumpable (kernel-facts):
	 * re-exec so phase 2, and the supervisor after it, start as a fresh exec by
	 * the target user would.
	 */
	snprintf(fdbuf, sizeof(fdbuf), "%d", readback_fd);
	snprintf(bndbuf, sizeof(bndbuf), "%llx", (unsigned long long)(bnd & ~c->drop));
	{
		char *argv[] = {(char *)"egress-envexec",
				(char *)"--verify",
				(char *)"--cell",
				cellpath,
				(char *)"--cell-fd",
				cellfd,
				(char *)"--readback-fd",
				fdbuf,
				(char *)"--report-fd",
				(char *)o->report_fd,
				(char *)"--supervisor",
				(char *)o->supervisor,
				(char *)"--expect-bnd",
				bndbuf,
				(char *)"--tty-fd",
				ttyfd,
				o->nhide ? (char *)"--hidden" : NULL,
				NULL};
		extern char **environ;

		execve("/proc/self/exe", argv, environ);
	}
	die_infra("exec", "re-exec /proc/self/exe: %s", strerror(errno));
}

/* The directory of EGRESS_AGENT_LOG: 0, or -1 without one. */
static int log_dir(char *buf, size_t len)
{
	const char *log = getenv("EGRESS_AGENT_LOG"), *slash = log ? strrchr(log, '/') : NULL;

	if (!slash || slash == log || (size_t)(slash - log) >= len)
		return -1;
	snprintf(buf, len, "%.*s", (int)(slash - log), log);
	return 0;
}

static void check_ids(const char *key, unsigned want)
{
	char buf[128];
	unsigned v[4];
	int r = status_field(key, buf, sizeof(buf));

	if (r) {
		readback("fail", key, "unreadable: %s", strerror(-r));
		return;
	}
	if (sscanf(buf, "%u %u %u %u", &v[0], &v[1], &v[2], &v[3]) != 4) {
		readback("fail", key, "unparsable: %s", buf);
		return;
	}
	readback(v[0] == want && v[1] == want && v[2] == want && v[3] == want ? "pass" : "fail",
		 key, "want=%u got=%u,%u,%u,%u", want, v[0], v[1], v[2], v[3]);
}

static void check_caps(const char *key, uint64_t want, uint64_t must_clear)
{
	uint64_t got;
	int r = status_caps(key, &got);
	int ok;

	if (r) {
		readback("fail", key, "unreadable: %s", strerror(-r));
		return;
	}
	ok = must_clear ? !(got & must_clear) : got == want;
	if (must_clear)
		readback(ok ? "pass" : "fail", key, "must_clear=%016llx got=%016llx",
			 (unsigned long long)must_clear, (unsigned long long)got);
	else
		readback(ok ? "pass" : "fail", key, "want=%016llx got=%016llx",
			 (unsigned long long)want, (unsigned long long)got);
}

/* Calls the masked syscall in a child (no side effect on this process). */
static void check_mask(const struct ev_mask_rule *m)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		readback("fail", "mask", "%s: fork: %s", m->name, strerror(errno));
		return;
	}
	if (pid == 0) {
		/* All-ones arguments: invalid for every call a mask is meant for. */
		long r = syscall(m->nr, -1L, -1L, -1L, -1L, -1L, -1L);

		_exit(r < 0 ? (errno & 0xff) : 255);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) {
		readback("fail", "mask", "%s: probe child died", m->name);
		return;
	}
	if (WEXITSTATUS(status) == 255)
		readback("fail", "mask", "%s want=%s got=success", m->name, ev_errno_name(m->err));
	else
		readback(WEXITSTATUS(status) == m->err ? "pass" : "fail", "mask",
			 "%s want=%s got=%s (emulation)", m->name, ev_errno_name(m->err),
			 ev_errno_name(WEXITSTATUS(status)));
}

static void verify_and_exec(const struct opts *o, const struct ev_cell *c)
{
	const char *argv[3 * EV_CELL_MAX_ITEMS + 32];
	char logdir[256];
	char buf[64];
	int argc = 0, i, dumpable;
	uint64_t want_eff = c->uid == 0 ? o->expect_bnd : 0;

	check_ids("Uid", c->uid);
	check_ids("Gid", c->gid);
	if (status_field("Groups", buf, sizeof(buf)) == 0)
		readback(buf[0] == '\0' ? "pass" : "fail", "Groups", "want=none got=%s",
			 buf[0] ? buf : "none");
	check_caps("CapBnd", o->expect_bnd, 0);
	check_caps("CapEff", want_eff, 0);
	check_caps("CapPrm", want_eff, 0);
	/* Inheritable: whatever init had, minus the dropped ones (0 when none). */
	check_caps("CapInh", 0, c->drop);
	check_caps("CapAmb", 0, 0);
	dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
	readback(dumpable == 1 ? "pass" : "fail", "dumpable", "want=1 got=%d", dumpable);
	for (i = 0; i < c->nmask; i++)
		check_mask(&c->mask[i]);
	if (status_field("NoNewPrivs", buf, sizeof(buf)) == 0)
		readback("info", "NoNewPrivs", "%s", buf);
	if (status_field("Seccomp", buf, sizeof(buf)) == 0)
		readback("info", "Seccomp", "%s", buf);
	{
		int fl = fcntl(atoi(o->report_fd), F_GETFL);

		readback(fl >= 0 && (fl & O_ACCMODE) != O_RDONLY ? "pass" : "fail", "report-fd",
			 "%s want=open-for-writing got=%s", o->report_fd,
			 fl < 0                         ? strerror(errno)
			 : (fl & O_ACCMODE) == O_RDONLY ? "read-only"
							: "ok");
	}
	if (o->hidden) {
		char detail[512];

		readback(ev_hide_check(detail, sizeof(detail)) == 0 ? "pass" : "fail", "hidden",
			 "%s", detail);
	}
	/* Last, with the supervisor's credentials: what its caller hands it on
	 * 0-2 (a failure is the cell's set-up failing, never the supervisor's). */
	for (i = 0; i < c->nstdio; i++) {
		char detail[512];

		if (ev_caller_stdio(&c->stdio[i], o->tty_fd, detail, sizeof(detail)) == 0)
			readback("pass", "stdio", "%s", detail);
		else
			readback("fail", "stdio", "%s", detail);
	}
	if (o->tty_fd > 2)
		close(o->tty_fd);
	if (failures)
		exit(EXIT_PRECONDITION);

	argv[argc++] = o->supervisor;
	argv[argc++] = "--report-fd";
	argv[argc++] = o->report_fd;
	for (i = 0; i < c->nallow; i++) {
		argv[argc++] = "--allow";
		argv[argc++] = c->allow[i];
	}
	if (!c->loopback)
		argv[argc++] = "--no-loopback";
	/* Where the agents log (EGRESS_AGENT_LOG, init's $SV) is where this
	 * caller's agents write: declared, as any caller declares its agent's
	 * work directory. Then the cell's own. */
	if (log_dir(logdir, sizeof(logdir)) == 0) {
		argv[argc++] = "--writable";
		argv[argc++] = logdir;
	}
	for (i = 0; i < c->nwritable; i++) {
		argv[argc++] = "--writable";
		argv[argc++] = c->writable[i];
	}
	for (i = 0; i < c->nunix_peer; i++) {
		argv[argc++] = "--unix-peer";
		argv[argc++] = c->unix_peer[i];
	}
	argv[argc++] = "--";
	for (i = 0; i < c->nagent; i++)
		argv[argc++] = c->agent[i];
	argv[argc] = NULL;

	{
		static const char marker[] = "exec ";
		size_t len = strlen(o->supervisor);

		if (write(readback_fd, marker, sizeof(marker) - 1) < 0 ||
		    write(readback_fd, o->supervisor, len) < 0 || write(readback_fd, "\n", 1) < 0)
			die_infra("readback", "write: %s", strerror(errno));
	}
	/* The supervisor must not inherit the readback descriptor. */
	fcntl(readback_fd, F_SETFD, FD_CLOEXEC);
	{
		extern char **environ;

		execve(o->supervisor, (char *const *)argv, environ);
	}
	die_infra("exec", "%s: %s", o->supervisor, strerror(errno));
}

static void usage(void)
{
	fprintf(stderr, "usage: egress-envexec --cell FILE --readback FILE --report-fd N "
			"--supervisor PATH [--hide DIR]... [--tty PTY-SLAVE]\n");
	exit(EXIT_INFRA);
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->readback_fd = -1;
	o->cell_fd = -1;
	o->tty_fd = -1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--verify") == 0 || strcmp(a, "--hidden") == 0) {
			*(a[2] == 'v' ? &o->verify : &o->hidden) = 1;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (strcmp(a, "--cell") == 0)
			o->cell = v;
		else if (strcmp(a, "--readback") == 0)
			o->readback = v;
		else if (strcmp(a, "--readback-fd") == 0)
			o->readback_fd = atoi(v);
		else if (strcmp(a, "--report-fd") == 0)
			o->report_fd = v;
		else if (strcmp(a, "--supervisor") == 0)
			o->supervisor = v;
		else if (strcmp(a, "--hide") == 0 && o->nhide < 4)
			o->hide[o->nhide++] = v;
		else if (strcmp(a, "--cell-fd") == 0)
			o->cell_fd = atoi(v);
		else if (strcmp(a, "--tty") == 0)
			o->tty = v;
		else if (strcmp(a, "--tty-fd") == 0)
			o->tty_fd = atoi(v);
		else if (strcmp(a, "--expect-bnd") == 0)
			o->expect_bnd = strtoull(v, NULL, 16);
		else
			usage();
	}
	if (!o->cell || !o->report_fd || !o->supervisor)
		usage();
	if (o->verify ? o->readback_fd < 0 : !o->readback)
		usage();
}

int main(int argc, char **argv)
{
	/* Static: the cell's text is in it (64 KiB), and it outlives main's frame
	 * only in that the strings the exec passes point into it. */
	static struct ev_cell c;
	struct opts o;
	char err[256];

	parse_opts(argc, argv, &o);
	if (o.verify) {
		readback_fd = o.readback_fd;
	} else {
		/* No O_CLOEXEC: phase 2 inherits it across the re-exec. */
		readback_fd = open(o.readback, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
		if (readback_fd < 0) {
			fprintf(stderr, "envexec: %s: %s\n", o.readback, strerror(errno));
			return EXIT_INFRA;
		}
	}
	if (ev_cell_parse(o.cell, &c, err, sizeof(err)) < 0)
		die_infra("cell", "%s: %s", o.cell, err);
	/* Read: nothing the supervisor starts may hold the cell file. */
	if (o.verify && o.cell_fd > 2)
		close(o.cell_fd);
	if (o.verify)
		verify_and_exec(&o, &c);
	else
		apply(&o, &c);
	return EXIT_INFRA;
}
