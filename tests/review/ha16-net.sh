#!/bin/bash
# ha16-net.sh: sourced by the ha16-*.sh reproductions (hostile review
# h-attack16). The five network namespaces of ha15-race.sh, renamed ha16*:
# the agent's host ha16a has a0 (192.0.2.1, 192.0.2.9; default route via
# the router ha16r to the declared server ha16s, 198.51.100.7) and a1
# (203.0.113.1, a second link); ha16x on a1's link and ha16y on a0's link
# also hold 198.51.100.7/32. Sinks on UDP and TCP 9999 in ha16s, ha16x and
# ha16y log to /tmp/ha16/sinks.log. ha16_run MODE SV AGENT... runs the
# supervisor as uid 1000 in ha16a (--no-loopback --allow 198.51.100.7:9999
# --allow [fe80::1]:9999, report on fd 9) and prints its verdict and events.
NS=(ha16a ha16r ha16s ha16x ha16y)
cleanup() {
	for n in "${NS[@]}"; do ip netns pids "$n" 2>/dev/null | xargs -r kill 2>/dev/null; done
	sleep 0.2
	for n in "${NS[@]}"; do ip netns del "$n" 2>/dev/null; done
}
trap cleanup EXIT
cleanup
for n in "${NS[@]}"; do ip netns add "$n" && ip -n "$n" link set lo up; done
ip link add a0 netns ha16a type veth peer name r0 netns ha16r
ip link add r1 netns ha16r type veth peer name s0 netns ha16s
ip link add a1 netns ha16a type veth peer name x0 netns ha16x
ip link add ry netns ha16r type veth peer name y0 netns ha16y
ip -n ha16r link add br0 type bridge
ip -n ha16r link set r0 master br0
ip -n ha16r link set ry master br0
ip -n ha16a addr add 192.0.2.1/24 dev a0
ip -n ha16a addr add 192.0.2.9/24 dev a0
ip -n ha16a addr add 203.0.113.1/24 dev a1
ip -n ha16r addr add 192.0.2.254/24 dev br0
ip -n ha16y addr add 192.0.2.66/24 dev y0
ip -n ha16y addr add 198.51.100.7/32 dev y0
ip -n ha16r addr add 198.51.100.254/24 dev r1
ip -n ha16s addr add 198.51.100.7/24 dev s0
ip -n ha16x addr add 203.0.113.66/24 dev x0
ip -n ha16x addr add 198.51.100.7/32 dev x0
ip -n ha16x addr add 198.51.100.8/32 dev x0
for l in "ha16a a0" "ha16a a1" "ha16r r0" "ha16r ry" "ha16r br0" "ha16r r1" "ha16s s0" "ha16x x0" "ha16y y0"; do
	read -r ns dev <<<"$l"
	ip -n "$ns" link set "$dev" up
done
ip -n ha16a route add default via 192.0.2.254
ip -n ha16s route add default via 198.51.100.254
ip netns exec ha16r sysctl -qw net.ipv4.ip_forward=1
cat >/tmp/ha16/sink.py <<'PY'
import select, socket, sys
name = sys.argv[1]
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("0.0.0.0", 9999))
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); t.bind(("0.0.0.0", 9999)); t.listen(8)
conns = {}
while True:
    r, _, _ = select.select([u, t] + list(conns), [], [], 90)
    if not r: break
    for s in r:
        if s is u:
            data, peer = u.recvfrom(65536)
            print("%s got UDP %d bytes %r from %s" % (name, len(data), data[:40].decode(errors="replace"), peer[0]), flush=True)
        elif s is t:
            c, peer = t.accept(); conns[c] = [peer, b""]
            print("%s accepted TCP from %s" % (name, peer[0]), flush=True)
        else:
            d = s.recv(65536)
            if d: conns[s][1] += d; continue
            peer, data = conns.pop(s); s.close()
            print("%s got TCP %d bytes %r from %s" % (name, len(data), data[:40].decode(errors="replace"), peer[0]), flush=True)
PY
rm -f /tmp/ha16/sinks.log
ip netns exec ha16s python3 /tmp/ha16/sink.py "DECLARED server ha16s 198.51.100.7" >>/tmp/ha16/sinks.log 2>&1 &
ip netns exec ha16x python3 /tmp/ha16/sink.py "UNDECLARED host ha16x on a1's link" >>/tmp/ha16/sinks.log 2>&1 &
ip netns exec ha16y python3 /tmp/ha16/sink.py "UNDECLARED host ha16y on a0's link" >>/tmp/ha16/sinks.log 2>&1 &
for n in ha16s ha16x ha16y; do
	for _ in $(seq 50); do ip netns exec $n ss -Hltn 'sport = :9999' | grep -q . && break; sleep 0.1; done
done
ha16_run() {
	local mode=$1 d=$2 sv=$3
	shift 3
	exec 9<>"$d/rep.$mode"
	rm -f "$d/rep.$mode"
	echo "== $mode" >>/tmp/ha16/sinks.log
	ip netns exec ha16a setpriv --reuid 1000 --regid 1000 --clear-groups \
		"$sv" --no-loopback --allow 198.51.100.7:9999 --allow "[fe80::1]:9999" ${EXTRA_ALLOW:-} --report-fd 9 -- \
		"$@" 2>"$d/err.$mode"
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
    print("  event", e["syscall"], e["bucket"], e["reason"], e["dest"], e["action"], e["errno"], e["result"], e.get("mechanism"), e.get("messages", ""))' "$d/channel.$mode"
	sleep 0.3
}
ha16_sinks() {
	echo "--- sinks:"
	uniq -c /tmp/ha16/sinks.log | sed 's/^/  /'
}
