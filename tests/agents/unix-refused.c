/*
 * unix-refused: AF_UNIX calls the kernel refuses at once, which a
 * supervisor must answer as the kernel does, never as a mechanism failure
 * (an audit of the supervisor found both filed as one: capability-error,
 * which an agent could then pick at will over a fail).
 *
 *   unix-refused @NAME unlistening
 *       binds the abstract name NAME with a stream and a seqpacket socket
 *       and never listens, then connects to it with a socket of each type:
 *       the kernel answers ECONNREFUSED (unix_stream_connect: the bound
 *       socket is not listening).
 *   unix-refused @NAME too-long
 *       connects a stream socket, and sends a datagram, to a name of 120
 *       bytes (NAME, then zeros): longer than struct sockaddr_un, so the
 *       kernel answers EINVAL before any lookup.
 *
 * Exit 0 when every call got the kernel's answer, 1 otherwise (each call
 * is logged with its answer). Exit 2 on bad arguments or a failed set-up.
 */
#include "agentlib.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Longer than struct sockaddr_un (110 bytes), within sockaddr_storage. */
#define TOO_LONG 120

static struct sockaddr_un addr;
static socklen_t addr_len;
static char dest[sizeof(addr.sun_path) + 8];

/* Logs the call and returns 0 when it failed with want, else 1. */
static int expect(const char *call, int type, long rc, int err, int want)
{
	char extra[48];

	snprintf(extra, sizeof(extra), ",\"type\":\"%s\"",
		 type == SOCK_STREAM  ? "stream"
		 : type == SOCK_DGRAM ? "dgram"
				      : "seqpacket");
	agent_log(call, dest, rc, rc < 0 ? err : 0, extra);
	return rc < 0 && err == want ? 0 : 1;
}

static int unlistening(void)
{
	static const int types[] = {SOCK_STREAM, SOCK_SEQPACKET};
	int bad = 0;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		int b = socket(AF_UNIX, types[i] | SOCK_CLOEXEC, 0);
		int s = socket(AF_UNIX, types[i] | SOCK_CLOEXEC, 0), rc;

		if (b < 0 || s < 0 || bind(b, (struct sockaddr *)&addr, addr_len) != 0) {
			agent_log("bind", dest, -1, errno, NULL);
			return 2;
		}
		rc = connect(s, (struct sockaddr *)&addr, addr_len);
		bad |= expect("connect", types[i], rc, errno, ECONNREFUSED);
		close(s);
		close(b);
	}
	return bad;
}

static int too_long(void)
{
	unsigned char name[TOO_LONG] = {0};
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int d = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), bad;
	long rc;

	if (s < 0 || d < 0) {
		agent_log("socket", dest, -1, errno, NULL);
		return 2;
	}
	memcpy(name, &addr, addr_len);
	rc = connect(s, (struct sockaddr *)name, sizeof(name));
	bad = expect("connect", SOCK_STREAM, rc, errno, EINVAL);
	rc = sendto(d, "EGRESS-UNIX-REFUSED", 19, 0, (struct sockaddr *)name, sizeof(name));
	bad |= expect("sendto", SOCK_DGRAM, rc, errno, EINVAL);
	return bad;
}

int main(int argc, char **argv)
{
	static const char usage[] = "@NAME unlistening|too-long";
	size_t n;

	agent_init("unix-refused");
	if (argc != 3 || argv[1][0] != '@' || (n = strlen(argv[1] + 1)) == 0 ||
	    n >= sizeof(addr.sun_path) ||
	    (strcmp(argv[2], "unlistening") != 0 && strcmp(argv[2], "too-long") != 0))
		return agent_usage(usage);
	addr.sun_family = AF_UNIX;
	memcpy(addr.sun_path + 1, argv[1] + 1, n);
	addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	snprintf(dest, sizeof(dest), "unix:%s", argv[1]);
	return strcmp(argv[2], "unlistening") == 0 ? unlistening() : too_long();
}
