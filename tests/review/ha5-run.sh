#!/bin/bash
# ha5-run.sh: builds ha5-rights against this worktree's build/ and runs each
# mode unsupervised and under build/egress-supervisor (--no-loopback
# --allow 127.0.0.1:PORT: 127.0.0.1 is declared, 127.0.0.2 is not; SV=binary
# for another build, e.g. a mutant). UDP listeners on both count what
# arrives. The hole shows as a pass (exit 0) with the sendmmsg filed invalid
# while unsupervised the kernel sent a datagram to 127.0.0.2. Loopback only.
# CORK=1 also runs build/agents/sendmmsg-batch --cork GOOD @badctl BAD (a
# malformed control appended to a pending datagram, then an undeclared
# message). Run from the worktree after `make build agents`.
set -euo pipefail
B=$PWD/build
SV=${SV:-$B/egress-supervisor}
# shellcheck source=tests/review/review-cc.sh
. tests/review/review-cc.sh
review_cc "$B/ha5-rights" tests/review/ha5-rights.c
port=4570
listen() {
	python3 - "$1" <<'PY' &
import socket, sys
socks = []
for host in ("127.0.0.1", "127.0.0.2"):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((host, int(sys.argv[1])))
    s.settimeout(0.1)
    socks.append((host, s))
open("/tmp/ha5.ready", "w").close()
import time
got = {h: 0 for h, _ in socks}
end = time.time() + 1.5
while time.time() < end:
    for h, s in socks:
        try:
            s.recv(100)
            got[h] += 1
        except OSError:
            pass
print("  listeners:", ", ".join("%s:%s got %d" % (h, sys.argv[1], n) for h, n in got.items()))
PY
	while [ ! -e /tmp/ha5.ready ]; do sleep 0.05; done
	rm -f /tmp/ha5.ready
}
rm -f /tmp/ha5.ready
agent() {
	if [ "$mode" = cork ]; then
		"$@" "$B/agents/sendmmsg-batch" --cork "127.0.0.1:$port" @badctl "127.0.0.2:$port"
	else
		"$@" "$B/ha5-rights" "$mode" "127.0.0.1:$port" "127.0.0.2:$port"
	fi
}
modes=${MODES:-many badfd payload single-badfd}
[ -n "${CORK:-}" ] && modes="$modes cork"
for mode in $modes; do
	port=$((port + 1))
	echo "== $mode: unsupervised"
	listen "$port"
	agent env
	wait
	echo "== $mode: supervised"
	listen "$port"
	set +e
	agent "$SV" --no-loopback --allow "127.0.0.1:$port" --report "/tmp/ha5.$mode.json" -- \
		2>&1 | grep -v 'warning:'
	echo "  supervisor exit ${PIPESTATUS[0]}"
	set -e
	review_print_report "/tmp/ha5.$mode.json"
	wait
done
