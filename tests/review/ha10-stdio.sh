#!/bin/bash
# ha10-stdio.sh [SV]: review h-attack10's stdio reproductions (as root, from
# the worktree after `make`). Runs in a network namespace of its own (only
# lo, up), where IPv4 source routes are accepted on lo
# (accept_source_route, route_localnet), so that the LSRR handshake
# completes; nothing of the host's network is touched.
set -euo pipefail
sv=${1:-$PWD/build/egress-supervisor}
. tests/review/review-lock.sh
review_lock dir-ha10 || exit 2 # one run at a time: another would rebuild under /tmp/ha10
mkdir -p /tmp/ha10
musl-gcc -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2 -isystem build/kheaders -static \
	-o /tmp/ha10/ha10-stdio tests/review/ha10-stdio.c
for m in ${MODES:-plain lsrr-cleared lsrr-cleared-tos v6mapped v6mapped-lsrr-cleared}; do
	unshare -n sh -c "ip link set lo up &&
		for k in all lo; do sysctl -qw net.ipv4.conf.\$k.accept_source_route=1 \
			net.ipv4.conf.\$k.route_localnet=1; done &&
		/tmp/ha10/ha10-stdio run '$sv' $m" 2>&1 | grep -v 'warning: the agent'
done
