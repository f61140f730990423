/* ha32-kdiff.c (hostile review h-attack32, against 7d6cbe9): the kernel
 * alone, no supervisor. For each state a host's socket bound to an abstract
 * name can be in, what the supervisor's connect probe
 * (sv_unixdiag_name_refused: stream and seqpacket from a nonblocking,
 * autobound, listening socket; datagram a plain connect) is answered, next
 * to what the agent's own nonblocking connect (or sendto) is answered. The
 * probe's "refused" must imply the agent's "refused". Also shows the probe's
 * one side effect: a datagram receiver it connected to is left in state
 * ESTABLISHED (6.x: unix_dgram_connect sets the peer's sk_state), seen
 * through sock_diag (udiag_state). Prints one line a case, "MISMATCH" where
 * the probe said refused and the agent was not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static int cases, mismatches;

static socklen_t nm(struct sockaddr_un *a, const char *p)
{
	memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	memcpy(a->sun_path + 1, p, strlen(p));
	return offsetof(struct sockaddr_un, sun_path) + 1 + strlen(p);
}

static const char *en(int rc, int e)
{
	return rc >= 0 ? "ok" : strerrorname_np(e);
}

/* The supervisor's probe: 1 refused, 0 something there, -errno. */
static int probe(int type, const char *n, int *err)
{
	struct sockaddr_un a;
	socklen_t l = nm(&a, n);
	int s = socket(AF_UNIX, type | SOCK_NONBLOCK, 0), rc, e;

	if (type != SOCK_DGRAM) {
		sa_family_t f = AF_UNIX;

		if (bind(s, (void *)&f, sizeof f) || listen(s, 1))
			return -errno;
	}
	rc = connect(s, (void *)&a, l);
	e = errno;
	close(s);
	*err = rc == 0 ? 0 : e;
	return rc == 0 || e == EINVAL || e == EAGAIN || e == EPERM ? 0 : e == ECONNREFUSED ? 1 : -e;
}

/* The agent's own act: a nonblocking connect, or for datagram a sendto
 * from socket from (or a new one). */
static int agent(int type, const char *n, int from)
{
	struct sockaddr_un a;
	socklen_t l = nm(&a, n);
	int s = from >= 0 ? from : socket(AF_UNIX, type | SOCK_NONBLOCK, 0), rc, e;

	rc = type == SOCK_DGRAM ? (int)sendto(s, "x", 1, MSG_DONTWAIT, (void *)&a, l)
				: connect(s, (void *)&a, l);
	e = errno;
	if (from < 0)
		close(s);
	return rc >= 0 ? 0 : e;
}

static void report(const char *what, int type, const char *n, int from)
{
	int perr = 0, p = probe(type, n, &perr), ag = agent(type, n, from);
	int bad = p == 1 && ag != ECONNREFUSED;

	cases++;
	mismatches += bad;
	printf("%-44s probe %-13s (%s)  agent %-13s%s\n", what, en(perr ? -1 : 0, perr),
	       p == 1   ? "refused"
	       : p == 0 ? "there"
			: "error",
	       en(ag ? -1 : 0, ag), bad ? "  MISMATCH" : "");
}

static int bound(int type, const char *n)
{
	struct sockaddr_un a;
	socklen_t l = nm(&a, n);
	int s = socket(AF_UNIX, type, 0);

	if (bind(s, (void *)&a, l)) {
		perror("bind");
		return -1;
	}
	return s;
}

/* The udiag_state of the socket s (by inode), or -1. */
static int diag_state(int s)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req r;
	} req = {.nlh = {.nlmsg_len = sizeof(req),
			 .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			 .nlmsg_flags = NLM_F_REQUEST},
		 .r = {.sdiag_family = AF_UNIX, .udiag_states = ~0u, .udiag_cookie = {~0u, ~0u}}};
	char buf[1024];
	struct stat st;
	int nl = socket(AF_NETLINK, SOCK_DGRAM, NETLINK_SOCK_DIAG), st8 = -1;
	ssize_t n;

	fstat(s, &st);
	req.r.udiag_ino = (unsigned)st.st_ino;
	if (send(nl, &req, sizeof(req), 0) > 0 && (n = recv(nl, buf, sizeof(buf), 0)) > 0) {
		struct nlmsghdr *h = (void *)buf;

		if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY)
			st8 = ((struct unix_diag_msg *)NLMSG_DATA(h))->udiag_state;
	}
	close(nl);
	return st8;
}

int main(void)
{
	const int types[] = {SOCK_STREAM, SOCK_SEQPACKET};
	const char *tn[] = {"stream", "seqpacket"};
	char n[64];
	int s, c, c2;

	for (int i = 0; i < 2; i++) {
		int t = types[i];

		snprintf(n, sizeof n, "ha32-kd-none-%d", i);
		printf("-- %s\n", tn[i]);
		report("nothing bound", t, n, -1);
		snprintf(n, sizeof n, "ha32-kd-nol-%d", i);
		s = bound(t, n);
		report("bound, not listening", t, n, -1);
		close(s);
		snprintf(n, sizeof n, "ha32-kd-l-%d", i);
		s = bound(t, n);
		listen(s, 5);
		report("listening", t, n, -1);
		close(s);
		snprintf(n, sizeof n, "ha32-kd-b0-%d", i);
		s = bound(t, n);
		listen(s, 0);
		report("listening, backlog 0, empty", t, n, -1);
		c = agent(t, n, -1);
		report("listening, backlog 0, one queued", t, n, -1);
		(void)c;
		close(s);
		snprintf(n, sizeof n, "ha32-kd-rd-%d", i);
		s = bound(t, n);
		listen(s, 5);
		shutdown(s, SHUT_RD);
		report("listening, shutdown(SHUT_RD)", t, n, -1);
		close(s);
		snprintf(n, sizeof n, "ha32-kd-wr-%d", i);
		s = bound(t, n);
		listen(s, 5);
		shutdown(s, SHUT_WR);
		report("listening, shutdown(SHUT_WR)", t, n, -1);
		close(s);
		snprintf(n, sizeof n, "ha32-kd-rl-%d", i);
		s = bound(t, n);
		listen(s, 5);
		shutdown(s, SHUT_RDWR);
		listen(s, 5);
		report("SHUT_RDWR then listen again", t, n, -1);
		close(s);
		snprintf(n, sizeof n, "ha32-kd-lst-%d", i);
		s = bound(t, n);
		listen(s, 5);
		c = dup(s);
		close(s);
		report("listening, closed, a dup still open", t, n, -1);
		close(c);
	}
	printf("-- dgram\n");
	report("nothing bound", SOCK_DGRAM, "ha32-kd-dnone", -1);
	s = bound(SOCK_DGRAM, "ha32-kd-d");
	printf("   receiver's udiag_state before any probe: %d\n", diag_state(s));
	report("receiver", SOCK_DGRAM, "ha32-kd-d", -1);
	printf("   receiver's udiag_state after the probe: %d (1 ESTABLISHED, 7 CLOSE)\n",
	       diag_state(s));
	c = socket(AF_UNIX, SOCK_DGRAM, 0);
	{
		struct sockaddr_un a;
		socklen_t l = nm(&a, "ha32-kd-client");

		bind(c, (void *)&a, l);
		connect(s, (void *)&a, l); /* the receiver connected to the agent's socket */
	}
	report("receiver connected to the agent's socket", SOCK_DGRAM, "ha32-kd-d", c);
	c2 = socket(AF_UNIX, SOCK_DGRAM, 0);
	report("receiver connected to another socket", SOCK_DGRAM, "ha32-kd-d", c2);
	shutdown(s, SHUT_RD);
	report("receiver, shutdown(SHUT_RD)", SOCK_DGRAM, "ha32-kd-d", c);
	close(s);
	printf("RESULT: %d of %d cases the probe said refused and the agent was not\n", mismatches,
	       cases);
	return mismatches != 0;
}
