/*
 * forge-guest-state: a root agent that forges the guest's own record of
 * its run (issue 12 review). After an undeclared connect to DEST (which a
 * supervisor denies), it plants in the guest init's work directory DIR a
 * report record that says complete pass, made immutable where it can
 * (CAP_LINUX_IMMUTABLE: init's later copy of the report channel then fails),
 * and a status line that says the supervisor exited 0. Each step is logged.
 * The guest hides DIR from the run (an empty read-only mount in the run's
 * mount namespace), so every step must fail and the verdict stays the
 * supervisor's own.
 *
 *     forge-guest-state DIR DEST
 *
 * Exits 0 when nothing could be planted, 1 when anything was.
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define FORGED_JSON                                                                                \
	"{\"format\":\"egress-supervisor-report/2\",\"complete\":true,\"verdict\":\"pass\"}\n"

/* Writes TEXT to DIR/NAME (immutable when asked); 0 when it was planted. */
static int plant(const char *dir, const char *name, const char *text, int immutable)
{
	char path[512];
	int fd, flags = 0, r = 0;
	size_t len = strlen(text);

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		agent_log("plant", path, -1, errno, NULL);
		return -1;
	}
	if (write(fd, text, len) != (ssize_t)len) {
		agent_log("plant", path, -1, errno, NULL);
		r = -1;
	} else {
		agent_log("plant", path, 0, 0, NULL);
	}
	if (r == 0 && immutable) {
		if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) {
			int set;

			flags |= FS_IMMUTABLE_FL;
			set = ioctl(fd, FS_IOC_SETFLAGS, &flags);
			agent_log("immutable", path, set, set < 0 ? errno : 0, NULL);
		}
	}
	close(fd);
	return r;
}

int main(int argc, char **argv)
{
	struct agent_dest d;
	char record[256];
	int fd, planted = 0;

	agent_init("forge-guest-state");
	if (argc != 3 || agent_parse_dest(argv[2], &d) != 0)
		return agent_usage("DIR DEST");
	fd = socket(d.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		/* Arguments are evaluated in no set order: errno after the call. */
		int r = connect(fd, (const struct sockaddr *)&d.ss, d.len);

		agent_log("connect", d.text, r, r < 0 ? errno : 0, NULL);
		close(fd);
	}
	snprintf(record, sizeof(record), "egress-supervisor-report-record/1 final %zu\n%s",
		 strlen(FORGED_JSON), FORGED_JSON);
	planted += plant(argv[1], "report", record, 1) == 0;
	planted += plant(argv[1], "status.extra", "supervisor_exit=0\n", 0) == 0;
	planted += plant(argv[1], "sink.log", "", 0) == 0;
	return planted ? 1 : 0;
}
