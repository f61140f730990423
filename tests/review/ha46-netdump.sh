#!/usr/bin/env bash
# Review h-attack46, brief item 3 (host kernel, a private network namespace,
# no module loaded): leave hostile rtnetlink state a root cell could leave
# (nexthop objects and routes on them, rules of every selector, proxy and
# permanent neighbours, IPv6 disabled by sysctl, addresses with flags) and
# ask whether any of the reset's eight dumps then answers EOPNOTSUPP or
# EAFNOSUPPORT ("unsupported dump") where it did not at first, which would
# hide state from the comparison. Prints the lines that differ; exit 0 when
# no dump turned unsupported (held).
# Part B (finding 3): state the snapshot never sees, unsupported or not:
# proxy neighbour entries (the RTM_GETNEIGH dump does not ask for
# NTF_PROXY, so pneigh entries are not dumped; an IPv6 one also joins lo to
# its solicited-node group) and nexthop objects (no RTM_GETNEXTHOP dump).
# Part B prints "blind" when the snapshot is byte-identical before and after.
#   tests/review/ha46-netdump.sh   (root; builds /tmp/ha46-netdump)
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=$(mktemp)
trap 'rm -f "$bin"' EXIT
# The project's own harness of the snapshot (initramfs/tests/reset-net-snap.c,
# which test_reset_net.py builds the same way); this review first had a copy.
gcc -std=c11 -D_GNU_SOURCE -O1 -I"$top/initramfs/guest" -o "$bin" "$top/initramfs/tests/reset-net-snap.c" \
	"$top/initramfs/guest/reset_net.c" "$top/initramfs/guest/reset_util.c"
# shellcheck disable=SC2016 # expanded by the inner shell
unshare -n bash -c '
set -u
bin=$1
before=$("$bin")
try() { "$@" 2>/dev/null || echo "  (refused: $*)" >&2; }
try ip link set lo up
try ip addr add 192.0.2.1/24 dev lo
try ip -6 addr add 2001:db8::1/64 dev lo nodad
try ip nexthop add id 7 dev lo
try ip nexthop add id 8 blackhole
try ip nexthop add id 9 group 7
try ip route add 198.51.100.0/24 nhid 7
try ip route add 203.0.113.0/24 nhid 8 table 100
try ip -6 route add 2001:db8:1::/64 nhid 8
try ip route add blackhole 203.0.113.9 table 200
try ip rule add uidrange 1000-1000 table 100
try ip rule add ipproto udp dport 53 table 100
try ip rule add l3mdev prio 1000
try ip rule add fwmark 0x1/0x1 suppress_prefixlength 0 table main
try ip -6 rule add from 2001:db8::/32 table 100
try ip -6 rule add sport 1-2 table 200
try ip neigh add 192.0.2.7 lladdr 02:00:00:00:00:01 dev lo nud permanent
try ip neigh add proxy 192.0.2.8 dev lo
try ip -6 neigh add proxy 2001:db8::8 dev lo
try ip neigh add 192.0.2.10 dev lo extern_learn lladdr 02:00:00:00:00:02
try sysctl -qw net.ipv6.conf.all.disable_ipv6=1
try sysctl -qw net.ipv6.conf.lo.disable_ipv6=1
try sysctl -qw net.ipv4.nexthop_compat_mode=0
after=$("$bin" 2>&1); rc=$?
echo "snapshot exit $rc; lines before $(printf "%s\n" "$before" | wc -l), after $(printf "%s\n" "$after" | wc -l)"
diff <(printf "%s\n" "$before") <(printf "%s\n" "$after") | grep "^[<>]" | cut -c1-150
printf "%s\n" "$after" | grep -c "unsupported dump\|reset-net-snap:" | sed "s/^/unsupported or failed dumps after: /"
[ "$rc" = 0 ] && ! printf "%s\n" "$after" | grep -q "unsupported dump\|reset-net-snap:"
' sh "$bin"
# shellcheck disable=SC2016 # expanded by the inner shell
unshare -n bash -c '
bin=$1
ip link set lo up
before=$("$bin")
ip neigh add proxy 192.0.2.8 dev lo
ip -6 neigh add proxy 2001:db8::8 dev lo
ip nexthop add id 7 blackhole
after=$("$bin")
echo "part B: state left: $(ip -4 neigh show proxy | wc -l) IPv4 proxy, $(ip -6 neigh show proxy | sort -u | wc -l) IPv6 proxy neighbour(s), $(ip nexthop show | wc -l) nexthop object(s), lo in ff02::1:ff00:8: $(ip -6 maddr show dev lo | grep -c ff02::1:ff00:8)"
if [ "$before" = "$after" ]; then echo "part B: blind (the snapshot is the same)"; else echo "part B: seen"; fi
' sh "$bin"
