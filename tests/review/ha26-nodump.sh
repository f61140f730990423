#!/bin/bash
# ha26-nodump.sh (hostile review h-attack26): false red. A uid-1000 run
# (user-namespace+pid-namespace) enters a user and a network namespace its
# own child made; the child is non-dumpable, so the supervisor cannot read
# its /proc/PID/ns links and denies the joins as foreign-namespace (fail).
# The control (a dumpable child) passes. Exits 1 when the non-dumpable
# case is denied (the false red is there), 0 otherwise.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
T=/tmp/h-attack26/nodump
mkdir -p $T && chown 1000:1000 $T && chmod 755 /tmp/h-attack26
gcc -O2 -static -o $T/ha26-nodump tests/review/ha26-nodump.c || exit 2
chmod 755 $T/ha26-nodump
rc=0
for mode in "" x; do
    rm -f $T/r.json
    setpriv --reuid 1000 --regid 1000 --clear-groups "$SV" --report $T/r.json -- $T/ha26-nodump $mode 2>&1 | grep -v warning
    denied=$(python3 -c "
import json; r = json.load(open('$T/r.json'))
print(sum(1 for e in r['events'] if e.get('syscall') == 'setns' and e.get('bucket') == 'denied'))")
    echo "mode '${mode:-dumpable}': setns denied: $denied"
    [ "$mode" = x ] && [ "$denied" != 0 ] && rc=1
done
exit $rc
