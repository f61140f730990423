#!/bin/bash
# ha15-race.sh (hostile review h-attack15, against c8ea553): a failed
# bind(fe80::dead%a1) racing the supervisor's payload read still sets the
# device of (1) a TCP socket sending with MSG_FASTOPEN (give_port is for
# datagram sockets only: the connect and the whole payload leave by a1 to
# the undeclared ha15x before the check after the act), (2) a UDP socket
# with IP_BIND_ADDRESS_NO_PORT (give_port's bind then takes no port). Same
# five namespaces as ha14-mmsg.sh (renamed ha15*); sinks listen on UDP and
# TCP 9999. Supervisor: --no-loopback --allow 198.51.100.7:9999
# --allow [fe80::1]:9999, uid 1000. Modes undo/noundo (ha15-undo.c): write()s
# from a second thread in the window between a failed re-connect and its undo.
#   ha15-race.sh [SUPERVISOR]   (MODES=... picks: tcpplain tfo tfomsg udp noport noundo undo srcport srcaddr;
#   tcpwin tfoconn need the test seam EGRESS_SV_FAULT=device_window, set by the script)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
mkdir -p /tmp/ha15 && chmod 777 /tmp/ha15
review_cc /tmp/ha15/mm tests/review/ha15-race.c || exit 2
review_cc /tmp/ha15/undo tests/review/ha15-undo.c || exit 2
d=$(review_stage ha15-race "${1:-build/egress-supervisor}" /tmp/ha15/mm)
# tcpwin, tfoconn: the test build (make FAULTS=1 supervisor; SVF=path to pick another)
cp "${SVF:-build/faults/egress-supervisor}" "$d/svf" 2>/dev/null && chown 1000:1000 "$d/svf"
cp /tmp/ha15/undo "$d/undo" && chown 1000:1000 "$d/undo"
NS=(ha15a ha15r ha15s ha15x ha15y)
cleanup() {
	for n in "${NS[@]}"; do ip netns pids "$n" 2>/dev/null | xargs -r kill 2>/dev/null; done
	sleep 0.2
	for n in "${NS[@]}"; do ip netns del "$n" 2>/dev/null; done
}
trap cleanup EXIT
cleanup
for n in "${NS[@]}"; do ip netns add "$n" && ip -n "$n" link set lo up; done
ip link add a0 netns ha15a type veth peer name r0 netns ha15r
ip link add r1 netns ha15r type veth peer name s0 netns ha15s
ip link add a1 netns ha15a type veth peer name x0 netns ha15x
ip link add ry netns ha15r type veth peer name y0 netns ha15y
ip -n ha15r link add br0 type bridge
ip -n ha15r link set r0 master br0
ip -n ha15r link set ry master br0
ip -n ha15a addr add 192.0.2.1/24 dev a0
ip -n ha15a addr add 192.0.2.9/24 dev a0
ip -n ha15a addr add 203.0.113.1/24 dev a1
ip -n ha15r addr add 192.0.2.254/24 dev br0
ip -n ha15y addr add 192.0.2.66/24 dev y0
ip -n ha15y addr add 198.51.100.7/32 dev y0
ip -n ha15r addr add 198.51.100.254/24 dev r1
ip -n ha15s addr add 198.51.100.7/24 dev s0
ip -n ha15x addr add 203.0.113.66/24 dev x0
ip -n ha15x addr add 198.51.100.7/32 dev x0
for l in "ha15a a0" "ha15a a1" "ha15r r0" "ha15r ry" "ha15r br0" "ha15r r1" "ha15s s0" "ha15x x0" "ha15y y0"; do
	read -r ns dev <<<"$l"
	ip -n "$ns" link set "$dev" up
done
ip -n ha15a route add default via 192.0.2.254
ip -n ha15s route add default via 198.51.100.254
ip netns exec ha15r sysctl -qw net.ipv4.ip_forward=1
cat >/tmp/ha15/mm-sink.py <<'PY'
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
rm -f /tmp/ha15/mm-sinks.log
ip netns exec ha15s python3 /tmp/ha15/mm-sink.py "DECLARED server ha15s 198.51.100.7" >>/tmp/ha15/mm-sinks.log 2>&1 &
ip netns exec ha15x python3 /tmp/ha15/mm-sink.py "UNDECLARED host ha15x on a1's link" >>/tmp/ha15/mm-sinks.log 2>&1 &
ip netns exec ha15y python3 /tmp/ha15/mm-sink.py "UNDECLARED host ha15y on a0's link" >>/tmp/ha15/mm-sinks.log 2>&1 &
for n in ha15s ha15x ha15y; do
	for _ in $(seq 50); do ip netns exec $n ss -Hltn 'sport = :9999' | grep -q . && break; sleep 0.1; done
done
for mode in ${MODES:-tcpplain tfo tfomsg udp noport noundo undo srcport srcaddr}; do
	exec 9<>"$d/rep.$mode"
	rm -f "$d/rep.$mode"
	echo "== $mode" >>/tmp/ha15/mm-sinks.log
	case $mode in
	undo | noundo) agent=("$d/undo" "$mode" 198.51.100.7:9999 a1) ;;
	*) agent=("$d/agent" "$mode" 198.51.100.7:9999 a1 "$d/payload.$mode") ;;
	esac
	fault=""
	sv=sv
	case $mode in tcpwin | tfoconn) fault=device_window:EAGAIN sv=svf ;; esac
	ip netns exec ha15a env ${fault:+EGRESS_SV_FAULT=$fault} setpriv --reuid 1000 --regid 1000 --clear-groups \
		"$d/$sv" --no-loopback --allow 198.51.100.7:9999 --allow "[fe80::1]:9999" --report-fd 9 -- \
		"${agent[@]}" 2>"$d/err.$mode"
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
uniq -c /tmp/ha15/mm-sinks.log | sed 's/^/  /'
