#include "mediate_sock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fault.h"
#include "sockaddr.h"
#include "sockrule.h"

static const char *family_label(uint32_t fam, char *num, size_t len)
{
	struct sv_dest d = {.family = (int)fam};

	/* The report's family names, for a family that has no name to show. */
	return sv_dest_family_name(&d, num, len);
}

void sv_mediate_socket(struct sv_call *c, const __u64 *a)
{
	const char *why, *deny = sv_sockrule_socket(a[0], a[1], a[2], &why);
	char num[12];

	strncpy(c->ev.family, family_label((uint32_t)a[0], num, sizeof(num)),
		sizeof(c->ev.family) - 1);
	if (deny) {
		sv_call_finish(c, SV_DENIED, deny, SV_ACT_ERRNO, sv_call_denial_errno(c), 0);
		return;
	}
	/* CONTINUE is safe here, unlike for connect: nothing is read from the
	 * agent's memory, and the registers cannot change. */
	sv_call_finish(c, SV_ALLOWED, why, SV_ACT_CONTINUE, 0, 0);
}

/* The bound name of the duplicate, decoded into d and noted in the record.
 * Returns 0, or -errno from getsockname. */
/* Whether any net.ipv4.conf.*.route_localnet of our network namespace is
 * set: 1, 0, or -errno when one cannot be read. The agent's sockets live in
 * it: a namespace the agent makes itself has no link out (a veth end in
 * ours needs CAP_NET_ADMIN here). Read at each IPv4 loopback listen, which
 * are few: an administrator may set it at any time. The kernel lets 127/8
 * in where the value is any int but 0 (a plain proc_dointvec, tested for
 * truth by IN_DEV_NET_ROUTE_LOCALNET), and an interface's name may start
 * with '.' (dev_valid_name refuses only "." and ".."): reading '1' alone
 * and skipping dotted names, a link at 2 or -1, or named .veth, let a
 * neighbour in (review h-attack73, ha73-localnet.sh). */
static int localnet_routed(void)
{
	DIR *dir = opendir("/proc/sys/net/ipv4/conf");
	struct dirent *e;
	int routed = 0, err = 0;

	if (!dir)
		return -errno;
	while (!routed && !err && (errno = 0, e = readdir(dir)) != NULL) {
		char path[320], v[24] = "0";
		ssize_t n;
		int fd;

#ifdef SV_MUTANT_LOCALNET_DOT_SKIPPED
		/* MUTANT localnet-dot-skipped: every name starting with '.' is
		 * taken for the directory's own entries, as c8b9460 did. */
		if (e->d_name[0] == '.')
			continue;
#else
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
#endif
		snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/route_localnet",
			 e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		/* An interface gone since the listing answers ENOENT. */
		if (fd < 0) {
			if (errno != ENOENT)
				err = errno;
			continue;
		}
		errno = 0;
		n = read(fd, v, sizeof(v) - 1);
		if (n <= 0)
			err = errno ? errno : EIO;
		else
			v[n] = 0;
		close(fd);
#ifdef SV_MUTANT_LOCALNET_FIRST_BYTE
		/* MUTANT localnet-first-byte: only a value starting with '1' is
		 * set, as c8b9460 read it: 2 and -1 let 127/8 in unseen. */
		routed = v[0] == '1';
#else
		/* "0\n" is the one value that keeps 127/8 out; anything else
		 * the kernel tests as true (an int, maybe negative). */
		routed = n > 0 && strtol(v, NULL, 10) != 0;
#endif
	}
	if (!e && errno && !routed)
		err = errno;
	closedir(dir);
	if (routed)
		return 1;
	/* Seam localnet: the host's switch could not be read. */
	if (!err)
		err = -sv_fault("localnet");
	return err ? -err : 0;
}

static int bound_name(struct sv_call *c, struct sockaddr_storage *ss, socklen_t *len,
		      struct sv_dest *d)
{
	*len = sizeof(*ss);
	memset(ss, 0, sizeof(*ss));
	if (getsockname(c->dup, (struct sockaddr *)ss, len) != 0)
		return -errno;
	if (*len > sizeof(*ss))
		*len = sizeof(*ss);
	sv_call_note_dest(c, (const unsigned char *)ss, *len, d);
	return 0;
}

void sv_mediate_listen(struct sv_call *c, const __u64 *a)
{
	struct sockaddr_storage judged;
	socklen_t jlen;
	struct sv_dest d;
	const char *deny, *why;
	int rc, err, routed;

	/* The decision needs the socket itself: its bound name is in the
	 * kernel, not in the agent's memory. */
	if (sv_call_prepare(c, (int)a[0]))
		return;
	if ((err = bound_name(c, &judged, &jlen, &d)) < 0) {
		sv_call_mech_failure(c, "getsockname", -err);
		return;
	}
	routed = 0;
	if (d.kind == SV_DEST_INET && d.addr.family == AF_INET && c->pol->loopback &&
	    sv_addr_is_loopback(&d.addr) && (routed = localnet_routed()) < 0) {
		/* Whether a neighbour could connect in is unknown: not seen. */
		sv_call_mech_failure(c, "route_localnet", -routed);
		return;
	}
	deny = sv_sockrule_listen(c->pol, &d, routed, &why);
	if (deny) {
		sv_call_finish(c, SV_DENIED, deny, SV_ACT_ERRNO, sv_call_denial_errno(c), 0);
		return;
	}
	/* Test seam only: widen the window between judging and listening so
	 * that a racing thread's rebind lands in it every time. */
	if (sv_fault("listen_window"))
		usleep(300 * 1000);
	rc = listen(c->dup, (int)a[1]);
	err = errno;
#ifndef SV_MUTANT_LISTEN_NAME_UNCHECKED
	/* The bound name can change between the judgement and the listen: a
	 * listening socket bound to a kernel-chosen port gives its port back
	 * when another thread shuts it down (tcp_disconnect), and can then be
	 * bound again, to the wildcard. So the name that listens is read again
	 * after the listen; a socket that listens under any other name is
	 * stopped at once (shutdown ends the listen and drops every handshake
	 * not yet accepted) and the call is a denial with the name it had. */
	if (rc == 0) {
		struct sockaddr_storage now;
		socklen_t nlen;
		int gerr = bound_name(c, &now, &nlen, &d);

		if (gerr < 0 || nlen != jlen || memcmp(&now, &judged, jlen) != 0) {
			if (shutdown(c->dup, SHUT_RD) != 0) {
				sv_call_mech_failure(c, "shutdown", errno);
				return;
			}
			if (gerr < 0) {
				sv_call_mech_failure(c, "getsockname", -gerr);
				return;
			}
			sv_call_finish(c, SV_DENIED, "inbound-rebound", SV_ACT_ERRNO,
				       sv_call_denial_errno(c), 0);
			return;
		}
	}
#endif
	sv_call_answer_performed(c, why, rc, rc < 0 ? err : 0);
}

void sv_mediate_cross_process(struct sv_call *c, const __u64 *a)
{
	(void)a;
	/* No argument makes these harmless to an egress policy: each one
	 * reads, writes or takes over what another process holds, including
	 * its connected sockets; a limit set on another process (prlimit64:
	 * RLIMIT_CPU, RLIMIT_AS, RLIMIT_NOFILE on the supervisor) kills or
	 * blinds it without a signal. */
	sv_call_finish(c, SV_DENIED, "cross-process", SV_ACT_ERRNO, sv_call_denial_errno(c), 0);
}

void sv_mediate_prlimit(struct sv_call *c, const __u64 *a)
{
	/* Both answers read registers, not memory: nothing can change them
	 * after this look. The kernel reads the pid's low 32 bits, and 0 there
	 * is the caller itself (the filter notifies for any other register). */
	if ((uint32_t)a[0] == 0) {
		sv_call_finish(c, SV_ALLOWED, "self", SV_ACT_CONTINUE, 0, 0);
		return;
	}
	/* No new limit: it only reads another process's limits, which
	 * /proc/PID/limits shows anyway (a false red of the first version,
	 * found by the third review). */
	if (a[2] == 0) {
		sv_call_finish(c, SV_ALLOWED, "read-only", SV_ACT_CONTINUE, 0, 0);
		return;
	}
	sv_mediate_cross_process(c, a);
}
