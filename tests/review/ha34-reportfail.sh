#!/bin/bash
# shellcheck disable=SC2016 # the inner bash -c scripts expand their own $1
# ha34-reportfail.sh: hostile review h-attack34. With both --report-fd and
# --report FILE, sv_report_write() writes the final record to the descriptor
# first and FILE second; when FILE fails the supervisor exits 3
# (capability-error) but the descriptor, the channel the agent cannot
# write, already ends in a complete record that says pass. The agent makes
# FILE fail from inside a run that did nothing: uid 1000 chmods FILE's
# directory (its own) to 0555; a root agent renames the directory (under
# a --writable path). The design says a complete record that disagrees with
# the exit status "was not written by a supervisor that finished"; this one
# was, and the appliance's judge_report calls it false-green.
#
#   tests/review/ha34-reportfail.sh [RUNS]     (as root; loopback only)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-3}
work=$(mktemp -d /tmp/ha34-reportfail.XXXXXX)
chmod 0777 "$work"
trap 'rm -rf "$work"' EXIT
musl-gcc -D_GNU_SOURCE -O2 -static -pthread -o "$work/ha34-agent" "$top/tests/review/ha34-agent.c"
cp "$top/build/egress-supervisor" "$work/sv"
U=(setpriv --reuid 1000 --regid 1000 --clear-groups)

judge() { # channel copy, exit status
	python3 - "$top/initramfs/host" "$1" "$2" <<'EOF'
import json, sys
sys.path.insert(0, sys.argv[1])
import cell_result as C
body, notes = C.report_from_channel(open(sys.argv[2], "rb").read())
r = json.loads(body)
print(f"  exit {sys.argv[3]}; --report-fd: {notes[-1]}: complete={r['complete']} "
      f"verdict={r['verdict']}")
for want in ("pass", "fail"):
    print(f"  judge_report(expect {want}):", C.judge_report(int(sys.argv[3]), None, r, want))
EOF
}

for n in $(seq "$runs"); do
	echo "== run $n: uid 1000, the agent chmods the report's directory 0555"
	rm -rf "$work/rdir"
	mkdir "$work/rdir"
	chown 1000:1000 "$work/rdir"
	: >"$work/chan"
	chown 1000 "$work/chan"
	rc=0
	"${U[@]}" bash -c 'exec 9<>"$1/chan"; rm "$1/chan"
		"$1/sv" --report-fd 9 --report "$1/rdir/r.json" -- "$1/ha34-agent" chmod "$1/rdir" 555 \
			>/dev/null 2>"$1/err"
		rc=$?; cat /dev/fd/9 >"$1/copy"; exit $rc' _ "$work" || rc=$?
	grep 'cannot write' "$work/err" | sed 's/^/  /'
	judge "$work/copy" "$rc"

	echo "== run $n: root, the agent renames the report's directory (under --writable)"
	rm -rf "$work/wr" "$work/wr.gone"
	mkdir -p "$work/wr/rdir"
	rc=0
	bash -c 'exec 9<>"$1/chan"; rm "$1/chan"
		"$1/sv" --report-fd 9 --writable "$1/wr" --report "$1/wr/rdir/r.json" \
			-- "$1/ha34-agent" rename "$1/wr/rdir" >/dev/null 2>"$1/err"
		rc=$?; cat /dev/fd/9 >"$1/copy"; exit $rc' _ "$work" || rc=$?
	grep 'cannot write' "$work/err" | sed 's/^/  /'
	judge "$work/copy" "$rc"

	echo "== run $n: root, FILE not agent-writable; the agent fills a declared directory beside it"
	rc=0
	unshare -m bash -c 'mount --make-rprivate /; mkdir -p "$1/small"
		mount -t tmpfs -o size=512k tmpfs "$1/small"; mkdir "$1/small/rep" "$1/small/w"
		exec 9<>"$1/chan"; rm "$1/chan"
		"$1/sv" --report-fd 9 --writable "$1/small/w" --report "$1/small/rep/r.json" \
			-- "$1/ha34-agent" fill "$1/small/w/junk" >/dev/null 2>"$1/err"
		rc=$?; cat /dev/fd/9 >"$1/copy"; exit $rc' _ "$work" || rc=$?
	grep -c 'warning' "$work/err" | sed 's/^/  warnings on stderr: /' || true
	grep 'cannot write' "$work/err" | sed 's/^/  /'
	judge "$work/copy" "$rc"
done
