#!/bin/bash
# ha10-forms.sh [SV]: ha10-forms.py for the limited broadcast, lo's subnet
# broadcast and the all-hosts group, each in a network namespace of its own
# (only lo, up; as root, from the worktree after `make`).
set -euo pipefail
sv=${1:-$PWD/build/egress-supervisor}
mkdir -p /tmp/ha10
for d in 255.255.255.255 127.255.255.255 224.0.0.1; do
	unshare -n sh -c "ip link set lo up && python3 tests/review/ha10-forms.py run '$sv' $d" 2>&1 |
		grep -v 'warning: the agent'
done
