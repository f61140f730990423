#!/bin/bash
# ha34-sinkfill.sh: hostile review h-attack34. The guest's ground truth (the
# sink's log, $W/sink.log) lives on the guest's one /tmp tmpfs, the same
# file system as the agent's writable /tmp/sv. An agent that fills it
# before it sends makes the sink's record of the arrival fail (ENOSPC): the
# sink says so only on stderr and still exits 0, init checks sink.err only
# for "stop unproven", and the host's oracle sees no arrival.
#
# Here on the host, as root, in a network and mount namespace of its own
# (loopback only): the real egress-sink (initramfs/guest/sink.c) with its
# log on a 256 KiB tmpfs, one datagram to 127.0.0.1:9999, once with room
# (control) and once with the tmpfs full; then the real oracle
# (initramfs/host/cell_result.py oracle_evaluate) on each log, for a cell
# whose policy does not declare 127.0.0.1:9999 (loopback=no).
#
#   tests/review/ha34-sinkfill.sh [RUNS]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-3}
work=$(mktemp -d /tmp/ha34-sinkfill.XXXXXX)
trap 'rm -rf "$work"' EXIT
musl-gcc -D_GNU_SOURCE -O2 -static -o "$work/egress-sink" "$top/initramfs/guest/sink.c"

one() { # fill(0|1) -> prints the sink's log path
	local fill=$1
	mkdir -p "$work/fs.$fill.$2"
	unshare -n -m bash -s "$work" "$fill" "$2" <<'EOF'
set -euo pipefail
work=$1 fill=$2 n=$3
d=$work/fs.$fill.$n
ip link set lo up
mount -t tmpfs -o size=256k tmpfs "$d"
"$work/egress-sink" --log "$d/sink.log" --ready "$d/ready" udp 127.0.0.1:9999 \
	2>"$work/sink.err.$fill.$n" &
sink=$!
for _ in $(seq 100); do [ -e "$d/ready" ] && break; sleep 0.05; done
if [ "$fill" = 1 ]; then
	# The agent: fill the file system the sink writes to.
	dd if=/dev/zero of="$d/junk" bs=4k 2>/dev/null || true
fi
python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b"exfiltrated", ("127.0.0.1", 9999))'
sleep 0.3
# ... and give the room back before it exits: init's own writes succeed.
rm -f "$d/junk"
kill -TERM "$sink"
rc=0
wait "$sink" || rc=$?
echo "sink exit $rc"
cp "$d/sink.log" "$work/sink.log.$fill.$n"
umount "$d"
EOF
}

cell=$(printf 'cell=ha34-sinkfill\nscenario=ha34-sinkfill\nexpect=pass\nloopback=no\nsink=udp 127.0.0.1:9999\n')
for n in $(seq "$runs"); do
	for fill in 0 1; do
		echo "== run $n, $([ "$fill" = 1 ] && echo "tmpfs full" || echo "control: room")"
		one "$fill" "$n"
		sed 's/^/  sink stderr: /' "$work/sink.err.$fill.$n"
		echo "  sink log lines: $(wc -l <"$work/sink.log.$fill.$n")"
		CELL="$cell" python3 - "$top/initramfs/host" "$work/sink.log.$fill.$n" <<'EOF'
import os, sys
sys.path.insert(0, sys.argv[1])
import cell_result as C
sections = {"sink_log": open(sys.argv[2], "rb").read(), "agent_log": b"", "_verdict": "pass"}
facts = C.oracle_evaluate(os.environ["CELL"].encode(), sections, None, "none")
print("  oracle: arrivals", facts.get("arrivals"), "problems", facts["problems"] or "none")
EOF
	done
done
