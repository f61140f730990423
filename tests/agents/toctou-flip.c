/*
 * toctou-flip: N (default 300) connects from one sockaddr in memory while a
 * second thread keeps flipping it between DECLARED and UNDECLARED, so the
 * address changes while each connect is trapped. A supervisor that judges one
 * copy and lets the kernel read the memory again (SECCOMP_USER_NOTIF_FLAG_
 * CONTINUE) connects to whatever is there by then. Then one unraced connect
 * to UNDECLARED.
 *
 * The two destinations must differ in exactly one byte of the sockaddr, so
 * every read of it, however torn, sees one of the two. Each raced attempt is
 * logged with the destination it really had: the peer (getpeername) when it
 * connected, UNDECLARED when refused (any errno but EINTR: the only one a
 * policy that declares DECLARED refuses; the errno is logged and the host
 * checks it against the report's promise), null otherwise.
 *
 * Exit status: 1 when a connect reached UNDECLARED or the final one was not
 * refused, else 0.
 */
#include "agentlib.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static struct sockaddr_storage shared;
static unsigned char *flip_byte;
static unsigned char flip_val[2];
static atomic_int stop;
static atomic_long flips;

static void *flipper(void *arg)
{
	unsigned i = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		__atomic_store_n(flip_byte, flip_val[i++ & 1], __ATOMIC_RELAXED);
		atomic_fetch_add(&flips, 1);
		/* One flip per turn on the CPU: the guest has one, shared with the supervisor. */
		sched_yield();
	}
	return NULL;
}

/* The byte index where A and B differ; -1 unless there is exactly one. */
static int one_diff(const struct agent_dest *a, const struct agent_dest *b)
{
	const unsigned char *x = (const unsigned char *)&a->ss, *y = (const unsigned char *)&b->ss;
	int at = -1;
	socklen_t i;

	if (a->len != b->len)
		return -1;
	for (i = 0; i < a->len; i++) {
		if (x[i] == y[i])
			continue;
		if (at >= 0)
			return -1;
		at = (int)i;
	}
	return at;
}

/* One raced connect; returns 1 when it reached UNDECLARED. */
static int raced(const struct agent_dest *declared, const struct agent_dest *undeclared, long *ok,
		 long *refused, long *other)
{
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);
	const char *dest = NULL;
	int fd = socket(declared->family, SOCK_STREAM | SOCK_CLOEXEC, 0), bad = 0, err;
	long r;

	if (fd < 0) {
		agent_log("socket", NULL, fd, errno, NULL);
		(*other)++;
		return 0;
	}
	r = connect(fd, (const struct sockaddr *)&shared, declared->len);
	err = errno;
	if (r == 0 && getpeername(fd, (struct sockaddr *)&peer, &plen) == 0) {
		(*ok)++;
		if (plen == declared->len && memcmp(&peer, &declared->ss, plen) == 0) {
			dest = declared->text;
		} else if (plen == undeclared->len && memcmp(&peer, &undeclared->ss, plen) == 0) {
			dest = undeclared->text;
			bad = 1;
		}
	} else if (r < 0 && err != EINTR) {
		(*refused)++;
		dest = undeclared->text;
	} else {
		(*other)++;
	}
	agent_log("connect", dest, r, err, ",\"raced\":true");
	close(fd);
	return bad;
}

int main(int argc, char **argv)
{
	static const char usage[] = "[-n N] DECLARED UNDECLARED (differing in one byte)";
	struct agent_dest declared, undeclared;
	long n = 300, i, ok = 0, refused = 0, other = 0, reached_undeclared = 0;
	char extra[256];
	pthread_t th;
	int a = 1, at, fd, err, final_ok;
	long r;

	agent_init("toctou-flip");
	if (a + 1 < argc && strcmp(argv[a], "-n") == 0) {
		n = agent_parse_count(argv[a + 1]);
		a += 2;
	}
	if (argc - a != 2 || n < 0 || agent_parse_dest(argv[a], &declared) < 0 ||
	    agent_parse_dest(argv[a + 1], &undeclared) < 0 ||
	    (at = one_diff(&declared, &undeclared)) < 0)
		return agent_usage(usage);
	memcpy(&shared, &declared.ss, declared.len);
	flip_byte = (unsigned char *)&shared + at;
	flip_val[0] = ((unsigned char *)&undeclared.ss)[at];
	flip_val[1] = ((unsigned char *)&declared.ss)[at];
	err = pthread_create(&th, NULL, flipper, NULL);
	if (err) {
		agent_log("pthread_create", NULL, -1, err, NULL);
		return 1;
	}
	for (i = 0; i < n; i++)
		reached_undeclared += raced(&declared, &undeclared, &ok, &refused, &other);
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	snprintf(extra, sizeof(extra),
		 ",\"attempts\":%ld,\"ok\":%ld,\"refused\":%ld,\"other\":%ld,"
		 "\"reached_undeclared\":%ld,\"flips\":%ld",
		 n, ok, refused, other, reached_undeclared, (long)atomic_load(&flips));
	agent_log("connect_summary", NULL, ok, 0, extra);

	/* The unraced connect: the run holds one undeclared attempt for certain. */
	fd = socket(undeclared.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	r = connect(fd, (const struct sockaddr *)&undeclared.ss, undeclared.len);
	err = errno;
	agent_log("connect", undeclared.text, r, err, NULL);
	final_ok = r < 0 && err != EINTR;
	close(fd);
	return reached_undeclared || !final_ok ? 1 : 0;
}
