#!/bin/bash
# ha13-falsered.sh (hostile review h-attack13): calls 7bd53db denies though
# the kernel would do nothing with them (see ha13-falsered.c). Host, as
# root, from the worktree after `make`. Each mode runs once, as uid 1000, in
# a fresh network namespace holding only lo, loopback allowed, no rule;
# prints the verdict and the events.   ha13-falsered.sh [SUPERVISOR]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
mkdir -p /tmp/ha13 && chmod 777 /tmp/ha13
review_cc /tmp/ha13/fr tests/review/ha13-falsered.c || exit 2
d=$(review_stage ha13-falsered "${1:-build/egress-supervisor}" /tmp/ha13/fr)
for mode in ${MODES:-unixdev badfd notsock unbind pktinfo0 keyexists keyfault lopktinfo}; do
	# shellcheck disable=SC2016 # $0..$3 are the inner shell's arguments
	unshare -n sh -c 'ip link set lo up; exec setpriv --reuid 1000 --regid 1000 --clear-groups "$0" --report "$1" -- "$2" "$3"' \
		"$d/sv" "$d/rep.$mode" "$d/agent" "$mode" 2>"$d/err.$mode" | sed 's/^/  /'
	echo "== $mode: supervisor exit $? ($(tail -1 "$d/err.$mode"))"
	review_print_report "$d/rep.$mode"
done
