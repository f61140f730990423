#!/bin/bash
# ha3-run.sh: builds the ha3-* reproductions against this worktree's build/
# and runs each twice, unsupervised (the kernel reads the name: the
# connection reaches the listener) and under build/egress-supervisor
# (--no-loopback: 127.0.0.2 is undeclared; SV=binary for another build, e.g.
# a mutant). A hole shows as "pass" with the
# connect filed invalid/bad-address. Loopback only. Run from the worktree.
set -euo pipefail
B=$PWD/build
SV=${SV:-$B/egress-supervisor}
# shellcheck source=tests/review/review-cc.sh
. tests/review/review-cc.sh
for a in ha3-longline ha3-noread; do
	review_cc "$B/$a" "tests/review/$a.c"
done
port=4460
listen() {
	python3 - "$1" <<'PY' &
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.2", int(sys.argv[1])))
s.listen(16)
open("/tmp/ha3.ready", "w").close()
s.settimeout(2)
n = 0
try:
    while True:
        s.accept()
        n += 1
except OSError:
    pass
print("  listener 127.0.0.2:%s saw %d connection(s)" % (sys.argv[1], n))
PY
	while [ ! -e /tmp/ha3.ready ]; do sleep 0.05; done
	rm -f /tmp/ha3.ready
}
one() {
	local tag=$1
	shift
	port=$((port + 1))
	echo "== $tag: unsupervised"
	listen "$port"
	"$@" "127.0.0.2:$port" | grep -v '"mprotect"\|long_line' || true
	wait
	echo "== $tag: supervised"
	listen "$port"
	set +e
	"$SV" --no-loopback --report "/tmp/ha3.$tag.json" -- "$@" "127.0.0.2:$port" \
		2>&1 | grep -v 'warning:\|"mprotect"\|long_line'
	echo "  supervisor exit ${PIPESTATUS[0]}"
	set -e
	python3 -c 'import json,sys
for e in json.load(open(sys.argv[1]))["events"]:
    print("  event", e.get("syscall"), e.get("bucket"), e.get("reason"), e.get("mechanism_errno"))' "/tmp/ha3.$tag.json"
	wait
}
rm -f /tmp/ha3.ready
one longline-control "$B/ha3-longline" plain
one longline "$B/ha3-longline" long
one exec-only "$B/ha3-noread" exec
one write-only "$B/ha3-noread" write
one prot-none-control "$B/ha3-noread" none
