/*
 * The caller's descriptors 0-2 (stdfds.h). write() and recvmsg() are never
 * trapped (they name no destination), so what the agent finds on 0-2 must
 * be decided before it runs: a socket that leads outside the allow-list, or
 * an AF_UNIX socket whose queue already holds something the caller put
 * there (an inet socket passed with SCM_RIGHTS, found by the hostile
 * re-run), would be used unmediated.
 */
#include "stdfds.h"

#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "device.h"
#include "filtertab.h"
#include "judge.h"
#include "report.h"
#include "sockaddr.h"

#ifndef SIOCINQ
#define SIOCINQ 0x541B /* FIONREAD */
#endif

/* Whether the bytes queued on a unix stream carry descriptors. A peek with
 * a control buffer runs from the peek offset across the queued skbs and
 * stops after the first one that carries descriptors (they come back as
 * SCM_RIGHTS, installed in our table: closed at once), or where the
 * writer's credentials change on a socket that passes them; SO_PEEK_OFF,
 * set to 0 and put back as it was, steps past such stops. A part of the
 * queue no peek reaches (an unread MSG_OOB byte, which a peek skips) is
 * taken as carrying some. Returns 1, 0 or -errno. Found by the third
 * review: a harness writing a prompt into a socketpair stdin (Node.js's
 * stdio pipes) was refused for its bytes alone. */
static int stream_carries_rights(int fd, int inq)
{
	int off = -1, zero = 0, rc = 0;
	socklen_t ol = sizeof(off);
	long seen = 0;

	if (getsockopt(fd, SOL_SOCKET, SO_PEEK_OFF, &off, &ol) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_PEEK_OFF, &zero, sizeof(zero)) != 0)
		return -errno;
	while (rc == 0 && seen < inq) {
		char data[4096], cbuf[CMSG_SPACE(sizeof(int) * 16)];
		struct iovec iov = {.iov_base = data, .iov_len = sizeof(data)};
		struct msghdr m = {.msg_iov = &iov,
				   .msg_iovlen = 1,
				   .msg_control = cbuf,
				   .msg_controllen = sizeof(cbuf)};
		ssize_t n = recvmsg(fd, &m, MSG_PEEK | MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

		if (n <= 0) {
			/* Bytes SIOCINQ counted that no peek returns. */
			rc = n == 0 || errno == EAGAIN ? 1 : -errno;
			break;
		}
		if (m.msg_flags & MSG_CTRUNC)
			rc = 1;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
				continue;
			for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
				int got;

				memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
				close(got);
			}
			rc = 1;
		}
		seen += n;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off)) != 0 && rc == 0)
		rc = -errno;
	return rc;
}

/* What an AF_UNIX socket on fd holds that the agent could receive now, or
 * NULL when nothing. Descriptors travel only with queued data: a stream
 * skb carries at least one byte (SIOCINQ sums them all, whatever a
 * SO_PEEK_OFF says), a datagram or seqpacket message may be empty (SIOCINQ
 * says 0 for it: poll's POLLIN is what shows it), and a pending connection
 * is a socket whose own queue may hold descriptors. A socket whose peer
 * shut down is readable too; for a stream that is told apart by SIOCINQ,
 * for a message socket it is refused along with a queued one (the caller
 * can give a pipe). */
static const char *unix_queue_holds(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int type = 0, listening = 0, inq = 0;
	socklen_t l = sizeof(type), ll = sizeof(listening);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) != 0)
		return "a socket whose type cannot be read";
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &ll) != 0)
		listening = 0;
	if (poll(&p, 1, 0) < 0)
		return "a socket that cannot be polled";
	if (listening)
		return (p.revents & POLLIN) ? "a listening socket with a connection pending" : NULL;
	if (type == SOCK_STREAM) {
		int r;

		if (ioctl(fd, SIOCINQ, &inq) != 0)
			return "a stream socket whose queue cannot be read";
		if (inq <= 0)
			return NULL;
		r = stream_carries_rights(fd, inq);
		if (r < 0)
			return "a stream socket with bytes queued that cannot be peeked";
		return r ? "a stream socket with descriptors queued" : NULL;
	}
	return (p.revents & POLLIN) ? "a message socket with a message queued (or a peer gone)"
				    : NULL;
}

/* A connection made through a source route that was cleared afterwards
 * still sends to the route's first hop: tcp_v4_connect put that hop in the
 * flow its cached route was made for (inet->cork.fl), and __ip_queue_xmit
 * copies the flow's destination into every segment while that route stays
 * cached. Changing IP_TOS drops the cached route (sk_dst_reset), so the
 * next segment is routed to the peer again (review h-attack10); the value
 * is set to another and back, and so is the priority it drags along.
 * Returns 0 or -errno. */
static int reroute(int fd)
{
	int tos = 0, other, prio = 0;
	socklen_t l = sizeof(tos), pl = sizeof(prio);

#ifdef SV_MUTANT_STDIO_ROUTE_KEPT
	/* MUTANT stdio-route-kept: the cached route is trusted. */
	(void)fd;
	(void)tos;
	(void)other;
	(void)prio;
	(void)l;
	(void)pl;
	return 0;
#endif
	/* Each IP_TOS write also sets SO_PRIORITY from the TOS
	 * (rt_tos2priority): the caller's priority is put back afterwards
	 * (review h-attack11). Above 6 that needs CAP_NET_RAW or CAP_NET_ADMIN,
	 * so it is written once as it is before anything changes: a supervisor
	 * that could not put it back leaves the socket untouched and refuses. */
	if (getsockopt(fd, IPPROTO_IP, IP_TOS, &tos, &l) != 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, &pl) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio)) != 0)
		return -errno;
	other = tos ^ 0x04;
	if (setsockopt(fd, IPPROTO_IP, IP_TOS, &other, sizeof(other)) != 0 ||
	    setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)) != 0)
		return -errno;
#ifndef SV_MUTANT_STDIO_PRIORITY_LOST
	if (setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio)) != 0)
		return -errno;
#endif
	return 0;
}

/* What a connected inet socket of the caller's may hold besides its peer.
 * The agent's own sockets get no source route (the filter traps the
 * options), but one the caller prepared can carry one, and a datagram or
 * raw socket holds per-send state no getsockopt shows whole: an IPv6 UDP
 * socket's corked datagram keeps the destination it was started with across
 * a later connect, flow labels the caller registered carry routing headers,
 * IP_HDRINCL writes the destination into the packet (review h-attack9: a
 * write() on such a stdin left for an undeclared address, verdict pass).
 * A socket bound to a device sends on that link even where no route leads
 * there (review h-attack12: the kernel then takes the address for on-link
 * and whoever answers ARP for it there gets the data). Only TCP without IP
 * options, an IPv6 routing header or a device is kept, and its route is
 * made again. Returns NULL, or why the socket is refused. */
static const char *inet_state_refused(int fd, int dom)
{
	unsigned char opt[64];
	int type = 0, proto = 0;
	socklen_t l = sizeof(type);

#ifdef SV_MUTANT_STDIO_STATE_UNCHECKED
	/* MUTANT stdio-state-unchecked: a connected peer is all that is asked. */
	(void)fd;
	(void)dom;
	(void)opt;
	(void)type;
	(void)proto;
	(void)l;
	return NULL;
#endif
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) != 0 || type != SOCK_STREAM)
		return "not a stream socket: a datagram or raw socket carries per-send state (a "
		       "corked datagram's destination, flow labels, IP_HDRINCL headers) that "
		       "no getsockopt shows whole";
	l = sizeof(proto);
	if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &l) != 0 || proto != IPPROTO_TCP)
		return "a stream protocol other than TCP (MPTCP, SCTP), which can open paths to "
		       "other addresses";
	l = sizeof(opt);
	if (getsockopt(fd, IPPROTO_IP, IP_OPTIONS, opt, &l) != 0 || l != 0)
		return "IP options set (a source route sends through other addresses)";
	l = sizeof(opt);
	if (dom == AF_INET6 && (getsockopt(fd, IPPROTO_IPV6, IPV6_RTHDR, opt, &l) != 0 || l != 0))
		return "an IPv6 routing header set (it sends through other addresses)";
	if (sv_device_bound_ifindex(fd) != 0)
		return "bound to a device (it sends on that link whatever the routes say)";
#ifndef SV_MUTANT_STDIO_DONTROUTE_KEPT
	/* MUTANT stdio-dontroute-kept: SO_DONTROUTE is not read. */
	int dontroute = 0;

	l = sizeof(dontroute);
	if (getsockopt(fd, SOL_SOCKET, SO_DONTROUTE, &dontroute, &l) != 0 || dontroute)
		return "SO_DONTROUTE set (it sends by a route without a gateway where one covers "
		       "the address, on whatever link: review h-attack35)";
#endif
	return reroute(fd) ? "its route could not be made again (IP_TOS or SO_PRIORITY refused: a "
			     "priority above 6 needs CAP_NET_ADMIN to be put back)"
			   : NULL;
}

/* A terminal, also one whose line hung up: musl's isatty asks TIOCGWINSZ,
 * which a hung-up terminal answers EIO (review h-attack40's
 * ha40-falsered.sh), so the device's class is asked too: sysfs's tty
 * class, or a Unix98 pty slave (majors 136-143, which sysfs does not list).
 * Never a pty master (TIOCGPTN answers only there): what the agent writes
 * to it is input to whatever reads the slave, the caller's next shell
 * (review h-attack41's ha41-ptmaster.sh). */
static int is_terminal(int fd, dev_t rdev)
{
	char path[64], link[256];
	const char *last;
	unsigned ptn;
	ssize_t n;

#ifndef SV_MUTANT_PTY_MASTER_KEPT
	/* MUTANT pty-master-kept: a pty master is a terminal like any. */
	if (ioctl(fd, TIOCGPTN, &ptn) == 0)
		return 0;
#else
	(void)ptn;
#endif
	if (isatty(fd) || (major(rdev) >= 136 && major(rdev) <= 143))
		return 1;
	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/subsystem", major(rdev), minor(rdev));
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	last = strrchr(link, '/');
	return last && strcmp(last + 1, "tty") == 0;
}

/* null, zero, full, random, urandom. Not kmsg (1:11): a record the agent
 * writes at level <0> is printed on every console, a provider's serial log
 * or netconsole's UDP destination (review h-attack41's ha41-kmsg.sh). */
static int harmless_mem(dev_t rdev)
{
	return major(rdev) == 1 && (minor(rdev) == 3 || minor(rdev) == 5 || minor(rdev) == 7 ||
				    minor(rdev) == 8 || minor(rdev) == 9);
}

/* Whether the character device rdev open on fd is one a caller may hand
 * any agent on 0-2: a terminal (also a hung-up one; never a pty master),
 * null, zero, full, random or urandom. Any other (a TUN or TAP device, a
 * macvtap, /dev/kmsg, which reaches the consoles) may be a way off the
 * host: sv_stdfds_check refuses it. */
static int chr_allowed(int fd, dev_t rdev)
{
#ifdef SV_MUTANT_HUNG_UP_TERMINAL_REFUSED
	/* MUTANT hung-up-terminal-refused: isatty alone decides, as in
	 * fd5af76 (review h-attack40's false red). */
	(void)is_terminal;
	return isatty(fd) || harmless_mem(rdev);
#endif
	/* ttyprintk is of the tty class but writes into the kernel's log,
	 * as kmsg does (review h-attack42). */
	if (major(rdev) == 5 && minor(rdev) == 3)
		return 0;
	return harmless_mem(rdev) || is_terminal(fd, rdev);
}

int sv_stdfds_check(const struct sv_policy *pol, char *why, size_t len)
{
#ifdef SV_MUTANT_STDIO_SOCKET_OPEN
	/* MUTANT stdio-socket-open: whatever socket is on 0-2 reaches the agent. */
	(void)pol;
	(void)why;
	(void)len;
	return 0;
#endif
	for (int fd = 0; fd < 3; fd++) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss), dl = sizeof(int);
		struct sv_dest d;
		struct stat st;
		const char *ok, *deny;
		char text[SV_DEST_TEXT];
		int dom = 0;

		if (fstat(fd, &st) != 0)
			continue;
#ifndef SV_MUTANT_STDIO_CHARDEV_OPEN
		/* MUTANT stdio-chardev-open: no agent's devices are looked at,
		 * as before review h-attack38 for one that is not root (this
		 * check is also a root agent's since then: rootfs.c's twin of
		 * it went). */
		if (S_ISCHR(st.st_mode) && !chr_allowed(fd, st.st_rdev)) {
			snprintf(
			    why, len,
			    "descriptor %d is a character device other than a terminal, null, "
			    "zero, full, random or urandom (a TUN or TAP device, a pty master, "
			    "/dev/kmsg: what the agent writes there leaves unmediated); "
			    "give it a pipe, a terminal or /dev/null",
			    fd);
			return -EACCES;
		}
#else
		(void)chr_allowed;
#endif
		if (!S_ISSOCK(st.st_mode))
			continue;
		if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &dl) == 0 && dom == AF_NETLINK)
			continue;
		if (dom == AF_UNIX) {
			const char *held;

			/* From 6.16 the socket can refuse descriptors outright:
			 * a sender then gets EPERM, and the queue checked below
			 * cannot gain one after the check (the filter keeps the
			 * agent from turning it back on). Older kernels answer
			 * ENOPROTOOPT: what the peer sends during the run is
			 * then the user's relay (docs/design.md). */
#ifndef SV_MUTANT_PASSRIGHTS_OPEN
			{
				int zero = 0;

				(void)setsockopt(fd, SOL_SOCKET, SV_SO_PASSRIGHTS, &zero,
						 sizeof(zero));
			}
#endif
			held = unix_queue_holds(fd);

#ifdef SV_MUTANT_STDIO_UNIX_QUEUE_OPEN
			/* MUTANT stdio-unix-queue-open: an AF_UNIX socket on 0-2 is
			 * local IPC whatever its queue holds. */
			held = NULL;
#endif
			if (!held)
				continue;
			snprintf(
			    why, len,
			    "descriptor %d is an AF_UNIX socket the caller left something in (%s): "
			    "descriptors queued there (SCM_RIGHTS) would reach the agent "
			    "unmediated; give it an empty one, a pipe or a file",
			    fd, held);
			return -EACCES;
		}
		if (getpeername(fd, (struct sockaddr *)&ss, &sl) != 0) {
			int e = errno;

			snprintf(
			    why, len,
			    "descriptor %d is a socket of family %d with no peer (%s): the agent "
			    "would use it unmediated",
			    fd, dom, strerror(e));
			return -EACCES;
		}
		sv_sockaddr_decode(&ss, sl, 0, &d);
		deny = sv_judge_name(pol, &d, 1, &ok);
		if (!deny && (dom == AF_INET || dom == AF_INET6)) {
			const char *state = inet_state_refused(fd, dom);

			if (state) {
				snprintf(
				    why, len,
				    "descriptor %d is an inet socket the agent would use "
				    "unmediated, and only a TCP socket with no source route is "
				    "given to it: %s; give it a TCP socket, a pipe or a file",
				    fd, state);
				return -EACCES;
			}
		}
		if (!deny)
			continue;
		if (sv_dest_format(&d, &ss, sl, text, sizeof(text)) < 0)
			snprintf(text, sizeof(text), "?");
		snprintf(why, len,
			 "descriptor %d is a socket connected to %s, outside the allow-list (%s): "
			 "the agent would write to it unmediated",
			 fd, text, deny);
		return -EACCES;
	}
	return 0;
}

void sv_stdfds_note_closed(int keep)
{
	const char *listen_fds = getenv("LISTEN_FDS");
	char list[96] = "";
	size_t used = 0;
	int n = 0, shown = 0;
	DIR *d;
	struct dirent *e;

#ifdef SV_MUTANT_CLOSED_SOCKETS_SILENT
	/* MUTANT closed-sockets-silent: nothing is said, as before review
	 * h-realprog3. */
	(void)listen_fds;
	(void)keep;
	return;
#endif
	d = opendir("/proc/self/fd");
	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat st;
		char *end;
		long fd = strtol(e->d_name, &end, 10);

		if (*end || end == e->d_name || fd <= 2 || fd == keep || fd == dirfd(d) ||
		    fstat((int)fd, &st) != 0 || !S_ISSOCK(st.st_mode))
			continue;
		if (used + 16 < sizeof(list)) {
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%ld",
						 n ? ", " : "", fd);
			shown++;
		}
		n++;
	}
	closedir(d);
	if (n)
		fprintf(
		    stderr,
		    "egress-supervisor: warning: the socket%s on descriptor%s %s%s never reach%s "
		    "the agent: every descriptor above 2 is closed before it runs (one made "
		    "before the filter would carry its data unjudged)%s\n",
		    n > 1 ? "s" : "", n > 1 ? "s" : "", list, shown < n ? ", ..." : "",
		    n > 1 ? "" : "es",
		    listen_fds && *listen_fds
			? "; socket activation (LISTEN_FDS) reaches no agent: give it the "
			  "connection on stdio instead (systemd's Accept=yes, inetd mode)"
			: "");
}
