#!/bin/bash
# ha13-bindfail.sh (hostile review h-attack13): the agent picks the output
# interface of its declared address with a FAILED bind() of an IPv6 socket
# to fe80::dead%a1 (never trapped; the scope id stays in sk_bound_dev_if),
# then sends to the declared IPv4 address as ::ffff:198.51.100.7. Same five
# namespaces as ha12-oif.sh (renamed ha13*):
#
#   ha13a  the agent's host: a0 192.0.2.1/24 (default via 192.0.2.254) and
#          a1 203.0.113.1/24 (a second link)
#   ha13r  router; ha13s the declared server 198.51.100.7 (sink on 9999)
#   ha13x  another host on a1's link that also holds 198.51.100.7/32
#   ha13y  another host on a0's link holding 198.51.100.7/32 (unused here)
#
# Supervisor: --no-loopback --allow 198.51.100.7:9999, as uid 1000 (mode
# llconnect adds --allow [fe80::dead]:9999, a declared link-local address).
#   ha13-bindfail.sh [SUPERVISOR]   (default build/egress-supervisor; MODES=...
#                               picks the modes, default all)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
mkdir -p /tmp/ha13 && chmod 777 /tmp/ha13
review_cc /tmp/ha13/bf tests/review/ha13-bindfail.c || exit 2
d=$(review_stage ha13-bindfail "${1:-build/egress-supervisor}" /tmp/ha13/bf)
NS=(ha13a ha13r ha13s ha13x ha13y)
cleanup() {
	for n in "${NS[@]}"; do ip netns pids "$n" 2>/dev/null | xargs -r kill 2>/dev/null; done
	sleep 0.2
	for n in "${NS[@]}"; do ip netns del "$n" 2>/dev/null; done
}
trap cleanup EXIT
cleanup
for n in "${NS[@]}"; do ip netns add "$n" && ip -n "$n" link set lo up; done
ip link add a0 netns ha13a type veth peer name r0 netns ha13r
ip link add r1 netns ha13r type veth peer name s0 netns ha13s
ip link add a1 netns ha13a type veth peer name x0 netns ha13x
ip link add ry netns ha13r type veth peer name y0 netns ha13y
ip -n ha13r link add br0 type bridge
ip -n ha13r link set r0 master br0
ip -n ha13r link set ry master br0
ip -n ha13a addr add 192.0.2.1/24 dev a0
ip -n ha13a addr add 203.0.113.1/24 dev a1
ip -n ha13r addr add 192.0.2.254/24 dev br0
ip -n ha13y addr add 192.0.2.66/24 dev y0
ip -n ha13y addr add 198.51.100.7/32 dev y0
ip -n ha13r addr add 198.51.100.254/24 dev r1
ip -n ha13s addr add 198.51.100.7/24 dev s0
ip -n ha13x addr add 203.0.113.66/24 dev x0
ip -n ha13x addr add 198.51.100.7/32 dev x0
for l in "ha13a a0" "ha13a a1" "ha13r r0" "ha13r ry" "ha13r br0" "ha13r r1" "ha13s s0" "ha13x x0" "ha13y y0"; do
	read -r ns dev <<<"$l"
	ip -n "$ns" link set "$dev" up
done
ip -n ha13a route add default via 192.0.2.254
ip -n ha13s route add default via 198.51.100.254
ip netns exec ha13r sysctl -qw net.ipv4.ip_forward=1
cat >/tmp/ha13/bf-sink.py <<'PY'
import select, socket, sys
name = sys.argv[1]
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("0.0.0.0", 9999))
t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); t.bind(("0.0.0.0", 9999)); t.listen(8)
conns = []
while True:
    r, _, _ = select.select([u, t] + conns, [], [], 30)
    if not r: break
    for s in r:
        if s is u:
            data, peer = u.recvfrom(4096)
            print("%s got UDP %r from %s" % (name, data.decode(), peer[0]), flush=True)
        elif s is t:
            c, peer = t.accept(); conns.append(c)
        else:
            data = s.recv(4096)
            if data: print("%s got TCP %r from %s" % (name, data.decode(), s.getpeername()[0]), flush=True)
            else: conns.remove(s); s.close()
PY
rm -f /tmp/ha13/bf-sinks.log
ip netns exec ha13s python3 /tmp/ha13/bf-sink.py "DECLARED server ha13s 198.51.100.7" >>/tmp/ha13/bf-sinks.log 2>&1 &
ip netns exec ha13x python3 /tmp/ha13/bf-sink.py "UNDECLARED host ha13x on a1's link" >>/tmp/ha13/bf-sinks.log 2>&1 &
ip netns exec ha13y python3 /tmp/ha13/bf-sink.py "UNDECLARED host ha13y on a0's link" >>/tmp/ha13/bf-sinks.log 2>&1 &
for n in ha13s ha13x ha13y; do
	for _ in $(seq 50); do ip netns exec $n ss -Hlun 'sport = :9999' | grep -q . && break; sleep 0.1; done
done
for mode in ${MODES:-udpplain udp tcp mcast llconnect pkt6 pkt2292 pktopts mcastif scope}; do
	exec 9<>"$d/rep.$mode"
	rm -f "$d/rep.$mode"
	extra=()
	[ "$mode" = llconnect ] && extra=(--allow "[fe80::dead]:9999")
	ip netns exec ha13a setpriv --reuid 1000 --regid 1000 --clear-groups \
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
    print("  event", e["syscall"], e["bucket"], e["reason"], e["dest"], e["action"], e["errno"], e["result"])' "$d/channel.$mode"
	sleep 0.3
done
echo "--- sinks:"
sed 's/^/  /' /tmp/ha13/bf-sinks.log
