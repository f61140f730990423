#!/bin/bash
# ha45-attacks.sh: hostile review h-attack45, what HELD against d7e44ca
# (the sort-probe rule) and dcd1c5b (the phases of the reaper's calls).
# Each leg runs the supervisor RUNS times as root and as uid 1000, with
# --no-loopback and 127.0.0.2:9 and [::1]:9 declared, and prints the
# agent's lines, the verdict and the sort-probe/denied events:
#   udp0-v4      UDP connect to 192.0.2.1:0: refused, socket unconnected,
#                send() EDESTADDRREQ; neutralized sort-probe, pass
#   udp0-mapped  the same on AF_INET6 to [::ffff:192.0.2.1]:0
#   udp0-any     [::]:0 and 0.0.0.0:0: denied unspecified-address (no rule
#                to bypass: the probe rule needs reason "policy")
#   udplite0     UDP-Lite: the socket itself is refused
#   connected    a UDP socket connected to the declared 127.0.0.2:9, then
#                connect 192.0.2.1:0: refused, still connected to
#                127.0.0.2:9, the send goes there
#   tcp0         TCP connect to 192.0.2.1:0: denied, fail
#   race         3000 connects of fd 100 to 192.0.2.1:0 while a thread
#                dup2()s a TCP and a UDP socket over fd 100: every one
#                EACCES, neither socket connected after; the records split
#                between neutralized and denied (a label, nothing is done)
#   phase        the reaper's call forged from the agent and its child
#                (connect(-1, 1|2, 0) 50 times each): invalid bad-length,
#                bracketing_calls 2, id_range closed
#   tests/review/ha45-attacks.sh [RUNS]   (as root; loopback only)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-1}
sv=${SV:-$top/build/egress-supervisor}
work=$(mktemp -d /tmp/ha45-attacks.XXXXXX)
chmod 0755 "$work"
mkdir -m 1777 "$work/rep"
trap 'rm -rf "$work"' EXIT
musl-gcc -std=c11 -D_GNU_SOURCE -O2 -static -pthread -o "$work/agent" "$top/tests/review/ha45-agent.c"
legs=(
	"udp0-v4:udp0 192.0.2.1 17"
	"udp0-mapped:udp0 ::ffff:192.0.2.1 17"
	"udp0-any6:udp0 :: 17"
	"udp0-any4:udp0 0.0.0.0 17"
	"udplite0:udp0 192.0.2.1 136"
	"connected:connected 127.0.0.2 192.0.2.1"
	"tcp0:tcp0 192.0.2.1"
	"race:race 192.0.2.1 3000"
	"phase:phase 50"
)
for leg in "${legs[@]}"; do
	name=${leg%%:*}
	read -r -a args <<<"${leg#*:}"
	for who in root uid1000; do
		for _ in $(seq "$runs"); do
			pre=()
			[ "$who" = uid1000 ] && pre=(setpriv --reuid 1000 --regid 1000 --clear-groups)
			rc=0
			rm -f "$work/rep/r.json"
			"${pre[@]}" "$sv" --no-loopback --allow 127.0.0.2:9 --allow '[::1]:9' --report "$work/rep/r.json" \
				-- "$work/agent" "${args[@]}" >"$work/out" 2>"$work/err" || rc=$?
			echo "== $name $who: supervisor exit $rc"
			sed 's/^/   /' "$work/out"
			python3 - "$work/rep/r.json" <<'PY'
import collections, json, sys
r = json.load(open(sys.argv[1]))
c = collections.Counter((e["syscall"], e["bucket"], e["reason"]) for e in r["events"])
print("   verdict %s; receivers %s" % (r["verdict"], {k: r["receivers"][k] for k in ("id_range", "bracketing_calls", "withdrawn_unseen")}))
for (sc, b, why), n in sorted(c.items()):
    print("   %5d %s %s %s" % (n, sc, b, why))
PY
		done
	done
done
