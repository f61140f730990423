#!/bin/bash
# ha11-sockmap.sh [SV]: review h-attack11's sockmap reproduction (as root,
# from the worktree after `make`): a TCP stdin that passes the stdio check
# while a BPF sockmap redirects its sends elsewhere. Runs in a network
# namespace of its own (only lo, up); nothing of the host's network is touched.
set -euo pipefail
sv=${1:-$PWD/build/egress-supervisor}
mkdir -p /tmp/ha11
musl-gcc -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2 -isystem build/kheaders -static \
	-o /tmp/ha11/ha11-sockmap tests/review/ha11-sockmap.c
for m in ${MODES:-plain redirect}; do
	unshare -n sh -c "ip link set lo up && /tmp/ha11/ha11-sockmap run '$sv' $m" 2>&1 |
		grep -v 'warning: the agent'
done
