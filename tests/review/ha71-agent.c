/* ha71-agent: hostile review h-attack71 (issue 12's run-integrity classes
 * as fresh variants, against da918e4). Static musl; modes:
 *   steal ADDR PORT SECS [send]  bind a UDP socket to ADDR:PORT (a sink's
 *                                endpoint) with SO_REUSEADDR, as the sink
 *                                binds its own, and count for SECS seconds
 *                                what arrives on it instead of the sink;
 *                                "send": also send 3 datagrams there itself
 *                                (logged as the agent's sendto attempts)
 *                                Once bound it makes the file ha71-bound
 *                                beside $EGRESS_AGENT_LOG.
 *   udpsend ADDR PORT FILE N     (a service, the stand-in for a send a
 *                                faulty supervisor let through) once FILE
 *                                exists (40 s at most), N datagrams to
 *                                ADDR:PORT
 *   key                          add a "user" key to the session and user
 *                                keyrings, then exit 0
 *   plain                        exit 0 (the next cell's control)
 *   escape CGROUP SECS           fork a child that writes "0" (itself) to
 *                                CGROUP's cgroup.procs ("-": stays), starts
 *                                a session of its own and lives SECS
 *                                seconds; the parent exits 0 at once
 * Every line it prints starts with "ha71 " (review-guest.sh greps them). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define OUT(...) (printf("ha71 " __VA_ARGS__), fflush(stdout))

static void agent_log_line(const char *call, const char *dest, long result, int err)
{
	const char *p = getenv("EGRESS_AGENT_LOG");
	FILE *f = p ? fopen(p, "a") : NULL;

	if (!f)
		return;
	fprintf(f, "{\"call\":\"%s\",\"dest\":\"%s\",\"result\":%ld,\"errno\":%s%s%s}\n", call,
		dest, result, err ? "\"" : "", err ? strerror(err) : "null", err ? "\"" : "");
	fclose(f);
}

static int addr_of(const char *a, const char *port, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((unsigned short)atoi(port));
	return inet_pton(AF_INET, a, &sin->sin_addr) == 1 ? 0 : -1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int steal(const char *a, const char *port, double secs, int send_too)
{
	struct sockaddr_in sin;
	int one = 1, fd = socket(AF_INET, SOCK_DGRAM, 0), got = 0;
	char buf[2048], dest[64];

	if (fd < 0 || addr_of(a, port, &sin) < 0)
		return OUT("steal: socket: %s\n", strerror(errno)), 2;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		/* Held: the sends (if any) still go, and reach the sink. */
		OUT("steal: bind %s:%s: %s (held)\n", a, port, strerror(errno));
		close(fd);
		fd = -1;
	} else {
		OUT("steal: bound %s:%s beside the sink\n", a, port);
	}
	{
		const char *log = getenv("EGRESS_AGENT_LOG");
		char mark[512];
		const char *slash = log ? strrchr(log, '/') : NULL;

		if (slash) {
			snprintf(mark, sizeof(mark), "%.*s/ha71-bound", (int)(slash - log), log);
			close(open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
		}
	}
	snprintf(dest, sizeof(dest), "%s:%s", a, port);
	if (send_too) {
		int s = socket(AF_INET, SOCK_DGRAM, 0);

		for (int i = 0; i < 3; i++) {
			long r = sendto(s, "ha71", 4, 0, (struct sockaddr *)&sin, sizeof(sin));

			agent_log_line("sendto", dest, r, r < 0 ? errno : 0);
			OUT("steal: sendto %s: %ld %s\n", dest, r, r < 0 ? strerror(errno) : "");
		}
		close(s);
	}
	for (double end = now() + secs; now() < end;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};

		/* Without a socket (fd -1) poll only waits. */
		if (poll(&p, 1, 100) > 0 && recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
			got++;
	}
	OUT("steal: %d datagram(s) to %s arrived at the agent, not the sink\n", got, dest);
	return 0;
}

static int udpsend(const char *a, const char *port, const char *file, int n)
{
	struct sockaddr_in sin;
	int fd = socket(AF_INET, SOCK_DGRAM, 0), ok = 0;

	if (fd < 0 || addr_of(a, port, &sin) < 0)
		return 2;
	for (int i = 0; i < 400 && access(file, F_OK) != 0; i++)
		usleep(100000);
	for (int i = 0; i < n; i++) {
		if (sendto(fd, "leak", 4, 0, (struct sockaddr *)&sin, sizeof(sin)) == 4)
			ok++;
		usleep(100000);
	}
	OUT("udpsend: %d of %d sent to %s:%s\n", ok, n, a, port);
	pause();
	return 0;
}

static int key(void)
{
	/* KEY_SPEC_SESSION_KEYRING -3, KEY_SPEC_USER_KEYRING -4 */
	long a = syscall(SYS_add_key, "user", "ha71-session", "x", 1, -3);
	int ea = errno;
	long b = syscall(SYS_add_key, "user", "ha71-user", "y", 1, -4);
	int eb = errno;

	OUT("key: session %ld %s, user %ld %s\n", a, a < 0 ? strerror(ea) : "", b,
	    b < 0 ? strerror(eb) : "");
	return 0;
}

static int escape(const char *cg, int secs)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p) != 0 || (pid = fork()) < 0)
		return 2;
	if (pid == 0) {
		char path[512];
		int fd, w = 0, e = 0;

		close(p[0]);
		setsid();
		if (strcmp(cg, "-") != 0) {
			snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
			fd = open(path, O_WRONLY | O_CLOEXEC);
			w = fd < 0 ? -1 : (int)write(fd, "0", 1);
			e = errno;
			OUT("escape: child %d to %s: %s\n", (int)getpid(), path,
			    w == 1 ? "moved" : strerror(e));
		}
		write(p[1], "x", 1);
		close(p[1]);
		sleep((unsigned)secs);
		OUT("escape: child %d still alive after %d s\n", (int)getpid(), secs);
		_exit(0);
	}
	close(p[1]);
	(void)!read(p[0], &c, 1);
	OUT("escape: parent exits, child %d left behind\n", (int)pid);
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "steal"))
		return steal(argv[2], argv[3], atof(argv[4]), argc == 6);
	if (argc == 6 && !strcmp(argv[1], "udpsend"))
		return udpsend(argv[2], argv[3], argv[4], atoi(argv[5]));
	if (argc == 2 && !strcmp(argv[1], "key"))
		return key();
	if (argc == 4 && !strcmp(argv[1], "escape"))
		return escape(argv[2], atoi(argv[3]));
	if (argc == 2 && !strcmp(argv[1], "plain"))
		return OUT("plain\n"), 0;
	fprintf(stderr, "usage: see the source\n");
	return 2;
}
