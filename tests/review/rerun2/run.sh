#!/bin/bash
# shellcheck disable=SC2001 # sed prefixes multi-line output
# rerun2 runner: each case runs the agent under build/egress-supervisor with
# --no-loopback, one declared destination (127.0.0.2:7000), --report-fd on an
# unlinked file and --report FILE; then checks the sink, the report against the
# exit status, and survivors.  Usage: run.sh [CASE...] (default: all)
set -u
HERE=$(cd "$(dirname "$0")" && pwd); TOP=$(cd "$HERE/../../.." && pwd)
SV=${SV:-$TOP/build/egress-supervisor}; OUT=${OUT:-/tmp/rerun2-out}; AG=$OUT/agent
mkdir -p "$OUT"; chmod 1777 "$OUT"
gcc -O1 -static -pthread -o "$AG" "$HERE/agent.c" || exit 2
chmod 755 "$AG"
SINKLOG=$OUT/sink.log; : > "$SINKLOG"; chmod 666 "$SINKLOG"
python3 "$HERE/sink.py" "$SINKLOG" > "$OUT/sink.out" 2>&1 & SINKPID=$!
trap 'kill $SINKPID 2>/dev/null' EXIT
for _ in $(seq 50); do grep -q ready "$OUT/sink.out" 2>/dev/null && break; sleep 0.1; done

U1000=(setpriv --reuid 1000 --regid 1000 --clear-groups)
# sv NAME USER(root|1000) [SVOPTS...] -- AGENTARGS...
sv() {
	local name=$1 user=$2; shift 2
	local opts=(); while [ "$1" != "--" ]; do opts+=("$1"); shift; done; shift
	local pre=(); [ "$user" = 1000 ] && pre=("${U1000[@]}")
	local tmp; tmp=$(mktemp "$OUT/rfd.XXXXXX"); local rep=$OUT/$name.$user.json; rm -f "$rep"
	local before; before=$(wc -l < "$SINKLOG")
	echo "=== $name (user $user) $(date -u +%H:%M:%S)"
	# shellcheck disable=SC2094 # one unlinked file: fd 8 for the supervisor, fd 7 for us to read back
	if [ -n "${APPEND:-}" ]; then exec 8>>"$tmp" 7<"$tmp"; else exec 8>"$tmp" 7<"$tmp"; fi; rm -f "$tmp"
	${LAUNCH:-} ${KILLAFTER:+timeout -s ${KILLSIG:-TERM} $KILLAFTER} "${pre[@]}" "$SV" --no-loopback --allow 127.0.0.2:7000 --report-fd 8 --report "$rep" "${opts[@]}" -- "$AG" "$@" \
		> "$OUT/$name.$user.out" 2> "$OUT/$name.$user.err"
	local code=$?
	exec 8>&-; cat <&7 > "$OUT/$name.$user.stream"; exec 7<&-
	sed 's/^/  | /' "$OUT/$name.$user.out" | head -60
	grep -v '^$' "$OUT/$name.$user.err" | sed 's/^/  ! /' | head -8
	echo "  exit $code"
	python3 "$HERE/check.py" "$OUT/$name.$user.stream" "$rep" "$code"
	# the appliance's own reader and trust rule on the same stream
	python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import cell_result as c, json
body, notes = c.report_from_channel(open(sys.argv[2], "rb").read())
r = json.loads(body) if body else None
print("  cell_result:", notes, "->", (r or {}).get("verdict"), (r or {}).get("complete"), repr((r or {}).get("reason"))[:60],
      "judge:", c.judge_report(int(sys.argv[3]), False, r, None))' "$TOP/initramfs/host" "$OUT/$name.$user.stream" "$code" 2>&1 | tail -3
	sleep "${SETTLE:-0.3}"
	local new; new=$(tail -n +$((before + 1)) "$SINKLOG")
	if [ -n "$new" ]; then echo "$new" | sed 's/^/  sink: /'; else echo "  sink: nothing"; fi
	local alive; alive=$(pgrep -af "$AG" | grep -v -e pgrep -e shm-outsider)
	if [ -n "$alive" ]; then echo "  ALIVE after exit:"; echo "$alive" | sed 's/^/    /'; else echo "  alive: none"; fi
}

case_highbits() { sv highbits root -- highbits; sv highbits 1000 -- highbits; }
case_ia32() { sv ia32 root -- ia32; sv ia32 1000 -- ia32; }
case_noconnect() { sv noconnect root -- noconnect; sv noconnect 1000 -- noconnect; }
case_inbound() { sv inbound root -- inbound; sv inbound 1000 -- inbound; }
case_unconnected() { sv unconnected 1000 -- unconnected; }
case_shm() {
	# an outsider (uid 1000, not in any run) with a 0600 SysV segment; the agent attaches and writes
	local u
	for u in root 1000; do
		"${U1000[@]}" "$AG" shm-outsider 6 > "$OUT/shm-outsider.out" 2> "$OUT/shm-outsider.err" &
		local op=$!; sleep 1
		sv shm-$u "$u" -- shm-agent "$(grep -E '^[0-9]+$' "$OUT/shm-outsider.out")"
		wait $op; sed 's/^/  outsider: /' "$OUT/shm-outsider.err"
	done
}
case_rootfs() { sv rootfs root -- rootfs; sv rootfs 1000 -- rootfs; }
case_reaper() { sv reaper root -- reaper; sv reaper 1000 -- reaper; }
case_cross() {
	# a victim outside the tree, uid 1000, holding a connected socket to the undeclared sink
	"${U1000[@]}" /usr/bin/python3 -c '
import socket,time; s=socket.create_connection(("127.0.0.1",7001)); print(s.fileno(),flush=True); time.sleep(30)' > "$OUT/victim.out" &
	local vp=$!; sleep 0.5; local vfd; vfd=$(cat "$OUT/victim.out")
	local vpid; vpid=$(pgrep -P $vp -f "import socket" || echo $vp)
	sv cross root -- cross "$vpid" "$vfd"; sv cross 1000 -- cross "$vpid" "$vfd"
	kill $vp 2>/dev/null; pkill -P $vp 2>/dev/null; wait $vp 2>/dev/null
}
case_inherit() {
	# fd 3 and 200: TCP connected to the undeclared sink before any filter
	exec 3<>/dev/tcp/127.0.0.1/7001 200<>/dev/tcp/127.0.0.1/7001
	sv inherit-high root -- inherit; exec 3>&- 200>&-
	# stdin: TCP connected to the undeclared sink / to the declared one
	sv inherit-stdin-undeclared root -- inherit < /dev/tcp/127.0.0.1/7001
	sv inherit-stdin-declared 1000 -- inherit < /dev/tcp/127.0.0.2/7000
	# stdin: UDP connected to the declared address (a datagram socket: refused?)
	sv inherit-stdin-udp-declared 1000 -- inherit < /dev/udp/127.0.0.2/7000
	# stdin: a wildcard listener with no connection pending (inetd style)
	LAUNCH="python3 $HERE/stdin-listener.py" sv inherit-stdin-listener root -- inherit
}
case_table() { sv table root -- table; sv table 1000 -- table; sv table-leaderexit 1000 -- table-leaderexit; sv table-rights root -- table-rights; sv table-rights 1000 -- table-rights; }
case_outlive() { sv outlive root -- outlive T1; sv outlive 1000 -- outlive T2; sv killsup 1000 -- killsup; sv killsup root -- killsup; }
case_forever() {
	for sig in TERM KILL; do for u in root 1000; do
		KILLAFTER=3 KILLSIG=$sig SETTLE=2 sv forever-$sig $u -- forever "F-$sig-$u"
	done; done
}
case_interrupt() {
	for _ in 1 2 3; do sv interrupt-timer root -- interrupt 300 0 0; done
	for _ in 1 2; do sv interrupt-thread 1000 -- interrupt 300 1 1; done
	sv interrupt-kill 1000 -- interrupt-kill 200
}
case_forge() {
	# $OUT, where the report file lives, is declared writable to the root
	# agent (a caller's work directory): without it a root agent sees the
	# host's files read-only and nodev, which stops the by-handle reopen
	# for write on its own (EROFS) whatever the capability.
	sv forge-handle root --writable "$OUT" -- forge-handle "$OUT" 400
	sv forge2-pass root --writable "$OUT" -- forge2 "$OUT" 400 0
	sv forge2-fail root --writable "$OUT" -- forge2 "$OUT" 400 1
	APPEND=1 sv forge2-fail-append root --writable "$OUT" -- forge2 "$OUT" 400 1
	sv forge2-fail 1000 -- forge2 "$OUT" 400 1
	# the caller's report file never had a name: O_TMPFILE in $OUT
	echo "=== forge2-otmpfile (user root) $(date -u +%H:%M:%S)"
	python3 "$HERE/tmpfile-launch.py" "$OUT" "$OUT/forge2-otmpfile.stream" "$SV" --no-loopback --allow 127.0.0.2:7000 \
		--report-fd 8 --writable "$OUT" -- "$AG" forge2 "$OUT" 400 1 > "$OUT/forge2-otmpfile.out" 2> "$OUT/forge2-otmpfile.err"
	local code=$?; sed 's/^/  | /' "$OUT/forge2-otmpfile.out"; echo "  exit $code"
	python3 "$HERE/check.py" "$OUT/forge2-otmpfile.stream" /nonexistent "$code"
	python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import cell_result as c, json
body, notes = c.report_from_channel(open(sys.argv[2], "rb").read())
r = json.loads(body) if body else None
print("  cell_result:", notes, "->", (r or {}).get("verdict"), (r or {}).get("complete"), repr((r or {}).get("reason"))[:60],
      "judge:", c.judge_report(int(sys.argv[3]), False, r, None))' "$TOP/initramfs/host" "$OUT/forge2-otmpfile.stream" "$code"
}

CASES=${*:-highbits ia32 noconnect inbound unconnected rootfs shm reaper cross inherit table outlive interrupt forge}
for c in $CASES; do "case_$c"; done
echo "=== sink log total"; cat "$SINKLOG"
