#!/bin/bash
# ha8-slot.sh LIMIT SV [pid]: as root, in a user namespace of our own mapping
# ids 0-65535, user.max_user_namespaces (or, with "pid",
# user.max_pid_namespaces) = LIMIT, then five uid-1000 runs of SV. Before
# the h-attack8 fix, LIMIT 1 (pid: 1 and 2) gave subreaper ENOSPC every time:
# the trial's namespace, freed after RCU and a work item, held the slot.
# Usage: python3 tests/review/ha8-inns.py tests/review/ha8-slot.sh 1 build/egress-supervisor
set -euo pipefail
echo "$1" >"/proc/sys/user/max_${3:-user}_namespaces"
D=$(mktemp -d /tmp/ha8-slot.XXXXXX)
chmod 777 "$D"
for _ in 1 2 3 4 5; do
	rc=0
	setpriv --reuid 1000 --regid 1000 --clear-groups "$2" --report "$D/r.json" -- /bin/true 2>"$D/err" || rc=$?
	/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("rc", sys.argv[2], r["verdict"], r["containment"], r["userns_refused"])' "$D/r.json" "$rc"
done
