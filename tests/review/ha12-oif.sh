#!/bin/bash
# ha12-oif.sh (hostile review h-attack12): the agent sends to its declared
# address out of an interface of its choosing, and another host on that
# link, holding the same address, gets the data. Host, as root, from the
# worktree after `make`. The five network namespaces (ha12a, ha12r, ha12s,
# ha12x, ha12y) are review-net.sh's: ha12x holds the declared address on
# a1's link, ha12y on a0's own link (for MSG_DONTROUTE and SO_DONTROUTE).
#
# Supervisor: --no-loopback --allow 198.51.100.7:9999, as uid 1000.
#   ha12-oif.sh [SUPERVISOR]   (default build/egress-supervisor; MODES=...
#                               picks the modes, default all)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
. tests/review/review-net.sh
mkdir -p /tmp/ha12 && chmod 777 /tmp/ha12
review_cc /tmp/ha12/oif tests/review/ha12-oif.c || exit 2
d=$(review_stage ha12-oif "${1:-build/egress-supervisor}" /tmp/ha12/oif)
review_net_up ha12
review_net_sinks ha12 "$d"
for mode in ${MODES:-plain pktinfo bindtodevice unicastif tcp dontroute sodontroute}; do
	review_net_run ha12 "$d" "$mode" -- "$d/sv" --allow 198.51.100.7:9999 -- \
		"$d/agent" "$mode" 198.51.100.7:9999 a1
done
echo "--- sinks:"
sed 's/^/  /' "$d/sinks.log"
