#!/bin/bash
# ha7-fallback.sh: a uid-1000 supervisor whose user namespace is made but
# whose pid and mount namespaces are refused (seam clone_newpid, in the run
# only, or in the probe too) falls back to the subreaper inside its user
# namespace. Shows the report's containment and userns_refused, and the
# supervisor's effective capabilities (in its namespace) while the agent
# runs: sv_contain_settle drops them only in user-namespace mode.
# SV=binary for another (faults) build. Run as root after `make`.
set -euo pipefail
B=$PWD/build
SV=${SV:-$B/faults/egress-supervisor}
# shellcheck source=tests/review/review-cc.sh
. tests/review/review-cc.sh
review_cc "$B/ha7-agent" tests/review/ha7-agent.c
D=$(review_stage ha7-fallback "$SV" "$B/ha7-agent")
for fault in clone_newpid:EPERM probe.clone_newpid:EPERM,clone_newpid:EPERM ""; do
	rc=0
	EGRESS_SV_FAULT=$fault setpriv --reuid 1000 --regid 1000 --clear-groups \
		"$D/sv" --report "$D/r.json" -- "$D/agent" nodump-sleep 2 2>"$D/err" &
	sv=$!
	sleep 1
	echo "== fault '$fault': supervisor $(grep CapEff "/proc/$sv/status")," \
		"user ns $(readlink "/proc/$sv/ns/user")"
	wait "$sv" || rc=$?
	/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("  exit", sys.argv[2], "verdict", r["verdict"], "containment", r["containment"], "userns_refused", r["userns_refused"], "probe containment", r["probe"]["containment"] if "probe" in r else None)' "$D/r.json" "$rc"
done
