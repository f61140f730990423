#!/bin/bash
# Finding 2 of review h-realprog2: Chromium's network service learns whether
# IPv6 is globally reachable by connecting a UDP socket to
# [2001:4860:4860::8888]:443 and reading its local address; it sends nothing
# there. Under the supervisor the connect is denied (`policy`) and the run
# fails whatever was declared. This does what Chromium does, nothing more
# (the connect is refused by the supervisor before the kernel sees it).
#   tests/review/hr2-udpprobe.sh build/egress-supervisor
set -euo pipefail
sv=$(realpath "$1")
probe='import socket
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
try:
    s.connect(("2001:4860:4860::8888", 443)); print("reachable", s.getsockname()[0])
except OSError as e:
    print("unreachable:", e.strerror)'
for who in root uid1000; do
	pre=()
	[ "$who" = uid1000 ] && pre=(setpriv --reuid=1000 --regid=1000 --clear-groups)
	rc=0
	out=$("${pre[@]}" "$sv" --no-loopback --allow 127.0.0.1:8080 -- /usr/bin/python3 -c "$probe" 2>&1) || rc=$?
	printf '%-8s supervisor exit %d: %s\n' "$who" "$rc" "$(tr '\n' ' ' <<<"$out")"
done
