#!/bin/bash
# ha38-mcast.sh (hostile review h-attack38): the agent's data in the
# multicast group and source addresses it joins (tests/agents/mcast-join.c, once ha38-mcast.c). A join is a
# setsockopt on a UDP socket: not trapped, no capability, no name judged;
# the kernel then sends an IGMP or MLD report on the link that carries the
# addresses the agent chose, and every host on the link receives it. Host,
# as root, from the worktree after `make`. Topology: review-net.sh (five
# namespaces ha38a, ha38r, ha38s, ha38x, ha38y); the joins name a1, the
# link to ha38x, an undeclared host that only captures (AF_PACKET on x0).
#
# Supervisor: --no-loopback --allow 198.51.100.7:9999, as uid 1000 (as root
# with REVIEW_AS_ROOT=1).
#   ha38-mcast.sh [SUPERVISOR]  (default build/egress-supervisor;
#                                MODES=... picks the modes, default all;
#                                ROUNDS=N repeats them, default 1)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
. tests/review/review-net.sh
mkdir -p /tmp/ha38 && chmod 777 /tmp/ha38
review_cc /tmp/ha38/mcast tests/agents/mcast-join.c || exit 2
d=$(review_stage ha38-mcast "${1:-build/egress-supervisor}" /tmp/ha38/mcast)
review_net_up ha38
review_net_sinks ha38 "$d"
# The capture on ha38x's side of a1: every IGMP and MLD report, with its
# records' group and source addresses, and the printable bytes they hold.
cat >"$d/capture.py" <<'PY'
import socket, struct, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.ntohs(0x0003))
s.bind(("x0", 0))
s.settimeout(float(sys.argv[1]))
def text(raw):
    return "".join(chr(c) if 32 <= c < 127 else "." for c in raw)
while True:
    try:
        f = s.recv(65535)
    except OSError:
        break
    et = struct.unpack("!H", f[12:14])[0]
    got = []
    if et == 0x0800 and f[14 + 9] == 2:
        ip = f[14:]; src = socket.inet_ntoa(ip[12:16]); dst = socket.inet_ntoa(ip[16:20])
        g = ip[(ip[0] & 15) * 4:]
        if g[0] == 0x22:
            o = 8
            for _ in range(struct.unpack("!H", g[6:8])[0]):
                t, aux, ns = g[o], g[o + 1], struct.unpack("!H", g[o + 2:o + 4])[0]
                addrs = [g[o + 4:o + 8]] + [g[o + 8 + 4 * i:o + 12 + 4 * i] for i in range(ns)]
                got.append(("IGMPv3 record type %d group %s sources %s" % (t, socket.inet_ntoa(addrs[0]),
                            [socket.inet_ntoa(a) for a in addrs[1:]]), addrs))
                o += 8 + 4 * ns + 4 * aux
        elif g[0] in (0x12, 0x16, 0x17):
            got.append(("IGMP type 0x%x group %s" % (g[0], socket.inet_ntoa(g[4:8])), [g[4:8]]))
        proto = "IPv4 %s -> %s" % (src, dst)
    elif et == 0x86dd:
        ip = f[14:]; nh = ip[6]; o = 40
        src = socket.inet_ntop(socket.AF_INET6, ip[8:24]); dst = socket.inet_ntop(socket.AF_INET6, ip[24:40])
        if nh == 0:
            nh = ip[o]; o += (ip[o + 1] + 1) * 8
        if nh != 58 or ip[o] != 143:
            continue
        g = ip[o:]; p = 8
        for _ in range(struct.unpack("!H", g[6:8])[0]):
            t, aux, ns = g[p], g[p + 1], struct.unpack("!H", g[p + 2:p + 4])[0]
            addrs = [g[p + 4:p + 20]] + [g[p + 20 + 16 * i:p + 36 + 16 * i] for i in range(ns)]
            got.append(("MLDv2 record type %d group %s sources %d" % (t, socket.inet_ntop(socket.AF_INET6, addrs[0]), ns), addrs))
            p += 20 + 16 * ns + 4 * aux
        proto = "IPv6 %s -> %s" % (src, dst)
    else:
        continue
    for desc, addrs in got:
        print("UNDECLARED host ha38x on a1's link captured %s: %s; bytes %r" % (proto, desc, "|".join(text(a) for a in addrs)), flush=True)
PY
ip netns exec ha38x python3 "$d/capture.py" "${CAPTURE_S:-120}" >"$d/capture.log" 2>&1 &
cap=$!
sleep 0.5
for r in $(seq "${ROUNDS:-1}"); do
	for mode in ${MODES:-send group source msfilter mld mldfilter}; do
		review_net_run ha38 "$d" "$mode.$r" -- "$d/sv" --allow 198.51.100.7:9999 -- \
			"$d/agent" "$mode" a1 "${SECRET:-agent-secret-ha38}"
	done
done
sleep 1
kill "$cap" 2>/dev/null
wait "$cap" 2>/dev/null
echo "--- sinks:"
sed 's/^/  /' "$d/sinks.log"
echo "--- capture on x0 (ha38x, undeclared):"
sed 's/^/  /' "$d/capture.log"
