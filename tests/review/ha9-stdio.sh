#!/bin/bash
# ha9-stdio.sh [SV]: review h-attack9's stdio reproductions (as root, from
# the worktree after `make`; loopback only, the IPv6 case in a network
# namespace of its own holding 2001:db8::1 and ::2 on lo).
set -euo pipefail
sv=${1:-$PWD/build/egress-supervisor}
mkdir -p /tmp/ha9
musl-gcc -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2 -isystem build/kheaders -static \
	-pthread -o /tmp/ha9/ha9-stdio tests/review/ha9-stdio.c
for m in plain cork lsrr; do
	/tmp/ha9/ha9-stdio run "$sv" "$m" 2>&1 | grep -v 'warning: the agent'
done
unshare -n sh -c "ip link set lo up && ip -6 addr add 2001:db8::1/128 dev lo nodad &&
	ip -6 addr add 2001:db8::2/128 dev lo nodad && /tmp/ha9/ha9-stdio run '$sv' cork6" 2>&1 |
	grep -v 'warning: the agent'
