/* The socket's device and port, read and set on the supervisor's
 * duplicate: the pieces of the output-interface check (call.c) that need
 * no call, only a descriptor and a destination. */
#include "device.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>

#include "bytes.h"

int sv_device_bound_ifindex(int fd)
{
	char name[64];
	int idx = 0;
	socklen_t l = sizeof(idx);

	if (getsockopt(fd, SOL_SOCKET, SO_BINDTOIFINDEX, &idx, &l) == 0 && l == sizeof(idx))
		return idx >= 0 ? idx : -1;
	l = sizeof(name);
	if (getsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, name, &l) == 0)
		return l == 0 || name[0] == '\0' ? 0 : -1;
	/* Without CONFIG_NETDEVICES (a tinyconfig kernel) there is no device
	 * to bind to, and SO_BINDTODEVICE answers ENOPROTOOPT. */
	return errno == ENOPROTOOPT ? 0 : -1;
}

/* __ipv6_addr_needs_scope_id: link-local unicast, interface- and
 * link-local multicast. */
int sv_device_needs_scope(const struct sv_dest *d)
{
	const uint8_t *b = d->addr.bytes;

	if (d->kind != SV_DEST_INET || d->mapped || d->addr.family != AF_INET6)
		return 0;
	return (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) ||
	       (b[0] == 0xff && ((b[1] & 0x0f) == 1 || (b[1] & 0x0f) == 2));
}

/* A portless socket takes its port now, at the address it is bound to (the
 * wildcard if none), as a datagram socket's first send or connect would
 * (inet_autobind), so that a bind() racing the judgement fails with EINVAL
 * before it can write a scope id into the device (review h-attack14: a
 * failed bind timed to a sendmmsg's payload copy). Stream sockets with
 * stream_too: a fast-open send, which connects and sends in one call
 * (h-attack15), and a connect, whose handshake completes before the check
 * after it, so that a writer thread of the agent's sends from then on. An
 * IP_BIND_ADDRESS_NO_PORT the socket holds is lifted for the bind
 * (h-attack15: it kept the socket portless) and put back. Returns 0, or
 * -errno when the socket needed a port and the bind gave none (review
 * h-attack16: IP_LOCAL_PORT_RANGE narrowed to a port another socket holds,
 * freed again while the payload was copied): the device then cannot be
 * relied on to stay as read, and the call is refused before it acts. */
int sv_device_give_port(int fd, int stream_too)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss), tl;
	int type = 0, noport = 0, off = 0, rc, err;

	tl = sizeof(type);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) != 0 ||
	    !(type == SOCK_DGRAM || (stream_too && type == SOCK_STREAM)) ||
	    getsockname(fd, (struct sockaddr *)&ss, &l) != 0 || l < 4 ||
	    sv_load16((const uint8_t *)&ss + 2) != 0)
		return 0;
	tl = sizeof(noport);
	if (getsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &noport, &tl) != 0)
		noport = 0;
	if (noport)
		(void)setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &off, sizeof(off));
	rc = bind(fd, (struct sockaddr *)&ss, l);
	err = errno;
	if (noport)
		(void)setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &noport, sizeof(noport));
	/* Another thread's first send may have given it a port meanwhile (our
	 * bind is then EINVAL): a port is all that is asked (review
	 * h-attack17's false red). */
	l = sizeof(ss);
	if (rc != 0 && getsockname(fd, (struct sockaddr *)&ss, &l) == 0 && l >= 4 &&
	    sv_load16((const uint8_t *)&ss + 2) != 0)
		rc = 0;
#ifdef SV_MUTANT_PORT_FAILURE_QUIET
	/* MUTANT port-failure-quiet: a bind that gave no port is ignored, as
	 * before review h-attack16. */
	rc = 0;
#endif
	return rc == 0 ? 0 : -err;
}

/* SO_TYPE, or -1 when it cannot be read. */
int sv_device_socket_type(int fd)
{
	int type = -1;
	socklen_t tl = sizeof(type);

	return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) == 0 ? type : -1;
}

/* A connected datagram socket about to be connected to a scoped address is
 * disconnected first: the kernel writes the scope into its device before
 * the connect can fail, and a failed connect keeps the old peer, so an
 * untrapped write() between it and any undo left by that link (review
 * h-attack15). Disconnected, a failed connect leaves no peer to write to
 * (the agent's send() then gets EDESTADDRREQ where the kernel would have
 * kept the old peer). */
void sv_device_disconnect_before_scoped(int fd, const struct sv_dest *d)
{
	struct sockaddr_storage ss;
	struct sockaddr unspec = {.sa_family = AF_UNSPEC};
	socklen_t l = sizeof(ss), tl;
	int type = 0;

	tl = sizeof(type);
	if (sv_device_needs_scope(d) && getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) == 0 &&
	    type == SOCK_DGRAM && getpeername(fd, (struct sockaddr *)&ss, &l) == 0)
		(void)connect(fd, &unspec, sizeof(unspec));
}

/* The device a connect to d binds the socket to by itself: its scope id,
 * or for a link-scope multicast address without one, IPV6_MULTICAST_IF
 * (ip6_datagram_connect's mcast_oif). 0 when d needs no scope. */
uint32_t sv_device_scope_of(int fd, const struct sv_dest *d)
{
	int oif = 0;
	socklen_t l = sizeof(oif);

	if (!sv_device_needs_scope(d))
		return 0;
	if (d->scope_id != 0 || d->addr.bytes[0] != 0xff)
		return d->scope_id;
	if (getsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, &oif, &l) != 0 || oif < 0)
		return 0;
	return (uint32_t)oif;
}
