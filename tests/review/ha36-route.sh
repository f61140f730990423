#!/bin/bash
# ha36-route.sh (hostile review h-attack36, item 1): other ways to a
# link-scope-only route past the host's choice, on ha35-dontroute.sh's
# topology (review-net.sh, five namespaces ha36a, ha36r, ha36s, ha36x,
# ha36y, plus `default dev a1 metric 500` in ha36a): the host's route to
# 198.51.100.7 is via the router on a0; a link-scope lookup would take the
# fallback default over a1, where ha36x answers ARP for every address.
# See ha36-route.c for the modes. Host, as root, from the worktree after
# `make`.
#
#   ha36-route.sh [SUPERVISOR]  (default build/egress-supervisor; MODES=...
#                                picks the modes, default all; ROUNDS=N
#                                repeats them; REVIEW_AS_ROOT=1 runs the
#                                supervisor as root, else as uid 1000)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
. tests/review/review-net.sh
mkdir -p /tmp/ha36 && chmod 777 /tmp/ha36
review_cc /tmp/ha36/route tests/review/ha36-route.c || exit 2
d=$(review_stage ha36-route "${1:-build/egress-supervisor}" /tmp/ha36/route)
review_net_up ha36
ip -n ha36a route add default dev a1 metric 500
echo "--- ha36a's routes:"
ip -n ha36a route | sed 's/^/  /'
review_net_sinks ha36 "$d"
for r in $(seq "${ROUNDS:-1}"); do
	for mode in ${MODES:-plain msgnameless mmsgnameless zerolen mappedconn sockopt64 tos1 cmsgtos1 ping}; do
		review_net_run ha36 "$d" "$mode.$r" -- "$d/sv" --allow 198.51.100.7:9999 -- \
			"$d/agent" "$mode" 198.51.100.7:9999
	done
done
sleep 0.5
echo "--- sinks:"
sed 's/^/  /' "$d/sinks.log"
