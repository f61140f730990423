#!/usr/bin/env bash
# ha73-localnet.sh: hostile review h-attack73, against c8b9460's
# localnet_routed (supervisor/mediate_sock.c). An IPv4 loopback listen is
# denied as inbound-localnet when some net.ipv4.conf.*.route_localnet "is
# 1": the reader takes the file's first byte and compares it to '1', and
# skips every directory entry whose name starts with '.'. The kernel
# (IN_DEV_NET_ROUTE_LOCALNET in ip_route_input_slow) lets 127/8 in from a
# link where the value is any non-zero int (the sysctl is a plain
# proc_dointvec: 2 and -1 are stored as they are), and an interface name
# may start with '.' (dev_valid_name refuses only "", ".", "..", '/', ':'
# and blanks). Either way a neighbour on that link connects to the agent's
# 127.0.0.1 listener and reads what the agent writes to it.
#
# Everything runs in two network namespaces of this script's own
# ("ha73host", where the supervisor runs, and "ha73peer", the neighbour),
# joined by a veth; nothing in the host's namespace or its /proc/sys is
# touched, nothing leaves the host (documentation addresses).
#   tests/review/ha73-localnet.sh MODE [RUNS [USER]]
#     MODE one   route_localnet=1 on the link named ha73a (the control: the
#                fix denies it, inbound-localnet)
#          two   route_localnet=2 on ha73a
#          minus route_localnet=-1 on ha73a
#          dot   route_localnet=1 on the link named .ha73a
#          late  route_localnet=0 at the listen, set to 1 on ha73a once
#                the agent listens (an administrator, kube-proxy starting):
#                read at the listen only, the listener stays
#     USER root (default) or u1000
# Prints one line a run: the supervisor's exit, its verdict and events, and
# what the neighbour read. Needs root; SV: another build (a mutant's).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:?MODE: one, two, minus, dot or late}
runs=${2:-1}
who=${3:-root}
port=47373
work=
hns=ha73host
pns=ha73peer
case $mode in
one) ifname=ha73a value=1 ;;
two) ifname=ha73a value=2 ;;
minus) ifname=ha73a value=-1 ;;
dot) ifname=.ha73a value=1 ;;
late) ifname=ha73a value=0 ;;
*) echo "unknown mode $mode" >&2; exit 2 ;;
esac

cleanup() {
	ip netns del "$hns" 2>/dev/null || true
	ip netns del "$pns" 2>/dev/null || true
	[[ -z $work ]] || rm -rf "$work"
}
trap cleanup EXIT
cleanup
work=$(mktemp -d /tmp/ha73-localnet.XXXXXX)
chmod 755 "$work"

musl-gcc -D_GNU_SOURCE -O2 -static -no-pie -isystem "$top/build/kheaders" \
	-o "$work/agent" "$top/tests/review/ha70-agent.c"
cp "${SV:-$top/build/egress-supervisor}" "$work/sv"

ip netns add "$hns"
ip netns add "$pns"
ip -n "$hns" link set lo up
ip -n "$hns" link add "$ifname" type veth peer name ha73b netns "$pns"
ip -n "$hns" addr add 198.51.100.1/24 dev "$ifname"
ip -n "$hns" link set "$ifname" up
ip -n "$pns" addr add 198.51.100.2/24 dev ha73b
ip -n "$pns" link set ha73b up
ip -n "$pns" link set lo up
# As in ha70-localnet.sh: the neighbour's own loopback goes, so that its
# 127.0.0.1 is routed through the link.
ip -n "$pns" addr flush dev lo
ip -n "$pns" route add 127.0.0.1/32 via 198.51.100.1 dev ha73b
ip netns exec "$pns" sysctl -qw net.ipv4.conf.ha73b.route_localnet=1
# The setting under test, in the supervisor's namespace (ours, not the
# host's). sysctl(8) takes '.' as a separator: write the file.
ip netns exec "$hns" sh -c "echo 0 > /proc/sys/net/ipv4/conf/all/route_localnet; \
	echo $value > '/proc/sys/net/ipv4/conf/$ifname/route_localnet'"
# shellcheck disable=SC2016 # expanded by the inner shell
echo "# $hns: $(ip netns exec "$hns" sh -c 'cd /proc/sys/net/ipv4/conf && for f in $(ls -A); do printf "%s=%s " "$f" "$(cat "$f/route_localnet")"; done')"

peer() {
	if [[ $mode == late ]]; then
		for _ in $(seq 100); do
			grep -q listening "$1" 2>/dev/null && break
			sleep 0.1
		done
		ip netns exec "$hns" sh -c "echo 1 > /proc/sys/net/ipv4/conf/ha73a/route_localnet"
	fi
	ip netns exec "$pns" python3 - "$port" <<'PY'
import socket, sys, time
port = int(sys.argv[1])
for _ in range(100):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
        break
    except OSError:
        time.sleep(0.1)
else:
    print("neighbour: no connection"); sys.exit(0)
print("neighbour: read %r from %s" % (s.recv(100), s.getpeername()))
PY
}

for i in $(seq "$runs"); do
	rep=$work/report.$i
	# Each run starts from the setting under test (late sets it later).
	ip netns exec "$hns" sh -c "echo $value > '/proc/sys/net/ipv4/conf/$ifname/route_localnet'"
	peer "$work/out.$i" >"$work/peer.$i" 2>&1 &
	peer_pid=$!
	cmd=("$work/sv" --report "$rep" -- "$work/agent" listen-lo "$port" "ha73secret-$mode-$i")
	if [[ $who == u1000 ]]; then
		chown 1000:1000 "$work"
		cmd=(setpriv --reuid 1000 --regid 1000 --clear-groups "${cmd[@]}")
	fi
	set +e
	(cd "$work" && ip netns exec "$hns" "${cmd[@]}") >"$work/out.$i" 2>&1 </dev/null
	rc=$?
	set -e
	wait "$peer_pid" || true
	verdict=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["verdict"], [(e["syscall"], e["bucket"], e["reason"]) for e in r["events"]])' "$rep" 2>/dev/null || echo "no report")
	echo "run $i ($mode, $who): exit $rc, $verdict; $(grep -h 'ha70\|neighbour' "$work/out.$i" "$work/peer.$i" | tr '\n' ' ')"
done
