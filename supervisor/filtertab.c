/* The socket options and ioctl commands the filter traps by value, each with
 * the reason a trapped one is denied: the filter's rules (filter.c) and the
 * handlers that answer them (mediate.c) read the same rows. */
#include "filtertab.h"

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Socket options that choose the path or the first hop of what is sent
 * after the destination was judged (source routes, the output interface),
 * or the source address it claims (a forged source makes every router on
 * the path a reflector: an ICMP error quoting the datagram goes to whatever
 * source it names), or that have the kernel send addresses the agent chose
 * (multicast memberships). */
static const struct sv_filtertab_option route_options[] = {
    {IPPROTO_IP, 4, "source-route"},    /* IP_OPTIONS: LSRR/SSRR */
    {IPPROTO_IPV6, 57, "source-route"}, /* IPV6_RTHDR */
#ifdef SV_MUTANT_RTHDR2292_DENIED
    /* MUTANT rthdr2292-denied: the receive flag denied as a source route. */
    {IPPROTO_IPV6, 5, "source-route"}, /* IPV6_2292RTHDR */
#endif
    {IPPROTO_IPV6, 6, "source-route"}, /* IPV6_2292PKTOPTIONS */
/* Not IPV6_2292RTHDR (5): as an option it only asks for the routing
 * headers received (do_ipv6_setsockopt: rxopt.bits.osrcrt); the RFC
 * 2292 sticky routing header is set through IPV6_2292PKTOPTIONS, and its
 * control message is msghdr.c's (review h-attack66: a false red). */
#ifndef SV_MUTANT_PATH_OPTIONS_OPEN
    /* IPV6_FLOWLABEL_MGR: a flow label can carry options, a type-2
     * routing header among them (CONFIG_IPV6_MIP6), which a send then
     * attaches through sin6_flowinfo with IPV6_FLOWINFO_SEND. */
    {IPPROTO_IPV6, 32, "source-route"},
    /* IP_FREEBIND (the same bit for IPv6 sockets) and IPV6_FREEBIND: a
     * source address that is not ours, bound or given in IPV6_PKTINFO. */
    {IPPROTO_IP, 15, "source-address"},
    {IPPROTO_IPV6, 78, "source-address"},
#endif
#ifndef SV_MUTANT_OUTPUT_INTERFACE_OPEN
    /* The output interface: where no route leads to the address through
     * the chosen link, IPv4 takes the address for on-link there
     * (ip_route_output_key_hash_rcu) and whoever answers ARP for it on
     * that link gets the data (review h-attack12). SO_BINDTODEVICE needs
     * no capability since 5.7 on an unbound socket; IP_UNICAST_IF and
     * IPV6_UNICAST_IF never did; a sticky IPV6_PKTINFO names an ifindex
     * too. (IP_PKTINFO and IPV6_PKTINFO as control messages: msghdr.c.)
     * The multicast interface options stay open: they apply only to a
     * multicast destination, which a rule names ("Known limits"). */
    {SOL_SOCKET, 25, "output-interface"},   /* SO_BINDTODEVICE */
    {SOL_SOCKET, 62, "output-interface"},   /* SO_BINDTOIFINDEX */
    {IPPROTO_IP, 50, "output-interface"},   /* IP_UNICAST_IF */
    {IPPROTO_IPV6, 76, "output-interface"}, /* IPV6_UNICAST_IF */
    {IPPROTO_IPV6, 50, "output-interface"}, /* IPV6_PKTINFO (sticky) */
#endif
#ifndef SV_MUTANT_DONTROUTE_OPTION_OPEN
    /* SO_DONTROUTE: IPv4 then takes only a route of link scope, so a route
     * without a gateway (a fallback default over a VPN, PPP or LTE link)
     * wins over the gateway route the host chose, and whoever answers ARP
     * for the address on that link gets the data (review h-attack35). Its
     * per-send form, MSG_DONTROUTE, is judged with the device
     * (sv_call_device_fits). */
    {SOL_SOCKET, 5, "output-interface"}, /* SO_DONTROUTE */
#endif
#ifndef SV_MUTANT_MULTICAST_JOIN_OPEN
    /* Multicast memberships: not a send, and no capability or route is
     * needed (the request names the link), but the kernel announces each
     * change on the link, an IGMP report to 224.0.0.22 or the group or an
     * MLD report to ff02::16, holding the group and source addresses the
     * agent chose: its bytes at every host on the link, again at every
     * query while it is held (review h-attack38's ha38-mcast.sh: 3 bytes a
     * v4 group, 4 a source, 14 a v6 group; 1024 bytes in one
     * MCAST_MSFILTER). Every join, leave, block and filter of both
     * families, and IPv6 anycast (its solicited-node group is announced
     * too). */
    {IPPROTO_IP, 35, "multicast-join"},   /* IP_ADD_MEMBERSHIP */
    {IPPROTO_IP, 36, "multicast-join"},   /* IP_DROP_MEMBERSHIP */
    {IPPROTO_IP, 37, "multicast-join"},   /* IP_UNBLOCK_SOURCE */
    {IPPROTO_IP, 38, "multicast-join"},   /* IP_BLOCK_SOURCE */
    {IPPROTO_IP, 39, "multicast-join"},   /* IP_ADD_SOURCE_MEMBERSHIP */
    {IPPROTO_IP, 40, "multicast-join"},   /* IP_DROP_SOURCE_MEMBERSHIP */
    {IPPROTO_IP, 41, "multicast-join"},   /* IP_MSFILTER */
    {IPPROTO_IP, 42, "multicast-join"},   /* MCAST_JOIN_GROUP */
    {IPPROTO_IP, 43, "multicast-join"},   /* MCAST_BLOCK_SOURCE */
    {IPPROTO_IP, 44, "multicast-join"},   /* MCAST_UNBLOCK_SOURCE */
    {IPPROTO_IP, 45, "multicast-join"},   /* MCAST_LEAVE_GROUP */
    {IPPROTO_IP, 46, "multicast-join"},   /* MCAST_JOIN_SOURCE_GROUP */
    {IPPROTO_IP, 47, "multicast-join"},   /* MCAST_LEAVE_SOURCE_GROUP */
    {IPPROTO_IP, 48, "multicast-join"},   /* MCAST_MSFILTER */
    {IPPROTO_IPV6, 20, "multicast-join"}, /* IPV6_ADD_MEMBERSHIP */
    {IPPROTO_IPV6, 21, "multicast-join"}, /* IPV6_DROP_MEMBERSHIP */
    {IPPROTO_IPV6, 27, "multicast-join"}, /* IPV6_JOIN_ANYCAST */
    {IPPROTO_IPV6, 28, "multicast-join"}, /* IPV6_LEAVE_ANYCAST */
    {IPPROTO_IPV6, 42, "multicast-join"}, /* MCAST_JOIN_GROUP */
    {IPPROTO_IPV6, 43, "multicast-join"}, /* MCAST_BLOCK_SOURCE */
    {IPPROTO_IPV6, 44, "multicast-join"}, /* MCAST_UNBLOCK_SOURCE */
    {IPPROTO_IPV6, 45, "multicast-join"}, /* MCAST_LEAVE_GROUP */
    {IPPROTO_IPV6, 46, "multicast-join"}, /* MCAST_JOIN_SOURCE_GROUP */
    {IPPROTO_IPV6, 47, "multicast-join"}, /* MCAST_LEAVE_SOURCE_GROUP */
    {IPPROTO_IPV6, 48, "multicast-join"}, /* MCAST_MSFILTER */
#endif
#ifndef SV_MUTANT_PASSRIGHTS_OPEN
    /* SO_PASSRIGHTS (6.16): not a path, but the supervisor turns it off on
     * an AF_UNIX socket on 0-2 (stdfds.c) so that no descriptor reaches the
     * agent through it during the run; the agent must not turn it back on. */
    {SOL_SOCKET, SV_SO_PASSRIGHTS, "descriptor-passing"},
#endif
};

/* ioctl commands denied for every agent on every ABI (the command is an
 * unsigned int: its low 32 bits), each with its reason. */
static const struct sv_filtertab_ioctl denied_ioctls[] = {
#ifndef SV_MUTANT_TUN_ATTACH_OPEN
    /* Attaching to a TUN or TAP device (TUNSETIFF; TUNSETQUEUE for a queue
     * of a multiqueue one): the owner of a persistent device (as `ip
     * tuntap add ... user U` leaves one for a VPN client or a QEMU) needs
     * no capability, and /dev/net/tun is mode 0666 under systemd's udev
     * rules. Every write() is then a packet received on that link, routed
     * or bridged to whatever it names (review h-attack38's ha38-tun.sh). */
    {0x400454ca, "tun-attach"}, /* TUNSETIFF */
    {0x400454d9, "tun-attach"}, /* TUNSETQUEUE */
#endif
#ifndef SV_MUTANT_TTY_INJECT_OPEN
    /* Typing into a terminal: the agent leads a session of its own with no
     * controlling terminal (spawn.c), and the kernel gives such a leader
     * any terminal no session holds (TIOCSCTTY, or an open without
     * O_NOCTTY: a harness's pty, a serial console before its getty), with
     * no capability; TIOCSTI then queues a command the next program on that
     * terminal runs after the run (review h-attack40's ha40-ctty.sh).
     * TIOCLINUX pastes a virtual console's selection the same way. */
    {0x5412, "tty-inject"}, /* TIOCSTI */
    {0x541c, "tty-inject"}, /* TIOCLINUX */
    /* A virtual console's keyboard tables are the host's, shared by every
     * VT and kept after the run: a key's string, a key's action or a dead
     * key rewritten types what the agent chose at a later keypress. Before
     * 5.11 the first two need no capability on a VT the agent took
     * (review h-attack42's ha42-vtdiacr.sh; h-attack41's ha41-vtkey.sh). */
    {0x4b49, "tty-inject"}, /* KDSKBSENT */
    {0x4b47, "tty-inject"}, /* KDSKBENT */
    {0x4b4d, "tty-inject"}, /* KDSETKEYCODE */
    {0x4b4b, "tty-inject"}, /* KDSKBDIACR */
    {0x4bfb, "tty-inject"}, /* KDSKBDIACRUC */
    /* The input subsystem reaches the same keyboard (and a graphical
     * session) without a terminal: a uinput device the agent creates types
     * its write()s, and an evdev keyboard's scancode map rewritten types
     * what it chose at a later keypress. /dev/uinput is the seat user's
     * (udev's uaccess, Debian's steam-devices rules), event nodes group
     * input's (review h-attack43, by reading). UI_DEV_CREATE ends both of
     * uinput's set-up paths (UI_DEV_SETUP, or the legacy write of a
     * uinput_user_dev). */
    {0x5501, "tty-inject"},     /* UI_DEV_CREATE */
    {0x405c5503, "tty-inject"}, /* UI_DEV_SETUP */
    {0x40084504, "tty-inject"}, /* EVIOCSKEYCODE */
    {0x40284504, "tty-inject"}, /* EVIOCSKEYCODE_V2 */
#endif
#ifndef SV_MUTANT_LDISC_AUTOLOAD_OPEN
    /* A line discipline set on a terminal the agent holds (its own devpts
     * in a user namespace, or a terminal on 0-2): an unregistered number N
     * makes the kernel ask kernel.modprobe for "tty-ldisc-N" with no
     * capability under Debian's dev.tty.ldisc_autoload=1, about five bits
     * of the agent's choosing a call (review h-attack57: 28 names at the
     * undeclared sink, pass). Every value: the number is in memory, which
     * the agent may rewrite after any read of ours. */
    {0x5423, "module-autoload"}, /* TIOCSETD */
#endif
#ifndef SV_MUTANT_FIXED_AUTOLOAD_OPEN
    /* The VLAN and bridge ioctls ask kernel.modprobe for "8021q" and
     * "bridge" while the module is not loaded, before any capability
     * check (net/socket.c, br_ioctl_call): a fixed name, but the agent
     * chooses when and how often modprobe, full root outside the run, is
     * started, and the module it loads outlives the run (review
     * h-attack59, by reading: ENOPKG on a kernel without modules). */
    {0x8982, "module-autoload"}, /* SIOCGIFVLAN */
    {0x8983, "module-autoload"}, /* SIOCSIFVLAN */
    {0x8940, "module-autoload"}, /* SIOCGIFBR */
    {0x8941, "module-autoload"}, /* SIOCSIFBR */
    {0x89a0, "module-autoload"}, /* SIOCBRADDBR */
    {0x89a1, "module-autoload"}, /* SIOCBRDELBR */
    {0x89a2, "module-autoload"}, /* SIOCBRADDIF */
    {0x89a3, "module-autoload"}, /* SIOCBRDELIF */
    /* Linux 5.10's sock_ioctl asks for "dlci" the same way (the driver,
     * Debian's CONFIG_DLCI=m, was removed in 5.19; review h-attack61). */
    {0x8980, "module-autoload"}, /* SIOCADDDLCI */
    {0x8981, "module-autoload"}, /* SIOCDELDLCI */
#endif
};

const struct sv_filtertab_option *sv_filtertab_options(size_t *n)
{
	*n = sizeof(route_options) / sizeof(route_options[0]);
	return route_options;
}

const struct sv_filtertab_ioctl *sv_filtertab_ioctls(size_t *n)
{
	*n = sizeof(denied_ioctls) / sizeof(denied_ioctls[0]);
	return denied_ioctls;
}

const char *sv_filtertab_option_reason(uint32_t level, uint32_t name)
{
	for (size_t i = 0; i < sizeof(route_options) / sizeof(route_options[0]); i++)
		if ((uint32_t)route_options[i].level == level &&
		    (uint32_t)route_options[i].name == name)
			return route_options[i].reason;
	return NULL;
}

const char *sv_filtertab_ioctl_reason(uint32_t cmd)
{
	for (size_t i = 0; i < sizeof(denied_ioctls) / sizeof(denied_ioctls[0]); i++)
		if (denied_ioctls[i].cmd == cmd)
			return denied_ioctls[i].reason;
	return NULL;
}
