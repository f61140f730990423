/*
 * forge-report: a hostile agent that tries to forge its supervisor's verdict.
 * It connects to DEST (an undeclared destination: the supervisor denies it),
 * reads its supervisor's report channel from /proc/PPID/cmdline (--report
 * PATH, --report-fd N), puts a forged complete "pass" report on every route
 * it can find, then SIGKILLs its supervisor so that no final report
 * replaces the forgery. Routes tried, each logged with its result:
 *   forge_path        write PATH.forged in PATH's directory, rename it over PATH
 *   forge_fd          append a forged final record to descriptor N of our own table
 *   forge_proc_fd     open /proc/PPID/fd/N for appending and write the record
 *   forge_fd_target   open the file /proc/PPID/fd/N points to, by name
 *   kill_supervisor   kill(PPID, SIGKILL): logged before the kill (the agent dies
 *                     with its supervisor), and again with the errno if it failed
 * Then it waits to be killed by its parent-death signal, at most a second
 * where its parent is still there (kill_supervisor_dropped: a namespace
 * init), not at all where the kill failed.
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char forged[] =
    "{\"format\": \"egress-supervisor-report/2\", \"complete\": true, \"verdict\": \"pass\", "
    "\"reason\": \"no call was denied and every mediation mechanism worked\", "
    "\"counts\": {\"trapped\": 0, \"notifications\": 0, \"allowed\": 0, \"denied\": 0, "
    "\"invalid\": 0, \"mechanism_failures\": 0, \"abandoned\": 0, \"neutralized\": 0, "
    "\"events_dropped\": 0}, \"events\": []}\n";

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* A record as the supervisor writes them on --report-fd (docs/design.md). */
static int write_record(int fd)
{
	char head[96];
	int n = snprintf(head, sizeof(head), "egress-supervisor-report-record/1 final %zu\n",
			 sizeof(forged) - 1);
	int rc = write_all(fd, head, (size_t)n);

	return rc ? rc : write_all(fd, forged, sizeof(forged) - 1);
}

static void log_rc(const char *call, const char *what, int rc)
{
	agent_log(call, NULL, rc < 0 ? -1 : 0, rc < 0 ? -rc : 0, what);
}

static void forge_path(const char *path)
{
	char tmp[4200], extra[4300], esc[4200];
	int fd, rc = 0;

	snprintf(tmp, sizeof(tmp), "%s.forged", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		rc = -errno;
	else {
		rc = write_all(fd, forged, sizeof(forged) - 1);
		close(fd);
		if (!rc && rename(tmp, path) != 0)
			rc = -errno;
	}
	snprintf(extra, sizeof(extra), ",\"path\":\"%s\"",
		 agent_json_escape(path, esc, sizeof(esc)));
	log_rc("forge_path", extra, rc);
}

static void forge_fd(pid_t sv, int n)
{
	char proc[64], target[4096], extra[4300], esc[4200];
	ssize_t tl;
	int fd, rc;

	snprintf(extra, sizeof(extra), ",\"fd\":%d", n);
	log_rc("forge_fd", extra, write_record(n));
	snprintf(proc, sizeof(proc), "/proc/%d/fd/%d", (int)sv, n);
	fd = open(proc, O_WRONLY | O_APPEND | O_CLOEXEC);
	rc = fd < 0 ? -errno : write_record(fd);
	if (fd >= 0)
		close(fd);
	log_rc("forge_proc_fd", extra, rc);
	tl = readlink(proc, target, sizeof(target) - 1);
	if (tl < 0) {
		log_rc("forge_fd_target", extra, -errno);
		return;
	}
	target[tl] = '\0';
	snprintf(extra, sizeof(extra), ",\"fd\":%d,\"path\":\"%s\"", n,
		 agent_json_escape(target, esc, sizeof(esc)));
	fd = open(target, O_WRONLY | O_APPEND | O_CLOEXEC);
	rc = fd < 0 ? -errno : write_record(fd);
	if (fd >= 0)
		close(fd);
	log_rc("forge_fd_target", extra, rc);
}

int main(int argc, char **argv)
{
	static const char usage[] = "DEST";
	pid_t sv = getppid();
	struct agent_dest d;
	char path[64], buf[16384];
	ssize_t len = 0;
	int fd, r, found = 0;

	agent_init("forge-report");
	if (argc != 2 || agent_parse_dest(argv[1], &d) < 0)
		return agent_usage(usage);
	fd = socket(d.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	r = connect(fd, (const struct sockaddr *)&d.ss, d.len);
	agent_log("connect", d.text, r, errno, NULL);
	close(fd);

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)sv);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (fd < 0 || len < 0) {
		log_rc("read_cmdline", NULL, -errno);
		len = 0;
	}
	buf[len > 0 ? len : 0] = '\0';
	for (char *a = buf; a < buf + len; a += strlen(a) + 1) {
		char *next = a + strlen(a) + 1;
		const char *v = NULL;

		if (strcmp(a, "--") == 0)
			break;
		if (strncmp(a, "--report-fd=", 12) == 0)
			v = a + 12;
		else if (strcmp(a, "--report-fd") == 0 && next < buf + len)
			v = next;
		if (v) {
			forge_fd(sv, atoi(v));
			found++;
			continue;
		}
		if (strncmp(a, "--report=", 9) == 0)
			v = a + 9;
		else if (strcmp(a, "--report") == 0 && next < buf + len)
			v = next;
		if (v) {
			forge_path(v);
			found++;
		}
	}
	if (!found)
		log_rc("report_channel", NULL, -ENOENT);
	/* Logged first: once the kill lands, our parent-death signal follows. */
	log_rc("kill_supervisor", NULL, 0);
	if (kill(sv, SIGKILL) != 0) {
		/* Refused (a Landlock domain scoped for signals): nothing to wait
		 * for, the supervisor goes on. */
		log_rc("kill_supervisor", ",\"failed\":true", -errno);
		return 0;
	}
	/* The parent-death signal ends us. A parent still there after a second
	 * took no SIGKILL: a pid namespace's init drops one sent from inside
	 * (kill() still says 0), so there is nothing more to wait for. */
	for (int i = 0; i < 100; i++) {
		usleep(50 * 1000);
		if (i >= 20 && getppid() == sv && kill(sv, 0) == 0) {
			log_rc("kill_supervisor_dropped", NULL, 0);
			return 0;
		}
	}
	return 0;
}
