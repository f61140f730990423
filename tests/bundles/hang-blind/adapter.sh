#!/bin/sh
# The hang-blind double's adapter: egress-supervisor with the appliance's
# own argv; on capability-error (exit 3) it blocks forever, using no CPU,
# as a supervisor whose hand-off of the agent's socket never returns would.
set -u
rc=0
"${EGRESS_BUNDLE_DIR:?not run by the appliance}/egress-supervisor" "$@" || rc=$?
if [ "$rc" -eq 3 ]; then
	echo "hang-blind: capability-error: waiting forever" >&2
	while :; do
		sleep 3600
	done
fi
exit "$rc"
