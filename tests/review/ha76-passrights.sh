#!/bin/bash
# ha76-passrights.sh: hostile review h-attack76, finding 1 (host).
# An agent that turns SO_PASSRIGHTS off on an AF_UNIX pair of its own (what
# systemd's notification receiver and its AcceptFileDescriptors=no sockets
# do from v258) is denied "descriptor-passing" and the run fails, though
# the call only narrows what the kernel lets in and the socket was never on
# 0-2. The control ("none") leaves the option alone: pass. N runs each, as
# root and as uid 1000 (setpriv). Needs build/egress-supervisor.
#   tests/review/ha76-passrights.sh [N]   (default 5)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-5}
work=$(mktemp -d /tmp/ha76-pr.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
musl-gcc -D_GNU_SOURCE -O2 -static -no-pie -isystem "$top/build/kheaders" \
	-o "$work/ha76-agent" "$top/tests/review/ha76-agent.c"
for user in root uid1000; do
	for how in off none; do
		declare -A seen=()
		for _ in $(seq "$n"); do
			cmd=("$top/build/egress-supervisor" -- "$work/ha76-agent" own "$how")
			if [ "$user" = uid1000 ]; then
				cmd=(setpriv --reuid 1000 --regid 1000 --clear-groups "${cmd[@]}")
			fi
			rc=0
			(cd "$work" && timeout 60 "${cmd[@]}") >"$work/out" 2>"$work/err" || rc=$?
			seen[$rc]=$((${seen[$rc]:-0} + 1))
		done
		summary=""
		for k in "${!seen[@]}"; do summary+=" exit $k x${seen[$k]}"; done
		echo "ha76 $user own $how:$summary"
		grep -h '^ha76 ' "$work/out" | sed 's/^/  /'
		tail -1 "$work/err" | sed 's/^/  /'
		unset seen
	done
done
