#!/bin/bash
# h-attack80: the whole host battery (tests/review/README.md, h-attack80).
# Root only (it makes a private network namespace and runs uid-1000 cases
# through setpriv). Builds the agent into /tmp/ha80-agent and runs every
# case as root and as uid 1000 against build/egress-supervisor; the outputs
# go to ${HA80_OUT:-/tmp/ha80-out}/*.txt, and each ends in SUMMARY lines
# ("not-held=0" everywhere is the result this review found).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${HA80_OUT:-/tmp/ha80-out}
mkdir -p "$out"
musl-gcc -static -O2 -D_GNU_SOURCE -o /tmp/ha80-agent "$here/ha80-agent.c" -lpthread
run() {
	local name=$1
	shift
	python3 "$here/ha80-run.py" "$@" >"$out/$name.txt" 2>&1 || true
	grep '^SUMMARY' "$out/$name.txt"
}
# The controls: the same agents without a supervisor reach the sinks.
run control --control --users root --timeout 8 highbits proto swap:300 \
	inbound:autobind inbound:rebind inbound:mapped cross famx
run filter --timeout 15 highbits proto x32 falsered famx uring
run swap --timeout 20 --repeat 3 swap:2000
run inbound --timeout 12 inbound:autobind inbound:declared-addr inbound:mapped \
	inbound:mapped-loopback inbound:rebind inbound:disconnect inbound:v6any-v6only
run process --timeout 12 cross rootknobs unixsvc inherit table:own table:unshare \
	table:leader-exits table:sendmsg-rights
run closed-stdio --timeout 12 --close-stdio 0 inherit fdpoke
run forge --timeout 12 --repeat 2 forge
run survive-term --timeout 5 survive:plain survive:double-fork survive:nested-pidns
run survive-kill --cut-kill --timeout 5 survive:plain survive:double-fork survive:nested-pidns
run hidden --timeout 30 --repeat 3 hidden:connect:400:40 hidden:sendto:400:40 \
	hidden:setsockopt:400:40 hidden:socket:400:40 hidden:listen:400:40 \
	hidden:sendmmsg:400:40
