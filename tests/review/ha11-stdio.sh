#!/bin/bash
# ha11-stdio.sh [SV]: review h-attack11's stdio reproduction (as root, from
# the worktree after `make`): what the IP_TOS round trip of the stdio check
# changes on the caller's TCP socket, and two states that must hold. Runs in
# a network namespace of its own (only lo, up; TCP fast open client without
# a cookie, 5, so that mode tfo defers); nothing of the host's network is
# touched.
set -euo pipefail
sv=${1:-$PWD/build/egress-supervisor}
mkdir -p /tmp/ha11
musl-gcc -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2 -isystem build/kheaders -static \
	-o /tmp/ha11/ha11-stdio tests/review/ha11-stdio.c
for m in ${MODES:-prio4 prio4-7 prio6 tos4 tfo repair}; do
	unshare -n sh -c "ip link set lo up && sysctl -qw net.ipv4.tcp_fastopen=5 &&
		/tmp/ha11/ha11-stdio run '$sv' $m" 2>&1 |
		grep -v 'warning: the agent'
done
