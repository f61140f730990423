/*
 * egress-sink: the guest's ground truth for what really arrived.
 *
 *   egress-sink --log FILE --ready FILE [--linger-ms N] {tcp|udp} ADDR:PORT ...
 *
 * Listens on every endpoint given (ADDR:PORT or [V6]:PORT, a specific
 * address: the guest adds documentation addresses to lo), and records as one
 * JSON line each, written with a single write() to FILE:
 *   - every TCP connection accepted, at accept time:
 *       {"proto":"tcp","event":"accept","dest":"203.0.113.5:443","peer":"...","bytes":0,"t_ms":N}
 *   - its end (EOF, error, the per-connection deadline, or the sink stopping),
 *     with the bytes received:
 *       {"proto":"tcp","event":"end","dest":...,"peer":...,"bytes":N,"how":"eof","t_ms":N}
 *   - every datagram:
 *       {"proto":"udp","event":"datagram","dest":...,"peer":...,"bytes":N,"t_ms":N}
 * A TCP peer gets one reply line ("ok: sink DEST") per line it sends, so
 * agents that wait for an answer work.
 *
 * When every socket is bound (and listening), FILE given by --ready is
 * created: the guest init starts the supervisor only then.
 *
 * SIGTERM or SIGINT stops the sink, in two steps. First the stop marker: a
 * datagram with a random token, sent over lo from each CPU the sink may run
 * on to a private socket of its own (127.0.0.1, an ephemeral port; never an
 * endpoint, never recorded). lo's transmit puts every packet on the sending
 * CPU's backlog (loopback_xmit -> __netif_rx/netif_rx -> enqueue_to_backlog,
 * drivers/net/loopback.c, net/core/dev.c), which process_backlog empties in
 * order, IPv4 and IPv6 alike; so once every CPU's marker is back, every
 * packet sent over lo before the stop (by processes that are gone: the
 * caller stops the sink after the supervisor and its agent) has been through
 * the stack: a datagram or the data of a connection is in its socket's
 * queue, a completed handshake in the listener's accept queue. The endpoints
 * are served meanwhile. Second, drain(): everything queued is accepted and
 * read, so nothing that arrived goes unrecorded. A marker not back within
 * MARK_BOUND_MS is said on stderr ("egress-sink: stop unproven: ...") and
 * the sink still drains, then exits 3: what was in flight may be missing.
 *
 * A record that could not be written whole (ENOSPC, EIO, a short write) is
 * a hole in the ground truth: each is said on stderr ("egress-sink: cannot
 * write a record ..."), and at its exit the sink says how many were lost
 * ("egress-sink: records lost: ...") and exits 4, so that the loss is known
 * even when its stderr is on the file system that failed (the guest's init
 * turns it into infra-error, docs/guest.md). The guest keeps FILE on a
 * tmpfs of the sink's own that no process of the cell can write.
 * Anything on stderr is an error of the ground truth (the guest sends it as
 * the sink_err section; the host makes any non-empty one infra-error).
 * Exit status 0, 1 on a set-up error or a failed ppoll (named on stderr),
 * 2 on bad arguments, 3 on an unproven stop, 4 when a record was lost
 * (whether or not the stop was proven).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* include/uapi/linux/random.h, 5.6+ (musl's headers may not name it). */
#define SINK_GRND_INSECURE 0x0004

#define MAX_ENDPOINTS 32
#define MAX_CONNS 4096
#define TEXT_LEN 64
/* How long the stop waits for its markers, and how often it sends them
 * again (a marker can be dropped: a full backlog, netdev_max_backlog). */
#define MARK_BOUND_MS 2000
#define MARK_RESEND_MS 100
#define MARK_TOKEN_LEN 16

struct endpoint {
	int fd;
	int tcp;
	char text[TEXT_LEN];
};

struct conn {
	int fd;
	long long bytes;
	double deadline_ms;
	char dest[TEXT_LEN];
	char peer[TEXT_LEN];
};

static struct endpoint eps[MAX_ENDPOINTS];
static int n_eps;
static struct conn conns[MAX_CONNS];
static int n_conns;
static int log_fd = -1;
static double t0_ms;
static double linger_ms = 2000;
static volatile sig_atomic_t stopping;
/* Records that could not be written whole, and the first one's error. */
static long long lost_records;
static int lost_errno;

/* The stop marker: its socket and address, the token, the CPUs it is sent
 * from and which of them came back. */
static int mark_fd = -1;
static struct sockaddr_in mark_addr;
static unsigned char mark_token[MARK_TOKEN_LEN];
static cpu_set_t mark_cpus;
static cpu_set_t mark_back;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

/* One record, one write(): a line is never torn. A record not written
 * whole is counted as lost (the exit status says so) and said on stderr. */
static void record(const char *proto, const char *event, const char *dest, const char *peer,
		   long long bytes, const char *how)
{
	char line[512], howq[64] = "";
	ssize_t w = -1;
	int n, err = 0;

	if (how)
		snprintf(howq, sizeof(howq), ",\"how\":\"%s\"", how);
	n = snprintf(line, sizeof(line),
		     "{\"proto\":\"%s\",\"event\":\"%s\",\"dest\":\"%s\",\"peer\":\"%s\","
		     "\"bytes\":%lld%s,\"t_ms\":%.1f}\n",
		     proto, event, dest, peer, bytes, howq, now_ms() - t0_ms);
	if (n < 0 || n >= (int)sizeof(line)) {
		err = EOVERFLOW;
	} else {
		do
			w = write(log_fd, line, (size_t)n);
		while (w < 0 && errno == EINTR);
		if (w < 0)
			err = errno;
		else if (w != n)
			/* Short: the file system filled mid-line. */
			err = ENOSPC;
	}
#ifndef GUEST_MUTANT_SINK_IGNORES_LOST
	/* MUTANT sink-ignores-lost (when defined): a lost record is only
	 * said on stderr and the sink exits 0, as before the hostile review
	 * h-attack34 (initramfs/tests/test_sink_lost.py shows what). */
	if (err) {
		if (!lost_records)
			lost_errno = err;
		lost_records++;
	}
#endif
	if (err)
		fprintf(stderr, "egress-sink: cannot write a record (%s %s %s): %s%s\n", proto,
			event, dest, strerror(err), w > 0 ? " (short write: a torn line)" : "");
}

/* "a.b.c.d:port" or "[v6]:port" of a socket address; "?" for anything else. */
static void addr_text(const struct sockaddr_storage *ss, char *out, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &s->sin_addr, ip, sizeof(ip));
		snprintf(out, len, "%s:%u", ip, ntohs(s->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &s->sin6_addr, ip, sizeof(ip));
		snprintf(out, len, "[%s]:%u", ip, ntohs(s->sin6_port));
	} else {
		snprintf(out, len, "?");
	}
}

/* Parses ADDR:PORT / [V6]:PORT into SS. Returns the address length, or 0. */
static socklen_t parse_addr(const char *s, struct sockaddr_storage *ss)
{
	char host[INET6_ADDRSTRLEN];
	const char *colon;
	size_t hlen;
	char *end;
	long port;
	int v6 = s[0] == '[';

	memset(ss, 0, sizeof(*ss));
	if (v6) {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':')
			return 0;
		hlen = (size_t)(close - s - 1);
		colon = close + 1;
		s++;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return 0;
		hlen = (size_t)(colon - s);
	}
	if (hlen == 0 || hlen >= sizeof(host))
		return 0;
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (colon[1] == '\0' || *end || errno || port < 1 || port > 65535)
		return 0;
	if (v6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		if (inet_pton(AF_INET6, host, &s6->sin6_addr) != 1)
			return 0;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((unsigned short)port);
		return sizeof(*s6);
	}
	{
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		if (inet_pton(AF_INET, host, &s4->sin_addr) != 1)
			return 0;
		s4->sin_family = AF_INET;
		s4->sin_port = htons((unsigned short)port);
		return sizeof(*s4);
	}
}

/* Binds (and listens on) one endpoint. Returns 0, or -errno with the failing
 * step named on stderr. */
static int open_endpoint(const char *proto, const char *spec)
{
	struct endpoint *ep = &eps[n_eps];
	struct sockaddr_storage ss;
	socklen_t len = parse_addr(spec, &ss);
	int one = 1, reuse, err;

	if (len == 0) {
		fprintf(stderr, "egress-sink: endpoint %s %s: want ADDR:PORT or [V6]:PORT\n", proto,
			spec);
		return -EINVAL;
	}
	ep->tcp = strcmp(proto, "tcp") == 0;
	addr_text(&ss, ep->text, sizeof(ep->text));
	ep->fd = socket(ss.ss_family,
			(ep->tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (ep->fd < 0)
		goto fail;
	/* SO_REUSEADDR on a listener only lets it bind over connections in
	 * TIME_WAIT; a second listener on the address is refused whatever it
	 * sets. On a UDP socket it lets any other socket that sets it too, of
	 * any uid, bind the same address and port, and the kernel then hands
	 * each datagram to the newest: the agent's (bind is never trapped),
	 * which received what arrived here and the record missed it (hostile
	 * review h-attack71, tests/review/ha71-guest.sh). */
	reuse = ep->tcp;
#ifdef GUEST_MUTANT_SINK_UDP_REUSEADDR
	/* GUEST MUTANT sink-udp-reuseaddr: on every endpoint, as before. */
	reuse = 1;
#endif
	if (reuse)
		setsockopt(ep->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* A v6 endpoint is that address only: a dual-stack socket would also
	 * take IPv4 traffic and record it under the wrong destination. */
	if (ss.ss_family == AF_INET6 &&
	    setsockopt(ep->fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0)
		goto fail;
	if (bind(ep->fd, (struct sockaddr *)&ss, len) < 0)
		goto fail;
	if (ep->tcp && listen(ep->fd, 4096) < 0)
		goto fail;
	n_eps++;
	return 0;
fail:
	err = errno;
	fprintf(stderr, "egress-sink: %s %s: %s\n", proto, ep->text, strerror(err));
	return -err;
}

static void conn_end(int i, const char *how)
{
	struct conn *c = &conns[i];

	record("tcp", "end", c->dest, c->peer, c->bytes, how);
	close(c->fd);
	conns[i] = conns[--n_conns];
}

static void accept_all(struct endpoint *ep)
{
	for (;;) {
		struct sockaddr_storage peer, local;
		socklen_t plen = sizeof(peer), llen = sizeof(local);
		char ptext[TEXT_LEN], dtext[TEXT_LEN];
		int fd =
		    accept4(ep->fd, (struct sockaddr *)&peer, &plen, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				fprintf(stderr, "egress-sink: accept on %s: %s\n", ep->text,
					strerror(errno));
			if (errno == ECONNABORTED || errno == EINTR)
				continue;
			return;
		}
		addr_text(&peer, ptext, sizeof(ptext));
		/* Where it really arrived, as the kernel says. */
		if (getsockname(fd, (struct sockaddr *)&local, &llen) == 0)
			addr_text(&local, dtext, sizeof(dtext));
		else
			snprintf(dtext, sizeof(dtext), "%s", ep->text);
		record("tcp", "accept", dtext, ptext, 0, NULL);
		if (n_conns == MAX_CONNS) {
			/* Recorded all the same; only its byte count is lost. */
			record("tcp", "end", dtext, ptext, 0, "overflow");
			close(fd);
			continue;
		}
		conns[n_conns].fd = fd;
		conns[n_conns].bytes = 0;
		conns[n_conns].deadline_ms = now_ms() + linger_ms;
		snprintf(conns[n_conns].dest, TEXT_LEN, "%s", dtext);
		snprintf(conns[n_conns].peer, TEXT_LEN, "%s", ptext);
		n_conns++;
	}
}

static void recv_all(struct endpoint *ep)
{
	for (;;) {
		static char buf[65536];
		struct sockaddr_storage peer;
		socklen_t plen = sizeof(peer);
		char ptext[TEXT_LEN];
		ssize_t r =
		    recvfrom(ep->fd, buf, sizeof(buf), MSG_TRUNC, (struct sockaddr *)&peer, &plen);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				fprintf(stderr, "egress-sink: recvfrom on %s: %s\n", ep->text,
					strerror(errno));
			return;
		}
		addr_text(&peer, ptext, sizeof(ptext));
		record("udp", "datagram", ep->text, ptext, (long long)r, NULL);
	}
}

/* Reads what is there; answers each complete line. Returns 1 when the
 * connection ended (recorded and closed). */
static int conn_read(int i)
{
	struct conn *c = &conns[i];

	for (;;) {
		char buf[4096], reply[TEXT_LEN + 16];
		ssize_t r = read(c->fd, buf, sizeof(buf));

		if (r == 0) {
			conn_end(i, "eof");
			return 1;
		}
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			conn_end(i, errno == ECONNRESET ? "reset" : "error");
			return 1;
		}
		c->bytes += r;
		snprintf(reply, sizeof(reply), "ok: sink %s\n", c->dest);
		for (ssize_t k = 0; k < r; k++)
			if (buf[k] == '\n' && write(c->fd, reply, strlen(reply)) < 0)
				break; /* the peer went away: its EOF ends it */
	}
}

/* The final pass at stop: what is queued is still recorded. */
static void drain(void)
{
	for (int e = 0; e < n_eps; e++) {
		if (eps[e].tcp)
			accept_all(&eps[e]);
		else
			recv_all(&eps[e]);
	}
	for (int i = n_conns - 1; i >= 0; i--)
		if (!conn_read(i))
			conn_end(i, "stopped");
}

/* The marker's socket (bound before the sink is ready, so that the stop
 * needs no set-up), its token and the CPUs to send it from. Returns 0, or
 * -errno with the failing step named on stderr. */
static int marker_open(void)
{
	socklen_t len = sizeof(mark_addr);
	const char *step = "socket";
	int fd, err;

	if (sched_getaffinity(0, sizeof(mark_cpus), &mark_cpus) < 0) {
		step = "sched_getaffinity";
		goto fail;
	}
	/* Never waiting for the kernel's random pool: from 5.18 a read of
	 * /dev/urandom before the pool is initialised blocks (about a second
	 * after boot under TCG, paid by the first sink of every boot), and a
	 * token that tells the sink's own marker from stray datagrams needs
	 * no more than GRND_INSECURE gives. Before 5.6 there is no
	 * GRND_INSECURE (EINVAL), and /dev/urandom there never blocks. */
	if (getrandom(mark_token, sizeof(mark_token), SINK_GRND_INSECURE) !=
	    (ssize_t)sizeof(mark_token)) {
		fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		if (fd < 0 ||
		    read(fd, mark_token, sizeof(mark_token)) != (ssize_t)sizeof(mark_token)) {
			step = "/dev/urandom";
			if (fd >= 0)
				close(fd);
			goto fail;
		}
		close(fd);
	}
	mark_fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (mark_fd < 0)
		goto fail;
	mark_addr.sin_family = AF_INET;
	mark_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	step = "bind 127.0.0.1:0";
	if (bind(mark_fd, (struct sockaddr *)&mark_addr, sizeof(mark_addr)) < 0)
		goto fail;
	step = "getsockname";
	if (getsockname(mark_fd, (struct sockaddr *)&mark_addr, &len) < 0)
		goto fail;
	return 0;
fail:
	err = errno ? errno : EIO;
	fprintf(stderr, "egress-sink: stop marker: %s: %s\n", step, strerror(err));
	return -err;
}

/* Sends the marker from every CPU not yet back: pinned to that CPU, so it
 * joins the tail of that CPU's backlog. The affinity is restored after.
 * Returns the number of CPUs it could not be sent from (said on stderr once,
 * when SAY). */
static int marker_send(int say)
{
	unsigned char msg[MARK_TOKEN_LEN + sizeof(int)];
	cpu_set_t one;
	int missed = 0;

	memcpy(msg, mark_token, MARK_TOKEN_LEN);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &mark_cpus) || CPU_ISSET(cpu, &mark_back))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		memcpy(msg + MARK_TOKEN_LEN, &cpu, sizeof(cpu));
		if (sched_setaffinity(0, sizeof(one), &one) < 0 ||
		    sendto(mark_fd, msg, sizeof(msg), 0, (struct sockaddr *)&mark_addr,
			   sizeof(mark_addr)) != (ssize_t)sizeof(msg)) {
			if (say)
				fprintf(stderr, "egress-sink: stop marker from CPU %d: %s\n", cpu,
					strerror(errno));
			missed++;
		}
	}
	sched_setaffinity(0, sizeof(mark_cpus), &mark_cpus);
	return missed;
}

/* Reads the marker socket. Returns 1 when every CPU's marker is back. Only
 * a datagram from the marker socket itself with the token counts. */
static int marker_read(void)
{
	for (;;) {
		unsigned char msg[MARK_TOKEN_LEN + sizeof(int) + 1];
		struct sockaddr_in peer;
		socklen_t plen = sizeof(peer);
		ssize_t r = recvfrom(mark_fd, msg, sizeof(msg), 0, (struct sockaddr *)&peer, &plen);
		int cpu;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		if (r != (ssize_t)(MARK_TOKEN_LEN + sizeof(int)) || plen != sizeof(peer) ||
		    peer.sin_family != AF_INET || peer.sin_port != mark_addr.sin_port ||
		    peer.sin_addr.s_addr != mark_addr.sin_addr.s_addr ||
		    memcmp(msg, mark_token, MARK_TOKEN_LEN) != 0)
			continue;
		memcpy(&cpu, msg + MARK_TOKEN_LEN, sizeof(cpu));
		if (cpu >= 0 && cpu < CPU_SETSIZE)
			CPU_SET(cpu, &mark_back);
	}
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &mark_cpus) && !CPU_ISSET(cpu, &mark_back))
			return 0;
	return 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: egress-sink --log FILE --ready FILE [--linger-ms N] "
			"{tcp|udp} ADDR:PORT ...\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *log_path = NULL, *ready_path = NULL;
	struct sigaction sa = {.sa_handler = on_stop};
	sigset_t block, empty;
	double mark_deadline = 0, mark_next = 0;
	int i = 1, fd, mark_sends = 0, mark_missed = 0, unproven = 0, failed = 0;

	while (i + 1 < argc && strncmp(argv[i], "--", 2) == 0) {
		if (strcmp(argv[i], "--log") == 0)
			log_path = argv[i + 1];
		else if (strcmp(argv[i], "--ready") == 0)
			ready_path = argv[i + 1];
		else if (strcmp(argv[i], "--linger-ms") == 0)
			linger_ms = atof(argv[i + 1]);
		else
			return usage();
		i += 2;
	}
	if (!log_path || !ready_path || i >= argc || (argc - i) % 2 || linger_ms <= 0 ||
	    (argc - i) / 2 > MAX_ENDPOINTS)
		return usage();
	for (int k = i; k < argc; k += 2)
		if (strcmp(argv[k], "tcp") != 0 && strcmp(argv[k], "udp") != 0)
			return usage();
	t0_ms = now_ms();
	/* MAX_CONNS open at once, beside the endpoints and the log: the
	 * default soft limit of 1024 made accept fail EMFILE first (threads-load's
	 * 6400 connects on a loaded machine: infra-error on debian-5.10 in run
	 * s40full), so the overflow below was never reached. The sink runs as
	 * root, which may raise both limits. */
	{
		struct rlimit want = {.rlim_cur = MAX_CONNS + 64, .rlim_max = MAX_CONNS + 64}, have;

		if (getrlimit(RLIMIT_NOFILE, &have) == 0 && have.rlim_max > want.rlim_max)
			want.rlim_max = have.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &want) != 0) {
			fprintf(stderr, "egress-sink: setrlimit(RLIMIT_NOFILE, %d): %s\n",
				MAX_CONNS + 64, strerror(errno));
			return 1;
		}
	}
	log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (log_fd < 0) {
		fprintf(stderr, "egress-sink: --log %s: %s\n", log_path, strerror(errno));
		return 1;
	}
	/* SIGTERM is only delivered inside ppoll: no stop is lost between a
	 * check of the flag and the wait. */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&empty);
	for (; i < argc; i += 2)
		if (open_endpoint(argv[i], argv[i + 1]) < 0)
			return 1;
	if (marker_open() < 0)
		return 1;
	fd = open(ready_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, "ready\n", 6) != 6 || close(fd) < 0) {
		fprintf(stderr, "egress-sink: --ready %s: %s\n", ready_path, strerror(errno));
		return 1;
	}
	for (;;) {
		static struct pollfd pfd[MAX_ENDPOINTS + MAX_CONNS + 1];
		double now = now_ms(), next = now + 1000;
		struct timespec ts;
		int n = 0, r;

		if (stopping) {
			if (mark_sends == 0)
				mark_deadline = now + MARK_BOUND_MS;
			if (now >= mark_next) {
				mark_missed = marker_send(mark_sends == 0);
				mark_sends++;
				mark_next = now + MARK_RESEND_MS;
			}
			/* Back already when the send's own softirq ran the backlog. */
			if (marker_read())
				break;
#ifdef GUEST_MUTANT_SINK_NO_MARKER
			/* MUTANT sink-no-marker: the stop drains at once, without
			 * waiting for its marker, so what is still queued on lo is
			 * lost (initramfs/tests/test_sink_stop.py shows what). */
			break;
#endif
			if (now >= mark_deadline) {
				fprintf(
				    stderr,
				    "egress-sink: stop unproven: the stop marker did not come "
				    "back within %d ms (%d send(s), %d CPU(s) failed at the last): "
				    "data still in flight on lo may be missing from the log\n",
				    MARK_BOUND_MS, mark_sends, mark_missed);
				unproven = 1;
				break;
			}
			next = mark_next < mark_deadline ? mark_next : mark_deadline;
		}
		for (int e = 0; e < n_eps; e++)
			pfd[n++] = (struct pollfd){.fd = eps[e].fd, .events = POLLIN};
		for (int c = 0; c < n_conns; c++) {
			pfd[n++] = (struct pollfd){.fd = conns[c].fd, .events = POLLIN};
			if (conns[c].deadline_ms < next)
				next = conns[c].deadline_ms;
		}
		/* The marker's socket last: the indices above stay as they were. */
		if (stopping)
			pfd[n++] = (struct pollfd){.fd = mark_fd, .events = POLLIN};
		if (next < now)
			next = now;
		ts.tv_sec = (time_t)((next - now) / 1000);
		ts.tv_nsec = (long)((next - now - (double)ts.tv_sec * 1000) * 1e6);
		r = ppoll(pfd, (nfds_t)n, &ts, &empty);
		if (r < 0 && errno != EINTR) {
			fprintf(stderr, "egress-sink: ppoll: %s\n", strerror(errno));
			failed = 1;
			break;
		}
		/* Connections first (indices move when one ends), newest first. */
		for (int c = n_conns - 1; r > 0 && c >= 0; c--)
			if (pfd[n_eps + c].revents)
				conn_read(c);
		for (int e = 0; r > 0 && e < n_eps; e++) {
			if (!pfd[e].revents)
				continue;
			if (eps[e].tcp)
				accept_all(&eps[e]);
			else
				recv_all(&eps[e]);
		}
		now = now_ms();
		for (int c = n_conns - 1; c >= 0; c--)
			if (conns[c].deadline_ms <= now && !conn_read(c))
				conn_end(c, "deadline");
	}
	drain();
	if (lost_records) {
		fprintf(stderr,
			"egress-sink: records lost: %lld record(s) could not be written to %s "
			"(first: %s): the record is not the ground truth\n",
			lost_records, log_path, strerror(lost_errno));
		return 4;
	}
	return failed ? 1 : unproven ? 3 : 0;
}
