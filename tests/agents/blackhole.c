/*
 * blackhole: a TCP address that never answers, run as a service. Binds
 * ADDR:PORT, listens with backlog 0 and fills the accept queue itself (one
 * completed connection it never accepts, one more pending), so the kernel
 * drops every further SYN and a blocking connect there waits until its own
 * timeout. Checks that a third connect really gets no answer within 0.5 s,
 * logs "listen" (result 0, or -1 when the queue would not fill) and waits to
 * be killed.
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

/* A non-blocking connect to D; returns the socket or -errno. */
static int start_connect(const struct agent_dest *d)
{
	int fd = socket(d->family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)&d->ss, d->len) < 0 && errno != EINPROGRESS) {
		int err = errno;

		close(fd);
		return -err;
	}
	return fd;
}

int main(int argc, char **argv)
{
	struct pollfd pfd = {.events = POLLOUT};
	struct agent_dest d;
	int lfd, filler, pending;

	agent_init("blackhole");
	if (argc != 2 || agent_parse_dest(argv[1], &d) < 0)
		return agent_usage("ADDR:PORT");
	lfd = socket(d.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (const struct sockaddr *)&d.ss, d.len) < 0 || listen(lfd, 0) < 0) {
		agent_log("listen", d.text, -1, errno, NULL);
		return 1;
	}
	/* Backlog 0 admits one queued connection (full means more than the backlog). */
	filler = start_connect(&d);
	pfd.fd = filler;
	if (filler < 0 || poll(&pfd, 1, 2000) != 1) {
		agent_log("connect_filler", d.text, filler < 0 ? -1 : 0,
			  filler < 0 ? -filler : ETIMEDOUT, NULL);
		return 1;
	}
	pending = start_connect(&d);
	if (pending < 0) {
		agent_log("connect_pending", d.text, -1, -pending, NULL);
		return 1;
	}
	pfd.fd = start_connect(&d);
	if (pfd.fd < 0 || poll(&pfd, 1, 500) != 0) {
		agent_log(
		    "listen", d.text, -1, pfd.fd < 0 ? -pfd.fd : EISCONN,
		    ",\"detail\":\"a probe connect was answered: the accept queue is not full\"");
		return 1;
	}
	close(pfd.fd);
	agent_log("listen", d.text, 0, 0, ",\"blackhole\":true");
	for (;;)
		pause();
}
