#!/bin/bash
# shellcheck disable=SC2016 # the inner bash -c scripts expand their own $1
# ha34-probe.sh: hostile review h-attack34. sendto(..., MSG_PROBE, name)
# on a UDP socket: the supervisor performs it with the agent's flags, the
# kernel returns the length and sends nothing (ip_make_skb/ip_append_data
# return at once for MSG_PROBE). The report records an allowed, performed
# send with result 13 and no errno, which the appliance's oracle
# (cell_result.py reported_deliveries) counts as a delivery the sink must
# have seen: oracle-mismatch ("performed ... but the sink saw 0") for a run
# where nothing was wrong. A false red; no data moves.
#
# In a network namespace of its own (loopback only): the real egress-sink
# on udp 127.0.0.1:9999, the supervisor (root or uid 1000) running
# `ha34-agent probe 127.0.0.1 9999`, then the oracle on the sink's log and
# the report's last record.
#
#   tests/review/ha34-probe.sh [RUNS]     (as root)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-3}
work=$(mktemp -d /tmp/ha34-probe.XXXXXX)
chmod 0777 "$work"
trap 'rm -rf "$work"' EXIT
musl-gcc -D_GNU_SOURCE -O2 -static -pthread -o "$work/ha34-agent" "$top/tests/review/ha34-agent.c"
musl-gcc -D_GNU_SOURCE -O2 -static -o "$work/egress-sink" "$top/initramfs/guest/sink.c"
cp "$top/build/egress-supervisor" "$work/sv"
cell=$(printf 'cell=ha34-probe\nscenario=ha34-probe\nexpect=pass\nsink=udp 127.0.0.1:9999\n')

for n in $(seq "$runs"); do
	for who in root uid1000; do
		as=()
		[ "$who" = root ] || as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
		rm -f "$work/sink.log" "$work/ready" "$work/copy" "$work/agent.out"
		: >"$work/chan"
		chown 1000 "$work/chan"
		rc=$(unshare -n bash -s "$work" "${as[@]}" <<'EOF'
work=$1
shift
ip link set lo up
"$work/egress-sink" --log "$work/sink.log" --ready "$work/ready" udp 127.0.0.1:9999 2>/dev/null &
sink=$!
for _ in $(seq 100); do [ -e "$work/ready" ] && break; sleep 0.05; done
"$@" bash -c 'exec 9<>"$1/chan"; rm "$1/chan"
	"$1/sv" --report-fd 9 -- "$1/ha34-agent" probe 127.0.0.1 9999 >"$1/agent.out" 2>/dev/null
	rc=$?; cat /dev/fd/9 >"$1/copy"; exit $rc' _ "$work"
rc=$?
sleep 0.2
kill -TERM "$sink"
wait "$sink"
echo "$rc"
EOF
)
		echo "== run $n ($who): supervisor exit $rc; agent: $(cat "$work/agent.out")"
		CELL="$cell" python3 - "$top/initramfs/host" "$work/copy" "$work/sink.log" <<'EOF'
import json, os, sys
sys.path.insert(0, sys.argv[1])
import cell_result as C
body, _ = C.report_from_channel(open(sys.argv[2], "rb").read())
r = json.loads(body)
for e in r["events"]:
    print(f"  report: {e['syscall']} {e['dest']} {e['bucket']} {e['action']} "
          f"result={e['result']} errno={e['errno']}; verdict {r['verdict']}")
sink = open(sys.argv[3], "rb").read()
print(f"  sink log lines: {len(sink.splitlines())}")
facts = C.oracle_evaluate(os.environ["CELL"].encode(),
                          {"sink_log": sink, "agent_log": b""}, r)
print("  oracle:", facts["problems"] or "no problem")
EOF
	done
done
