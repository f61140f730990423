#!/bin/bash
# ha16-uffd.sh (hostile review h-attack16, against main 9886fc1): the
# deterministic form of ha16-race.sh's disc and range modes. The payload is
# a userfaultfd page (tests/agents/held-copy.c), so the supervisor's copy of it
# waits on the agent's fault handler, which does the racing steps before it
# supplies the page. Root supervisor and agent (pid-namespace containment):
# the root agent opens /dev/userfaultfd (root 0600, no capability needed),
# which handles the supervisor's kernel-mode fault; a uid-1000 agent needs
# vm.unprivileged_userfaultfd=1 (host-wide: not set here; the guest cell
# ha16-guest/ha16-uffd-disc.scenario sets it). Namespaces: ha16-net.sh.
# synshut: a TCP fast-open send on a socket connecting to the declared
# 198.51.100.8 (nobody on the path answers; ha16x holds it on a1's link).
#   ha16-uffd.sh [SUPERVISOR]   (MODES=... picks: plain disc range synshut)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
mkdir -p /tmp/ha16 && chmod 777 /tmp/ha16
review_cc /tmp/ha16/ha16-uffd tests/agents/held-copy.c || exit 2
d=$(review_stage ha16-uffd "${1:-build/egress-supervisor}" /tmp/ha16/ha16-uffd)
. tests/review/ha16-net.sh
for mode in ${MODES:-plain disc range synshut}; do
	dest=198.51.100.7:9999
	[ "$mode" = synshut ] && dest=198.51.100.8:9999
	REVIEW_AS_ROOT=1 review_net_run ha16 "$d" "$mode" -- "$d/sv" --allow 198.51.100.7:9999 \
		--allow 198.51.100.8:9999 -- "$d/agent" "$mode" "$dest" a1
done
ha16_sinks
