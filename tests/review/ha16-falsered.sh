#!/bin/bash
# ha16-falsered.sh (hostile review h-attack16, against main 9886fc1): false
# reds of the device check towards a declared link-local peer
# (ha16-falsered.c). Namespaces: ha16-net.sh, plus fe80::1 on ha16x's x0
# (a1's link), which listens on UDP and TCP 9999 (IPv4 only), on nothing at
# 9998 and (IPv6, TCP) at 9997.
#   ha16-falsered.sh [SUPERVISOR]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
mkdir -p /tmp/ha16 && chmod 777 /tmp/ha16
review_cc /tmp/ha16/falsered tests/review/ha16-falsered.c || exit 2
d=$(review_stage ha16-falsered "${1:-build/egress-supervisor}" /tmp/ha16/falsered)
. tests/review/ha16-net.sh
ip -n ha16x addr add fe80::1/64 dev x0 nodad
ip -n ha16a addr add fe80::a/64 dev a1 nodad 2>/dev/null
ip netns exec ha16x python3 -c '
import socket
t = socket.socket(socket.AF_INET6, socket.SOCK_STREAM); t.bind(("::", 9997)); t.listen(8)
while True:
    c, p = t.accept(); d = b""
    while True:
        x = c.recv(65536)
        if not x: break
        d += x
    print("ha16x [::]:9997 got TCP %d bytes %r from %s" % (len(d), d.decode(errors="replace"), p[0]), flush=True)
' >>/tmp/ha16/sinks.log 2>&1 &
sleep 1
EXTRA_ALLOW="--allow [fe80::1]:9998 --allow [fe80::1]:9997"
echo "-- unsupervised (the kernel's answers):"
ip netns exec ha16a setpriv --reuid 1000 --regid 1000 --clear-groups "$d/agent" refused 9998 a1
ip netns exec ha16a setpriv --reuid 1000 --regid 1000 --clear-groups "$d/agent" disc 9999 a1
ip netns exec ha16a setpriv --reuid 1000 --regid 1000 --clear-groups "$d/agent" tfo 9997 a1
echo "-- supervised:"
ha16_run refused "$d" "$d/sv" "$d/agent" refused 9998 a1
ha16_run disc "$d" "$d/sv" "$d/agent" disc 9999 a1
ha16_run tfo "$d" "$d/sv" "$d/agent" tfo 9997 a1
ha16_sinks
