/* udp-sendto: sends one datagram (PAYLOAD, default "ping") to each DEST.
 * With --held, before that datagram three sends that leave nothing on the
 * wire, each on a socket of its own that is then closed: MSG_PROBE (the
 * kernel looks up the route and sends nothing), MSG_MORE with no later
 * send (the bytes wait for the rest of a datagram that never comes, and go
 * with the socket), and UDP_CORK set and never cleared (likewise). Each
 * returns its length: a report that counts them as deliveries waits for
 * arrivals that never come. */
#include "agentlib.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <string.h>
#include <unistd.h>

#ifndef MSG_PROBE
#define MSG_PROBE 0x10
#endif

static void held_sends(const struct agent_dest *d, const char *payload)
{
	static const struct {
		const char *what;
		int flags, cork;
	} kinds[] = {{",\"held\":\"probe\"", MSG_PROBE, 0},
		     {",\"held\":\"more\"", MSG_MORE, 0},
		     {",\"held\":\"cork\"", 0, 1}};

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		int fd = socket(d->family, SOCK_DGRAM | SOCK_CLOEXEC, 0), one = 1;
		long r;

		if (fd < 0) {
			agent_log("socket", d->text, fd, errno, kinds[k].what);
			continue;
		}
		if (kinds[k].cork &&
		    setsockopt(fd, IPPROTO_UDP, UDP_CORK, &one, sizeof(one)) != 0) {
			agent_log("setsockopt", d->text, -1, errno, kinds[k].what);
			close(fd);
			continue;
		}
		r = sendto(fd, payload, strlen(payload), kinds[k].flags,
			   (const struct sockaddr *)&d->ss, d->len);
		agent_log("sendto", d->text, r, errno, kinds[k].what);
		close(fd);
	}
}

int main(int argc, char **argv)
{
	const char *payload = "ping";
	static struct agent_dest dests[64];
	int i = 1, n, k, held = 0;

	agent_init("udp-sendto");
	if (i < argc && strcmp(argv[i], "--held") == 0) {
		held = 1;
		i++;
	}
	if (i + 1 < argc && strcmp(argv[i], "--payload") == 0) {
		payload = argv[i + 1];
		i += 2;
	}
	n = argc - i;
	if (n < 1 || n > 64)
		return agent_usage("[--held] [--payload P] DEST... (1..64)");
	/* Parse everything first: bad arguments must not leave half a run. */
	for (k = 0; k < n; k++)
		if (agent_parse_dest(argv[i + k], &dests[k]) < 0)
			return agent_usage("[--held] [--payload P] DEST... (1..64)");
	for (k = 0; k < n; k++) {
		const struct agent_dest d = dests[k];
		long r;
		int fd;

		if (held)
			held_sends(&d, payload);
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
