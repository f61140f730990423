#!/bin/bash
# ha57-host.sh: hostile review h-attack57, host leg (as root, no VM): fresh
# variants of issue 11's six classes (ha57-agent.c's modes) against an
# undeclared sink on 127.0.0.1 (--no-loopback, nothing allowed), as a root
# agent and as uid 1000. Each run prints the exit status, whether the sink
# got the mode's secret, and the report's events (bucket/reason).
#   tests/review/ha57-host.sh [N]   (N runs per mode and user; MODES=..., USERS=...)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-1}
sv=${SUPERVISOR:-$top/build/egress-supervisor}
port=${HA57_PORT:-47157}
work=$(mktemp -d /tmp/ha57.XXXXXX)
chmod 755 "$work"
sink=
cleanup() {
	if [ -n "$sink" ]; then
		kill "$sink" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
musl-gcc -D_GNU_SOURCE -O2 -static -no-pie -isystem "$top/build/kheaders" \
	-o "$work/agent" "$top/tests/review/ha57-agent.c"
cp "$sv" "$work/sv"
python3 "$top/tests/review/ha57-sink.py" "$port" "$work/got" &
sink=$!
sleep 0.5
mkdir -m 777 "$work/r"
modes=${MODES:-hb-addrlen hb-fd hb-flags hb-opt hb-socket hb-ioctl i386 families fastopen splice cmsg listen scm helpers}
for who in ${USERS:-root u1000}; do
	pre=()
	if [ "$who" = u1000 ]; then
		pre=(setpriv --reuid 1000 --regid 1000 --clear-groups)
	fi
	for mode in $modes; do
		# The control run without the supervisor; never for helpers, which
		# as the host's root would mount over the host's /tmp.
		if [ "$mode" != helpers ]; then
			: >"$work/got"
			"${pre[@]}" "$work/agent" "$mode" "$port" >/dev/null 2>&1 || true
			sleep 0.3
			echo "UNSUPERVISED $who $mode: sink lines: $(grep -c "ha57secret-$mode" "$work/got" || true)"
		fi
		for i in $(seq "$n"); do
			: >"$work/got"
			rm -f "$work/r/rep"
			set +e
			(cd "$work/r" && timeout -s KILL 60 "${pre[@]}" "$work/sv" --no-loopback \
				--report "$work/r/rep" -- "$work/agent" "$mode" "$port" mounts-ok >"$work/out" 2>"$work/err")
			rc=$?
			set -e
			sleep 0.3
			hits=$(grep -c "ha57secret-$mode" "$work/got" || true)
			rec=$(python3 -c 'import json,sys,collections
r=json.load(open(sys.argv[1]))
c=collections.Counter("%s/%s/%s" % (e.get("syscall"), e.get("bucket"), e.get("reason")) for e in r.get("events", []))
print(r.get("verdict"), " ".join("%dx%s" % (v, k) for k, v in sorted(c.items())))' "$work/r/rep" 2>/dev/null || echo "no report")
			echo "RUN $who $mode $i: exit $rc, sink hits $hits, report: $rec"
			[ "$hits" = 0 ] || echo "  EGRESS $who $mode: $(head -3 "$work/got" | tr '\n' ' ')"
			sed 's/^/  /' "$work/out"
			grep -v '^$' "$work/err" | head -3 | sed 's/^/  stderr: /' || true
		done
	done
done
