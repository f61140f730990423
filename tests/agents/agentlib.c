/* agentlib's own main is the real one: agentlib.h renames the agents'. */
#define AGENTLIB_OWN_MAIN
#include "agentlib.h"

#include "../../supervisor/errnames.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *agent_name = "agent";
static int log_fd = 2;
static int initialized;
/* The variable that marks the run's first agent process (agentlib.h). */
#define TOP_ENV "EGRESS_AGENT_TOP"

void agent_init(const char *name)
{
	const char *path = getenv("EGRESS_AGENT_LOG");
	char pid[24];

	agent_name = name;
	initialized = 1;
	if (!getenv(TOP_ENV)) {
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		setenv(TOP_ENV, pid, 1);
	}
	if (path && *path) {
		int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

		/* Falling back to stderr keeps the attempts visible somewhere. */
		if (fd >= 0)
			log_fd = fd;
		else
			fprintf(stderr, "%s: cannot open EGRESS_AGENT_LOG %s: %s\n", name, path,
				agent_errno_name(errno));
	}
}

int agent_exec_caller(char **argv)
{
	const char *top = getenv(TOP_ENV);
	char pid[24];

	/* Only our own mark: a caller started by another agent keeps its. */
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (top && strcmp(top, pid) == 0)
		unsetenv(TOP_ENV);
	execv(argv[0], argv);
	agent_log("execv", argv[0], -1, errno, NULL);
	return 127;
}

/* musl has no strerrorname_np: the supervisor's names (supervisor/
 * errnames.c), so that an agent's log and the report spell an errno alike
 * (the oracle compares them). */
const char *agent_errno_name(int err)
{
	static __thread char buf[16];
	const char *n = sv_errno_name(err);

	if (n)
		return n;
	snprintf(buf, sizeof(buf), "%d", err);
	return buf;
}

char *agent_json_escape(const char *s, char *buf, size_t size)
{
	size_t o = 0;

	for (; *s && o + 7 < size; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)c;
		} else if (c < 0x20) {
			o += (size_t)snprintf(buf + o, size - o, "\\u%04x", c);
		} else {
			buf[o++] = (char)c;
		}
	}
	buf[o] = '\0';
	return buf;
}

void agent_log(const char *call, const char *dest, long result, int err, const char *extra)
{
	char line[4096], destq[600], errq[32];
	int n;

	/* Save errno for the caller: logging must not change what it reports next. */
	int saved = errno;

	if (dest) {
		char esc[512];

		snprintf(destq, sizeof(destq), "\"%s\"", agent_json_escape(dest, esc, sizeof(esc)));
	} else {
		strcpy(destq, "null");
	}
	/* err 0 with a negative result: no errno to name (a signal, say). */
	if (result < 0 && err != 0)
		snprintf(errq, sizeof(errq), "\"%s\"", agent_errno_name(err));
	else
		strcpy(errq, "null");
	n = snprintf(line, sizeof(line),
		     "{\"agent\":\"%s\",\"pid\":%d,\"call\":\"%s\",\"dest\":%s,\"result\":%ld,"
		     "\"errno\":%s%s}\n",
		     agent_name, (int)getpid(), call, destq, result, errq, extra ? extra : "");
	if (n >= (int)sizeof(line)) {
		/* Never write a torn line: a truncated object would not parse. */
		n = snprintf(line, sizeof(line),
			     "{\"agent\":\"%s\",\"pid\":%d,\"call\":\"%s\",\"dest\":null,"
			     "\"result\":%ld,\"errno\":%s,\"truncated\":true}\n",
			     agent_name, (int)getpid(), call, result, errq);
	}
	/* One write() per line: O_APPEND makes it atomic against other writers. */
	if (write(log_fd, line, (size_t)n) < 0) {
		/* Nowhere left to report to; the missing line is the report. */
	}
	errno = saved;
}

int agent_parse_dest(const char *s, struct agent_dest *d)
{
	char host[64];
	const char *colon;
	size_t hlen;
	long port;
	char *end;

	memset(d, 0, sizeof(*d));
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':')
			return -EINVAL;
		hlen = (size_t)(close - s - 1);
		if (hlen == 0 || hlen >= sizeof(host))
			return -EINVAL;
		memcpy(host, s + 1, hlen);
		host[hlen] = '\0';
		colon = close + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return -EINVAL;
		hlen = (size_t)(colon - s);
		if (hlen == 0 || hlen >= sizeof(host))
			return -EINVAL;
		memcpy(host, s, hlen);
		host[hlen] = '\0';
	}
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (colon[1] == '\0' || *end != '\0' || errno || port < 0 || port > 65535)
		return -EINVAL;

	if (s[0] == '[') {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&d->ss;

		if (inet_pton(AF_INET6, host, &sin6->sin6_addr) != 1)
			return -EINVAL;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((unsigned short)port);
		d->len = sizeof(*sin6);
		d->family = AF_INET6;
	} else {
		struct sockaddr_in *sin = (struct sockaddr_in *)&d->ss;

		if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
			return -EINVAL;
		sin->sin_family = AF_INET;
		sin->sin_port = htons((unsigned short)port);
		d->len = sizeof(*sin);
		d->family = AF_INET;
	}
	snprintf(d->text, sizeof(d->text), "%s", s);
	return 0;
}

int agent_usage(const char *usage)
{
	fprintf(stderr, "usage: %s %s\n", agent_name, usage);
	return 2;
}

double agent_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

long agent_parse_count(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < 0)
		return -1;
	return v;
}

int agent_install_self(const char *path, const char *dest_file, const char *dest)
{
	char buf[65536];
	int in, out, err = 0;
	ssize_t n;
	FILE *f;

	mkdir("/sbin", 0755);
	in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (in < 0 || out < 0)
		err = -errno;
	while (err == 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			err = -EIO;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) != 0 && err == 0)
		err = -errno;
	if (err)
		return err;
	f = fopen(dest_file, "w");
	if (!f)
		return -errno;
	fprintf(f, "%s\n", dest);
	return fclose(f) == 0 ? 0 : -EIO;
}

int agent_make_parent(const char *path)
{
	char dir[4096];
	size_t n = strlen(path);

	if (n == 0)
		return -ENOENT;
	if (n >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, n + 1);
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) != 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

void agent_helper_send(const char *dest_file, const char *msg)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(9999)};
	char dest[64] = "127.0.0.2";
	FILE *df = fopen(dest_file, "r");
	int s;

	if (df) {
		if (fscanf(df, "%63s", dest) != 1)
			strcpy(dest, "127.0.0.2");
		fclose(df);
	}
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 || inet_pton(AF_INET, dest, &sin.sin_addr) != 1)
		return;
	sendto(s, msg, strlen(msg), 0, (struct sockaddr *)&sin, sizeof(sin));
	close(s);
}

void agent_hold_ready(void)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(9998)};
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || bind(s, (struct sockaddr *)&sin, sizeof(sin)) != 0)
		perror("agent_hold_ready");
	fflush(stdout);
	for (;;)
		pause();
}

int agent_uffd_page(void **region, long *page)
{
	struct uffdio_api api = {.api = UFFD_API};
	struct uffdio_register reg;
	int uffd;

	*page = sysconf(_SC_PAGESIZE);
	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0 && errno == EPERM) {
		int dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);

		uffd = dev < 0 ? -1 : ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC | O_NONBLOCK);
		if (dev >= 0)
			close(dev);
	}
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) != 0) {
		agent_log("userfaultfd", NULL, -1, errno, NULL);
		return -1;
	}
	*region =
	    mmap(NULL, (size_t)*page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	reg.range.start = (unsigned long)*region;
	reg.range.len = (unsigned long)*page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (*region == MAP_FAILED || ioctl(uffd, UFFDIO_REGISTER, &reg) != 0) {
		agent_log("userfaultfd", NULL, -1, errno, NULL);
		return -1;
	}
	return uffd;
}

int agent_uffd_wait_fault(int uffd, int timeout_ms)
{
	struct pollfd p = {.fd = uffd, .events = POLLIN};
	struct uffd_msg msg;

	return poll(&p, 1, timeout_ms) == 1 &&
	       read(uffd, &msg, sizeof(msg)) == (ssize_t)sizeof(msg) &&
	       msg.event == UFFD_EVENT_PAGEFAULT;
}

void agent_uffd_supply(int uffd, void *region, const void *src, long page)
{
	struct uffdio_copy copy = {
	    .dst = (unsigned long)region, .src = (unsigned long)src, .len = (unsigned long)page};

	ioctl(uffd, UFFDIO_COPY, &copy);
}

void agent_crash_child(void)
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};

		setrlimit(RLIMIT_CORE, &rl);
		prctl(PR_SET_DUMPABLE, 1);
		raise(SIGSEGV);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	agent_log("crash_child", NULL, pid > 0 && WIFSIGNALED(status) ? WTERMSIG(status) : -1,
		  pid < 0 ? errno : 0, NULL);
	sleep(2);
}

int agent_pump(int a, int b, const char *dest, int wait_ms)
{
	char buf[1024];

	for (;;) {
		struct pollfd p[2] = {{.fd = a, .events = POLLIN}, {.fd = b, .events = POLLIN}};
		int n = poll(p, 2, wait_ms);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		for (int i = 0; i < 2; i++) {
			ssize_t got, put;

			if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			got = read(p[i].fd, buf, sizeof(buf));
			if (got <= 0)
				return i == 0 ? 0 : -1;
			put = write(p[1 - i].fd, buf, (size_t)got);
			agent_log(i == 0 ? "forward" : "reply", i == 0 ? dest : NULL, (long)put,
				  errno, NULL);
			if (put != got)
				return i == 0 ? -1 : 0;
		}
	}
}

#ifdef AGENTLIB_WRAP_MAIN
int main(int argc, char **argv)
{
	int rc = agent_main(argc, argv);
	const char *top = getenv(TOP_ENV);
	char extra[32];

	if (initialized) {
		snprintf(extra, sizeof(extra), ",\"top\":%s",
			 top && atoi(top) == (int)getpid() ? "true" : "false");
		agent_log("exit", NULL, rc, 0, extra);
	}
	return rc;
}
#endif
