#!/bin/bash
# ha14-mmsg.sh (hostile review h-attack14): a sendmmsg whose last message is a
# declared link-local name with a scope id (fe80::1%a1) makes the device
# check accept a change to a1 after the batch (c->scope_if is the last
# message's), so a failed bind(fe80::dead%a1) by another thread, timed by the
# page cache while the supervisor reads message 0's payload, sends message 0
# (the declared ::ffff:198.51.100.7) out of a1 to the undeclared ha14x. Same
# five namespaces of review-net.sh (ha14*). Supervisor:
# --no-loopback --allow 198.51.100.7:9999 --allow [fe80::1]:9999, uid 1000.
#   ha14-mmsg.sh [SUPERVISOR]   (MODES=... picks modes: race plain reversed single)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
. tests/review/review-net.sh
mkdir -p /tmp/ha14 && chmod 777 /tmp/ha14
review_cc /tmp/ha14/mm tests/review/ha14-mmsg.c || exit 2
d=$(review_stage ha14-mmsg "${1:-build/egress-supervisor}" /tmp/ha14/mm)
review_net_up ha14
review_net_sinks ha14 "$d"
for mode in ${MODES:-plain race reversed single}; do
	review_net_run ha14 "$d" "$mode" -- "$d/sv" --allow 198.51.100.7:9999 --allow "[fe80::1]:9999" -- \
		"$d/agent" "$mode" 198.51.100.7:9999 a1 "$d/payload.$mode"
done
echo "--- sinks:"
sed 's/^/  /' "$d/sinks.log"
