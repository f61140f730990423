/* The socket's device and port (device.c). */
#ifndef SV_DEVICE_H
#define SV_DEVICE_H

#include <stdint.h>

#include "sockaddr.h"

/* The device fd is bound to, by index: SO_BINDTOIFINDEX (5.1+), else
 * SO_BINDTODEVICE, which says only whether there is one. 0: none (also a
 * kernel without devices to bind, which answers ENOPROTOOPT); -1: one whose
 * index is unknown, or nothing could be read (judged as bound: fail
 * closed). */
int sv_device_bound_ifindex(int fd);

/* Whether d is an IPv6 address that needs a scope id
 * (__ipv6_addr_needs_scope_id: link-local unicast, interface- and
 * link-local multicast). Pure. */
int sv_device_needs_scope(const struct sv_dest *d);

/* Gives a portless datagram socket (a stream too with stream_too: a
 * fast-open send, a connect) its port at the address it is bound to, lifting an
 * IP_BIND_ADDRESS_NO_PORT it holds for that bind. 0, or -errno when it
 * needed a port and the bind gave none. */
int sv_device_give_port(int fd, int stream_too);

/* SO_TYPE, or -1 when it cannot be read. */
int sv_device_socket_type(int fd);

/* Disconnects a connected datagram socket about to be connected to a
 * scoped address d (quietly). */
void sv_device_disconnect_before_scoped(int fd, const struct sv_dest *d);

/* The device a connect to d binds the socket to by itself: its scope id,
 * or for a link-scope multicast address without one, IPV6_MULTICAST_IF.
 * 0 when d needs no scope. */
uint32_t sv_device_scope_of(int fd, const struct sv_dest *d);

#endif
