/* udp-sendto: sends one datagram (PAYLOAD, default "ping") to each DEST. */
#include "agentlib.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *payload = "ping";
	static struct agent_dest dests[64];
	int i = 1, n, k;

	agent_init("udp-sendto");
	if (i + 1 < argc && strcmp(argv[i], "--payload") == 0) {
		payload = argv[i + 1];
		i += 2;
	}
	n = argc - i;
	if (n < 1 || n > 64)
		return agent_usage("[--payload P] DEST... (1..64)");
	/* Parse everything first: bad arguments must not leave half a run. */
	for (k = 0; k < n; k++)
		if (agent_parse_dest(argv[i + k], &dests[k]) < 0)
			return agent_usage("[--payload P] DEST... (1..64)");
	for (k = 0; k < n; k++) {
		const struct agent_dest d = dests[k];
		long r;
		int fd;

		fd = socket(d.family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			agent_log("socket", d.text, fd, errno, NULL);
			continue;
		}
		r = sendto(fd, payload, strlen(payload), 0, (const struct sockaddr *)&d.ss, d.len);
		agent_log("sendto", d.text, r, errno, NULL);
		close(fd);
	}
	return 0;
}
