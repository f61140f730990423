#!/bin/bash
# ha45-sortprobe.sh: hostile review h-attack45, finding 1: the sort-probe
# rule of d7e44ca (a policy-denied UDP connect to port 0 is recorded
# neutralized) fits glibc only. musl's getaddrinfo probes each address of a
# name that has an IPv6 one on port 65535 (src/network/lookup_name.c,
# da4/da6 .sin_port = 65535), and Go's own resolver (the default for a
# static CGO_ENABLED=0 binary) on port 9 (net/addrselect.go, srcAddrs:
# UDPAddr{Port: 9}): both ports are declarable but never declared by a
# user who names the service's port, so the probes are denials and a
# program that talked only to declared servers fails.
#   tests/review/ha45-sortprobe.sh [RUNS]   (as root; loopback only)
# Legs, each RUNS times, root and uid 1000:
#   glibc-gai  getaddrinfo(two.ha45.test, NULL), glibc build (control: pass)
#   musl-gai   the same, musl build (finding: fail, probes :65535)
#   go-dial    Go LookupIP + Dial of two.ha45.test:P, its resolver asking
#              a DNS server on 127.0.0.1:53 (finding: fail, probes :9);
#              skipped without `go` (Debian golang-go)
# /etc/hosts and /etc/resolv.conf are replaced in a private mount namespace
# only. Every rule is the service's port on each address, --no-loopback.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-3}
sv=${SV:-$top/build/egress-supervisor}
work=$(mktemp -d /tmp/ha45-sortprobe.XXXXXX)
chmod 0755 "$work"
trap 'rm -rf "$work"' EXIT
musl-gcc -std=c11 -D_GNU_SOURCE -O2 -static -pthread -o "$work/agent-musl" "$top/tests/review/ha45-agent.c"
gcc -std=c11 -D_GNU_SOURCE -O2 -pthread -o "$work/agent-glibc" "$top/tests/review/ha45-agent.c"
port=8445
printf '127.0.0.1 localhost\n127.0.0.2 two.ha45.test\n::1 two.ha45.test\n' >"$work/hosts"
printf 'nameserver 127.0.0.1\noptions attempts:1 timeout:2\n' >"$work/resolv.conf"
# nsswitch: hosts from DNS only for the Go leg (Go answers /etc/hosts names
# unsorted), files for the libc legs.
printf 'hosts: dns\n' >"$work/nsswitch.conf"
chmod 0644 "$work"/*.conf "$work/hosts"
have_go=0
if command -v go >/dev/null; then
	mkdir "$work/go"
	cat >"$work/go/main.go" <<'GO'
package main

import (
	"fmt"
	"net"
	"os"
)

func main() {
	ips, err := net.LookupIP(os.Args[1])
	fmt.Println("lookup", ips, err)
	c, err := net.Dial("tcp", net.JoinHostPort(os.Args[1], os.Args[2]))
	fmt.Println("dial", err)
	if err != nil {
		os.Exit(1)
	}
	c.Close()
}
GO
	printf 'module ha45go\n\ngo 1.19\n' >"$work/go/go.mod"
	(cd "$work/go" && CGO_ENABLED=0 GOPROXY=off GOCACHE="$work/gocache" go build -o "$work/agent-go" .)
	have_go=1
fi
cat >"$work/servers.py" <<'PY'
import socket, struct, sys, threading
port = int(sys.argv[1])
def answer(q):
    qid = struct.unpack("!H", q[:2])[0]
    i = 12
    while q[i]:
        i += 1 + q[i]
    qtype = struct.unpack("!H", q[i + 1:i + 3])[0]
    rr = b""
    if qtype == 1:
        rr = b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 60, 4) + socket.inet_aton("127.0.0.2")
    elif qtype == 28:
        rr = b"\xc0\x0c" + struct.pack("!HHIH", 28, 1, 60, 16) + socket.inet_pton(socket.AF_INET6, "::1")
    return struct.pack("!HHHHHH", qid, 0x8180, 1, 1 if rr else 0, 0, 0) + q[12:i + 5] + rr
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("127.0.0.1", 53))
def dns():
    while True:
        q, a = u.recvfrom(4096)
        u.sendto(answer(q), a)
def tcp(fam, addr):
    s = socket.socket(fam)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(64)
    while True:
        s.accept()[0].close()
threading.Thread(target=dns, daemon=True).start()
threading.Thread(target=tcp, args=(socket.AF_INET, "127.0.0.2"), daemon=True).start()
tcp(socket.AF_INET6, "::1")
PY
# shellcheck disable=SC2016 # expanded by the inner bash
unshare --mount --propagation private -- bash -c '
	set -uo pipefail
	sv=$1 work=$2 port=$3 runs=$4 have_go=$5
	mount --bind "$work/hosts" /etc/hosts
	mount --bind "$work/resolv.conf" /etc/resolv.conf
	/usr/bin/python3 "$work/servers.py" "$port" >/dev/null 2>&1 &
	srv=$!
	trap "kill $srv" EXIT
	sleep 1
	allow=(--no-loopback --allow 127.0.0.1:53 --allow "127.0.0.2:$port" --allow "[::1]:$port")
	legs="glibc-gai musl-gai"
	[ "$have_go" = 1 ] && legs="$legs go-dial"
	for leg in $legs; do
		for who in root uid1000; do
			fails=0 probes=""
			for _ in $(seq "$runs"); do
				case $leg in
				glibc-gai) cmd=("$work/agent-glibc" gai two.ha45.test) ;;
				musl-gai) cmd=("$work/agent-musl" gai two.ha45.test) ;;
				go-dial) cmd=(env GODEBUG=netdns=go "$work/agent-go" two.ha45.test "$port") ;;
				esac
				pre=()
				[ "$who" = uid1000 ] && pre=(setpriv --reuid 1000 --regid 1000 --clear-groups)
				rm -f "$work/r.json"
				if [ "$leg" = go-dial ]; then
					# Go reads nsswitch.conf: DNS first, so its sort runs.
					mount --bind "$work/nsswitch.conf" /etc/nsswitch.conf
				fi
				rc=0
				"${pre[@]}" "$sv" "${allow[@]}" --report-fd 3 -- "${cmd[@]}" \
					3>"$work/r.json" >"$work/out" 2>&1 || rc=$?
				[ "$leg" = go-dial ] && umount /etc/nsswitch.conf
				[ "$rc" = 1 ] && fails=$((fails + 1))
				probes=$(grep -o "\"dest\": \"[^\"]*\", \"bucket\": \"denied\"" "$work/r.json" |
					sed "s/\"dest\": //; s/, \"bucket\": \"denied\"//" | sort -u | tr "\n" " ")
			done
			printf "%-9s %-7s fail %d of %d  denied: %s\n" "$leg" "$who" "$fails" "$runs" "$probes"
			grep -E "^(getaddrinfo|dial) " "$work/out" | tail -1 | sed "s/^/  program: /"
			tail -1 "$work/out" | sed "s/^/  /"
		done
	done
' _ "$sv" "$work" "$port" "$runs" "$have_go"
