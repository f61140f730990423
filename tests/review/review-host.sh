#!/bin/bash
# review-host.sh: sourced by the host legs of the containment reviews
# (ha67, ha68, ha69, ha72). What each wrote for itself before:
#   u CMD...         runs CMD as uid and gid 1000, no supplementary groups
#   ue CMD...        the same, by exec
#   verdict REPORT   one line: the verdict, the containment, userns_refused
#                    (and probe.containment with VERDICT_PROBE=1), or
#                    "no report (why)"; the tallies look for "subreaper"
u() { setpriv --reuid 1000 --regid 1000 --clear-groups "$@"; }
ue() { exec setpriv --reuid 1000 --regid 1000 --clear-groups "$@"; }
verdict() {
	python3 -c 'import json,sys
try:
    r=json.load(open(sys.argv[1]))
except Exception as e:
    print("no report (%s)" % e); sys.exit(0)
extra = ["probe.containment=%s" % (r.get("probe") or {}).get("containment")] if sys.argv[2] == "1" else []
print(r["verdict"], r.get("containment"), "userns_refused=%s" % r.get("userns_refused"), *extra)' \
		"$1" "${VERDICT_PROBE:-0}"
}
