#!/bin/bash
# ha12-oif.sh (hostile review h-attack12): the agent sends to its declared
# address out of an interface of its choosing, and another host on that
# link, holding the same address, gets the data. Host, as root, from the
# worktree after `make`. Everything runs in four network namespaces made
# here and removed after (veth pairs between them; the host's own network
# is not touched):
#
#   ha12a  the agent's host: a0 192.0.2.1/24 (default via 192.0.2.254, the
#          router) and a1 203.0.113.1/24 (a second link, e.g. a café LAN)
#   ha12r  router: 192.0.2.254 <-> 198.51.100.254, forwarding
#   ha12s  the declared server 198.51.100.7 (UDP and TCP sink on 9999)
#   ha12x  another host on a1's link that also holds 198.51.100.7/32
#          (sink on 9999): undeclared, whatever its address says
#   ha12y  another host on a0's own link (the router's LAN, a bridge in
#          ha12r) holding 198.51.100.7/32 too: for MSG_DONTROUTE and
#          SO_DONTROUTE, which skip the gateway on the route's own link
#
# Supervisor: --no-loopback --allow 198.51.100.7:9999, as uid 1000.
#   ha12-oif.sh [SUPERVISOR]   (default build/egress-supervisor; MODES=...
#                               picks the modes, default all)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
mkdir -p /tmp/ha12 && chmod 777 /tmp/ha12
review_cc /tmp/ha12/oif tests/review/ha12-oif.c || exit 2
d=$(review_stage ha12-oif "${1:-build/egress-supervisor}" /tmp/ha12/oif)
NS=(ha12a ha12r ha12s ha12x ha12y)
cleanup() {
	for n in "${NS[@]}"; do ip netns pids "$n" 2>/dev/null | xargs -r kill 2>/dev/null; done
	sleep 0.2
	for n in "${NS[@]}"; do ip netns del "$n" 2>/dev/null; done
}
trap cleanup EXIT
cleanup
for n in "${NS[@]}"; do ip netns add "$n" && ip -n "$n" link set lo up; done
ip link add a0 netns ha12a type veth peer name r0 netns ha12r
ip link add r1 netns ha12r type veth peer name s0 netns ha12s
ip link add a1 netns ha12a type veth peer name x0 netns ha12x
ip link add ry netns ha12r type veth peer name y0 netns ha12y
ip -n ha12r link add br0 type bridge
ip -n ha12r link set r0 master br0
ip -n ha12r link set ry master br0
ip -n ha12a addr add 192.0.2.1/24 dev a0
ip -n ha12a addr add 203.0.113.1/24 dev a1
ip -n ha12r addr add 192.0.2.254/24 dev br0
ip -n ha12y addr add 192.0.2.66/24 dev y0
ip -n ha12y addr add 198.51.100.7/32 dev y0
ip -n ha12r addr add 198.51.100.254/24 dev r1
ip -n ha12s addr add 198.51.100.7/24 dev s0
ip -n ha12x addr add 203.0.113.66/24 dev x0
ip -n ha12x addr add 198.51.100.7/32 dev x0
for l in "ha12a a0" "ha12a a1" "ha12r r0" "ha12r ry" "ha12r br0" "ha12r r1" "ha12s s0" "ha12x x0" "ha12y y0"; do
	read -r ns dev <<<"$l"
	ip -n "$ns" link set "$dev" up
done
ip -n ha12a route add default via 192.0.2.254
ip -n ha12s route add default via 198.51.100.254
ip netns exec ha12r sysctl -qw net.ipv4.ip_forward=1
cat >/tmp/ha12/oif-sink.py <<'PY'
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
rm -f /tmp/ha12/oif-sinks.log
ip netns exec ha12s python3 /tmp/ha12/oif-sink.py "DECLARED server ha12s 198.51.100.7" >>/tmp/ha12/oif-sinks.log 2>&1 &
ip netns exec ha12x python3 /tmp/ha12/oif-sink.py "UNDECLARED host ha12x on a1's link" >>/tmp/ha12/oif-sinks.log 2>&1 &
ip netns exec ha12y python3 /tmp/ha12/oif-sink.py "UNDECLARED host ha12y on a0's link" >>/tmp/ha12/oif-sinks.log 2>&1 &
for n in ha12s ha12x ha12y; do
	for _ in $(seq 50); do ip netns exec $n ss -Hlun 'sport = :9999' | grep -q . && break; sleep 0.1; done
done
for mode in ${MODES:-plain pktinfo bindtodevice unicastif tcp dontroute sodontroute}; do
	exec 9<>"$d/rep.$mode"
	rm -f "$d/rep.$mode"
	ip netns exec ha12a setpriv --reuid 1000 --regid 1000 --clear-groups \
		"$d/sv" --no-loopback --allow 198.51.100.7:9999 --report-fd 9 -- \
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
sed 's/^/  /' /tmp/ha12/oif-sinks.log
