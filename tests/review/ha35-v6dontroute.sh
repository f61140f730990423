#!/bin/bash
# ha35-v6dontroute.sh (hostile review h-attack35): the IPv6 half of
# ha35-dontroute.sh, unsupervised (the kernel's behaviour only). Namespace
# ha35v6a has a default route through a router on a0 and a fallback
# `default dev a1 metric 2000` (no gateway); ha35v6x on a1's link holds
# 2001:db8:9::7. A datagram to 2001:db8:9::7 is sent plainly and with
# MSG_DONTROUTE: on 6.18 neither reaches ha35v6x (IPv6 has no link-scope
# lookup for "don't route"), so only IPv4 and v4-mapped sends are steered.
# Host, as root.
set -uo pipefail
ns=(ha35v6a ha35v6x ha35v6r)
down() { for n in "${ns[@]}"; do ip netns del "$n" 2>/dev/null; done; }
# shellcheck source=tests/review/review-lock.sh
. "$(dirname "$0")/review-lock.sh"
review_lock ha35v6a || exit 2 # one run at a time: the next one's down would take these
trap 'down; review_unlock ha35v6a' EXIT
down
for n in "${ns[@]}"; do ip netns add "$n" && ip -n "$n" link set lo up; done
ip link add a0 netns ha35v6a type veth peer name r0 netns ha35v6r
ip link add a1 netns ha35v6a type veth peer name x0 netns ha35v6x
ip -n ha35v6a addr add 2001:db8:1::1/64 dev a0 nodad
ip -n ha35v6a addr add 2001:db8:2::1/64 dev a1 nodad
ip -n ha35v6r addr add 2001:db8:1::fe/64 dev r0 nodad
ip -n ha35v6x addr add 2001:db8:2::66/64 dev x0 nodad
ip -n ha35v6x addr add 2001:db8:9::7/128 dev x0 nodad
ip -n ha35v6a link set a0 up
ip -n ha35v6a link set a1 up
ip -n ha35v6r link set r0 up
ip -n ha35v6x link set x0 up
ip -n ha35v6a -6 route add default via 2001:db8:1::fe dev a0
ip -n ha35v6a -6 route add default dev a1 metric 2000
ip -n ha35v6a -6 route | sed 's/^/  /'
ip netns exec ha35v6x timeout 8 python3 -c '
import socket
u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); u.bind(("::", 9999)); u.settimeout(3)
try:
    while True: print("UNDECLARED host ha35v6x got", u.recvfrom(100)[0])
except OSError: print("ha35v6x: nothing more")' &
sleep 0.5
ip netns exec ha35v6a python3 -c '
import socket
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
for f, name in ((0, "plain"), (socket.MSG_DONTROUTE, "MSG_DONTROUTE")):
    try: print("agent", name, s.sendto(b"v6 secret " + name.encode(), f, ("2001:db8:9::7", 9999)))
    except OSError as e: print("agent", name, e)'
wait
