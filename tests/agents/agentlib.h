/*
 * agentlib: what every test agent shares.
 *
 * Agents are tiny static programs with ONE behaviour each, run under the
 * supervisor on the host and inside the QEMU guests. Each attempted call is
 * logged as one JSON line, written with a single write() to the O_APPEND file
 * named by EGRESS_AGENT_LOG (stderr when unset), so lines from threads and
 * forked children never interleave.
 */
#ifndef AGENTLIB_H
#define AGENTLIB_H

#include <stddef.h>
#include <sys/socket.h>

/* A parsed destination: "192.0.2.1:80" or "[2001:db8::1]:53". */
struct agent_dest {
	struct sockaddr_storage ss;
	socklen_t len;
	int family;
	char text[80]; /* canonical text, as logged */
};

/*
 * Opens the attempt log and remembers the agent's name. Call first.
 * The log descriptor is close-on-exec: an exec'd agent opens its own.
 */
void agent_init(const char *name);

/*
 * Every agent's main is agent_main (the macro below renames it): agentlib's
 * own main calls it and, once agent_init has opened the log, logs the
 * status it returns before returning it, as {"call":"exit","result":N,
 * "top":true|false}; top is true in the first process of the run that
 * called agent_init (and in what it execs), false in its children. The
 * oracle then has the agent's own exit status where a supervisor writes no
 * report (review h-foreign3: a report-less bundle's pass over an agent that
 * exited 1 for an escape was judged ok). An agent killed by a signal, or
 * one that leaves by exit() or _exit(), logs none. Only where built with
 * -DAGENTLIB_WRAP_MAIN (tests/agents/agents.mk, every agent of the matrix
 * and the integration tests); the reviews' own programs keep their main.
 */
#ifdef AGENTLIB_WRAP_MAIN
int agent_main(int argc, char **argv);
#ifndef AGENTLIB_OWN_MAIN
#define main agent_main
#endif
#endif

/*
 * For a caller of the supervisor (a scenario's launcher, which calls
 * agent_init to log its own set-up): execs ARGV[0] with ARGV, having
 * dropped the first-process mark agent_init set, so that the run's agent,
 * not the caller the supervisor replaced, is the one that logs "top":true.
 * Returns only when execv failed: logs it and returns 127.
 */
int agent_exec_caller(char **argv);

/*
 * Parses S into D. Returns 0, or -EINVAL for anything that is not an IPv4
 * address with port or a bracketed IPv6 address with port (port 0..65535).
 */
int agent_parse_dest(const char *s, struct agent_dest *d);

/*
 * Logs one attempt. RESULT is the syscall's return value; ERR is the errno
 * to report when RESULT < 0 (ignored otherwise; 0 logs null). DEST may be NULL (logged as
 * null). EXTRA, when not NULL, is appended verbatim inside the object and
 * must start with a comma: ",\"ms\":1.5".
 */
void agent_log(const char *call, const char *dest, long result, int err, const char *extra);

/* The errno's symbolic name ("EACCES"), or its number as text if unknown. */
const char *agent_errno_name(int err);

/* Prints "usage: NAME USAGE" to stderr and returns 2 (the bad-args status). */
int agent_usage(const char *usage);

/* Monotonic time in milliseconds. */
double agent_now_ms(void);

/* Parses a non-negative decimal int; returns -1 on any junk. */
long agent_parse_count(const char *s);

/*
 * Escapes S as the inside of a JSON string into BUF (always terminated,
 * truncated if needed). Returns BUF.
 */
char *agent_json_escape(const char *s, char *buf, size_t size);

/*
 * Stand-in helpers for the kernel's usermode helpers (key-upcall,
 * modprobe-name): a root service copies its own binary to PATH (mode 0755,
 * /sbin made if missing) and writes DEST, an IPv4 address, to DEST_FILE;
 * returns 0 or -errno. The helper, started by the kernel, sends MSG as one
 * UDP datagram to the address in DEST_FILE (127.0.0.2 without one), port
 * 9999. The service then holds a UDP socket on 127.0.0.1:9998, which the
 * guest's readiness test finds, and sleeps for ever.
 */
int agent_install_self(const char *path, const char *dest_file, const char *dest);
void agent_helper_send(const char *dest_file, const char *msg);
void agent_hold_ready(void);

/* Makes every missing directory above the last '/' of PATH (mode 0755;
 * relative to the working directory for a relative PATH), as a service
 * does before it binds a socket in a directory nobody made. Returns 0 or
 * -errno of the first mkdir that failed for another reason than EEXIST. */
int agent_make_parent(const char *path);

/* Crashes a child (SIGSEGV, core dumps unlimited, dumpable), so the kernel
 * runs whatever kernel.core_pattern pipes into; logs "crash_child" with
 * the child's signal, then waits 2 s: the helper runs asynchronously. */
void agent_crash_child(void);

/* A private anonymous page of *page bytes, not yet present, registered
 * for missing-page faults with a new non-blocking userfaultfd (the syscall,
 * or /dev/userfaultfd where the syscall is EPERM: 6.1+, governed by its
 * file mode): returns the userfaultfd and sets *region, or -1 with the
 * failed call logged as "userfaultfd". The agents that hold the
 * supervisor's copy of their memory use it. */
int agent_uffd_page(void **region, long *page);
/* Waits up to timeout_ms for the one missing-page fault of uffd: 1 when it
 * came, 0 when not. */
int agent_uffd_wait_fault(int uffd, int timeout_ms);
/* Supplies the page at region with the page bytes at src, which wakes the
 * faulting access. */
void agent_uffd_supply(int uffd, void *region, const void *src, long page);

/*
 * Copies bytes both ways between A (a relay's client) and B (its far side)
 * until either closes or WAIT_MS pass with nothing to copy, logging each
 * copy as "forward" (A to B, to DEST) or "reply". Returns 0 while B is
 * still usable (A closed, or the wait ran out), -1 once it is not (B
 * closed, or a write to it fell short).
 */
int agent_pump(int a, int b, const char *dest, int wait_ms);

#endif
