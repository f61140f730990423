#!/bin/bash
# ha4-run.sh: builds ha4-mmsg and ha4-bigctl against this worktree's build/
# and runs each mode unsupervised (a UDP listener on 127.0.0.2 counts what the kernel
# sends) and under build/egress-supervisor (--no-loopback: 127.0.0.2 is
# undeclared; SV=binary for another build, e.g. a mutant). The hole shows as
# supervisor exit 0 (pass) with the sendmmsg filed invalid/bad-address while
# unsupervised the kernel sent the first datagram (result 1). Loopback only.
# Run from the worktree after `make`.
set -euo pipefail
B=$PWD/build
SV=${SV:-$B/egress-supervisor}
# shellcheck source=tests/review/review-cc.sh
. tests/review/review-cc.sh
review_cc "$B/ha4-mmsg" tests/review/ha4-mmsg.c
review_cc "$B/big-control" tests/agents/big-control.c
port=4470
listen() {
	python3 - "$1" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.2", int(sys.argv[1])))
open("/tmp/ha4.ready", "w").close()
s.settimeout(1.5)
n = 0
try:
    while True:
        s.recv(100)
        n += 1
except OSError:
    pass
print("  listener 127.0.0.2:%s got %d datagram(s)" % (sys.argv[1], n))
PY
	while [ ! -e /tmp/ha4.ready ]; do sleep 0.05; done
	rm -f /tmp/ha4.ready
}
rm -f /tmp/ha4.ready
one() {
	local tag=$1
	shift
	port=$((port + 1))
	echo "== $tag: unsupervised"
	listen "$port"
	"$@" "127.0.0.2:$port"
	wait
	echo "== $tag: supervised"
	listen "$port"
	set +e
	"$SV" --no-loopback --report "/tmp/ha4.$tag.json" -- "$@" "127.0.0.2:$port" 2>&1 |
		grep -v 'warning:'
	echo "  supervisor exit ${PIPESTATUS[0]}"
	set -e
	review_print_report "/tmp/ha4.$tag.json"
	wait
}
for mode in ok name iov control wrap; do
	one "mmsg-$mode" "$B/ha4-mmsg" "$mode"
done
# Control data over the supervisor's 64 KiB cap, under the kernel's
# net.core.optmem_max (cat /proc/sys/net/core/optmem_max): 60000 is the
# control (denied: a control message the supervisor does not forward).
for mode in sendmsg mmsg; do
	for n in 60000 70000; do
		one "bigctl-$mode-$n" "$B/big-control" "$mode" "$n"
	done
done
