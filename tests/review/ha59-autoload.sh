#!/bin/bash
# ha59-autoload.sh: hostile review h-attack59, target 3, host leg (as root,
# no VM): runs ha59-autoload.c under the supervisor as root and as uid
# 1000 (setpriv, supervisor and agent both uid 1000), and prints each
# call's errno and what the report recorded of it. None of these calls is
# trapped today: nothing is recorded, and each ENOPKG means the kernel ran
# request_module() first (on this host, built without modules, a no-op).
#   tests/review/ha59-autoload.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
sv=${SUPERVISOR:-$top/build/egress-supervisor}
work=$(mktemp -d /tmp/ha59a.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 777 "$work"
gcc -O2 -Wall -static -o "$work/agent" "$top/tests/review/ha59-autoload.c"
for who in root 1000; do
	pre=()
	[ "$who" = root ] || pre=(setpriv --reuid 1000 --regid 1000 --clear-groups)
	rm -f "$work/rep"
	set +e
	"${pre[@]}" "$sv" --report "$work/rep" -- "$work/agent" >"$work/out" 2>"$work/err"
	rc=$?
	set -e
	echo "AGENT $who: exit $rc"
	sed 's/^/  /' "$work/out"
	python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))
ev=[e for e in r.get("events", []) if e.get("syscall") in ("ioctl", "setsockopt")]
print("  recorded ioctl/setsockopt events:", len(ev), [(e.get("syscall"), e.get("reason")) for e in ev])' "$work/rep" || true
done
