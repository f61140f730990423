#!/usr/bin/env bash
# Review h-attack46, brief item 1: false reds left for common resolvers
# after 456e269 (sort-probe ports 0, 9, 65535)? Each client resolves a name
# of two declared addresses from a private /etc/hosts (two.sv.test:
# 127.0.0.2 and 127.0.0.3; six.sv.test: 127.0.0.2 and ::1) and connects
# to port 8080, where a listener answers on every address. Policy:
# --no-loopback and the addresses declared two ways: by address (every
# port) and by address:8080 only. A false red is a `fail` here: the program
# talked to declared addresses only. Host, loopback only.
#   make supervisor agents; tests/review/ha46-resolvers.sh [RUNS]
# Needs root (a private mount namespace for /etc/hosts). Clients not on the
# machine are skipped. Exit 0 when no client failed the run.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD:-$top/build}
runs=${1:-5}
tmp=$(mktemp -d)
lpid=
trap '[ -z "$lpid" ] || kill "$lpid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
printf '127.0.0.2 two.sv.test\n127.0.0.3 two.sv.test\n127.0.0.2 six.sv.test\n::1 six.sv.test\n' >"$tmp/hosts"
chmod 644 "$tmp/hosts"
python3 - "$tmp/ready" <<'PY' &
import select, socket, sys
ss = []
for fam, a in ((socket.AF_INET, "127.0.0.2"), (socket.AF_INET, "127.0.0.3"), (socket.AF_INET6, "::1")):
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((a, 8080))
    s.listen(64)
    ss.append(s)
open(sys.argv[1], "w").close()
while True:
    for s in select.select(ss, [], [])[0]:
        c, _ = s.accept()
        c.close()
PY
lpid=$!
while [ ! -e "$tmp/ready" ]; do sleep 0.05; done

# Small clients built here (skipped when the toolchain is missing).
cat >"$tmp/r.rs" <<'RS'
use std::net::TcpStream;
fn main() {
    let a = std::env::args().nth(1).unwrap();
    match TcpStream::connect(a.as_str()) {
        Ok(s) => println!("connected {:?}", s.peer_addr()),
        Err(e) => { println!("connect: {}", e); std::process::exit(1) }
    }
}
RS
cat >"$tmp/main.go" <<'GO'
package main

import (
	"fmt"
	"net"
	"os"
)

func main() {
	c, err := net.Dial("tcp", os.Args[1])
	if err != nil {
		fmt.Println("dial:", err)
		os.Exit(1)
	}
	fmt.Println("connected", c.RemoteAddr())
	c.Close()
}
GO
cat >"$tmp/aio.py" <<'PY'
import asyncio, sys
async def main(host):
    r, w = await asyncio.open_connection(host, 8080, happy_eyeballs_delay=0.25)
    print("connected", w.get_extra_info("peername"))
    w.close()
asyncio.run(main(sys.argv[1]))
PY
cat >"$tmp/node.js" <<'JS'
const net = require("net");
const s = net.connect({host: process.argv[2], port: 8080, autoSelectFamily: true}, () => {
  console.log("connected", s.remoteAddress); s.end(); });
s.on("error", (e) => { console.log("error", e.message); process.exit(1); });
JS
if command -v rustc >/dev/null; then rustc -O -o "$tmp/rust" "$tmp/r.rs" 2>/dev/null || true; fi
if command -v go >/dev/null; then
	(cd "$tmp" && CGO_ENABLED=1 go build -tags netcgo -o gocgo main.go) 2>/dev/null || true
fi

clients=()
add() { clients+=("$1|$2"); }
[ -x "$tmp/rust" ] && add rust-std "$tmp/rust NAME:8080"
[ -x "$tmp/gocgo" ] && add go-cgo "$tmp/gocgo NAME:8080"
add python-asyncio "$(command -v python3) $tmp/aio.py NAME"
command -v node >/dev/null && add node-autoselect "$(command -v node) $tmp/node.js NAME"
command -v curl >/dev/null && add curl "$(command -v curl) -s -o /dev/null --max-time 5 http://NAME:8080/"
command -v getent >/dev/null && add getent "$(command -v getent) ahosts NAME"

fails=0
for name in two.sv.test six.sv.test; do
	for how in address port; do
		if [ "$how" = address ]; then
			pol=(--allow 127.0.0.2 --allow 127.0.0.3 --allow '[::1]')
		else
			pol=(--allow 127.0.0.2:8080 --allow 127.0.0.3:8080 --allow '[::1]:8080')
		fi
		for c in "${clients[@]}"; do
			label=${c%%|*}
			cmd=${c#*|}
			cmd=${cmd//NAME/$name}
			bad=0
			for _ in $(seq "$runs"); do
				rc=0
				# shellcheck disable=SC2086,SC2016 # cmd is words; $1 is sh's
				unshare -m sh -c 'mount --bind "$1" /etc/hosts && shift && exec "$@"' sh \
					"$tmp/hosts" "$build/egress-supervisor" --no-loopback "${pol[@]}" \
					--report "$tmp/r.json" -- $cmd >"$tmp/out" 2>&1 || rc=$?
				[ "$rc" -eq 0 ] || bad=$((bad + 1))
			done
			probes=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
ev = r.get("events") or []
print(" ".join(sorted({"%s:%s:%s" % (e.get("bucket"), e.get("reason"), e.get("dest")) for e in ev
      if e.get("syscall") == "connect" and e.get("bucket") != "allowed"})) or "-")' "$tmp/r.json")
			printf '%-15s %-12s declared-by-%-7s fail %d of %d  not-allowed connects: %s\n' \
				"$label" "$name" "$how" "$bad" "$runs" "$probes"
			fails=$((fails + bad))
		done
	done
done
[ "$fails" -eq 0 ]
