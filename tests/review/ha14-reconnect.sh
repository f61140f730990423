#!/bin/bash
# ha14-reconnect.sh (hostile review h-attack14): a UDP socket connected to the
# declared ::ffff:198.51.100.7 is re-connected to the declared fe80::1%a1;
# the connect fails (EAFNOSUPPORT: the source is v4-mapped) but leaves the
# socket bound to a1 with its old peer; the supervisor accepts the device as
# the connect's scope, and send() (CONTINUE, connected-peer) leaves by a1 to
# the undeclared ha14x. Same five namespaces as ha13-bindfail.sh (renamed
# ha14*). Supervisor: --no-loopback --allow 198.51.100.7:9999
# --allow [fe80::1]:9999, uid 1000 (mode mdns: --allow [ff02::fb]:5353 instead,
# and the re-connect is to ff02::fb%a1).
#   ha14-reconnect.sh [SUPERVISOR]   (MODES=... picks modes: plain send write sendmsg)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
mkdir -p /tmp/ha14 && chmod 777 /tmp/ha14
review_cc /tmp/ha14/rc tests/review/ha14-reconnect.c || exit 2
d=$(review_stage ha14-reconnect "${1:-build/egress-supervisor}" /tmp/ha14/rc)
NS=(ha14a ha14r ha14s ha14x ha14y)
cleanup() {
	for n in "${NS[@]}"; do ip netns pids "$n" 2>/dev/null | xargs -r kill 2>/dev/null; done
	sleep 0.2
	for n in "${NS[@]}"; do ip netns del "$n" 2>/dev/null; done
}
trap cleanup EXIT
cleanup
for n in "${NS[@]}"; do ip netns add "$n" && ip -n "$n" link set lo up; done
ip link add a0 netns ha14a type veth peer name r0 netns ha14r
ip link add r1 netns ha14r type veth peer name s0 netns ha14s
ip link add a1 netns ha14a type veth peer name x0 netns ha14x
ip link add ry netns ha14r type veth peer name y0 netns ha14y
ip -n ha14r link add br0 type bridge
ip -n ha14r link set r0 master br0
ip -n ha14r link set ry master br0
ip -n ha14a addr add 192.0.2.1/24 dev a0
ip -n ha14a addr add 203.0.113.1/24 dev a1
ip -n ha14r addr add 192.0.2.254/24 dev br0
ip -n ha14y addr add 192.0.2.66/24 dev y0
ip -n ha14y addr add 198.51.100.7/32 dev y0
ip -n ha14r addr add 198.51.100.254/24 dev r1
ip -n ha14s addr add 198.51.100.7/24 dev s0
ip -n ha14x addr add 203.0.113.66/24 dev x0
ip -n ha14x addr add 198.51.100.7/32 dev x0
for l in "ha14a a0" "ha14a a1" "ha14r r0" "ha14r ry" "ha14r br0" "ha14r r1" "ha14s s0" "ha14x x0" "ha14y y0"; do
	read -r ns dev <<<"$l"
	ip -n "$ns" link set "$dev" up
done
ip -n ha14a route add default via 192.0.2.254
ip -n ha14s route add default via 198.51.100.254
ip netns exec ha14r sysctl -qw net.ipv4.ip_forward=1
cat >/tmp/ha14/rc-sink.py <<'PY'
import select, socket, sys
name = sys.argv[1]
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("0.0.0.0", 9999))
while True:
    r, _, _ = select.select([u], [], [], 60)
    if not r: break
    data, peer = u.recvfrom(65536)
    print("%s got UDP %d bytes %r from %s" % (name, len(data), data[:40].decode(errors="replace"), peer[0]), flush=True)
PY
rm -f /tmp/ha14/rc-sinks.log
ip netns exec ha14s python3 /tmp/ha14/rc-sink.py "DECLARED server ha14s 198.51.100.7" >>/tmp/ha14/rc-sinks.log 2>&1 &
ip netns exec ha14x python3 /tmp/ha14/rc-sink.py "UNDECLARED host ha14x on a1's link" >>/tmp/ha14/rc-sinks.log 2>&1 &
ip netns exec ha14y python3 /tmp/ha14/rc-sink.py "UNDECLARED host ha14y on a0's link" >>/tmp/ha14/rc-sinks.log 2>&1 &
for n in ha14s ha14x ha14y; do
	for _ in $(seq 50); do ip netns exec $n ss -Hlun 'sport = :9999' | grep -q . && break; sleep 0.1; done
done
for mode in ${MODES:-plain send write sendmsg mdns}; do
	exec 9<>"$d/rep.$mode"
	rm -f "$d/rep.$mode"
	echo "== $mode" >>/tmp/ha14/rc-sinks.log
	extra=(--allow "[fe80::1]:9999")
	[ "$mode" = mdns ] && extra=(--allow "[ff02::fb]:5353")
	ip netns exec ha14a setpriv --reuid 1000 --regid 1000 --clear-groups \
		"$d/sv" --no-loopback --allow 198.51.100.7:9999 "${extra[@]}" --report-fd 9 -- \
		"$d/agent" "$mode" 198.51.100.7:9999 a1 2>"$d/err.$mode"
	echo "== $mode: supervisor exit $? ($(tail -1 "$d/err.$mode"))"
	cp "/proc/$$/fd/9" "$d/channel.$mode"
	exec 9>&-
	python3 -c 'import json,sys
data = open(sys.argv[1], "rb").read(); i = 0; r = None
while i < len(data):
    nl = data.find(b"\n", i); hdr = data[i:nl].split(); n = int(hdr[2])
    if len(data) - nl - 1 < n: break
    r = json.loads(data[nl + 1:nl + 1 + n]); i = nl + 1 + n
print("  verdict", r["verdict"], "containment", r["containment"])
for e in r["events"]:
    print("  event", e["syscall"], e["bucket"], e["reason"], e["dest"], e["action"], e["errno"], e["result"], e.get("messages", ""))' "$d/channel.$mode"
	sleep 0.3
done
echo "--- sinks:"
sed 's/^/  /' /tmp/ha14/rc-sinks.log
