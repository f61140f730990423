#!/bin/bash
# ha40-held.sh (hostile review h-attack40): runs ha40-held.py as the agent
# in a network namespace of its own holding only lo, under --no-loopback
# --allow 198.51.100.7:9999, as uid 1000 and as root. Expected: every
# membership option EACCES (denied multicast-join, high bits on level and
# name, IPv4's options on an IPv6 socket too), every rtnetlink write EPERM,
# "memberships that took: 0", verdict fail. Host, as root, from the
# worktree after `make supervisor`.
#   ha40-held.sh [SUPERVISOR]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
sv=$(realpath "${1:-build/egress-supervisor}")
d=$(mktemp -d /tmp/ha40-held.XXXXXX)
cp tests/review/ha40-held.py "$d/"
chmod -R a+rX "$d"
for who in uid1000 root; do
	as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
	[ "$who" = root ] && as=()
	echo "== $who"
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare -n bash -c 'ip link set lo up; "$@"' _ "${as[@]}" "$sv" --no-loopback \
		--allow 198.51.100.7:9999 -- /usr/bin/python3 "$d/ha40-held.py" >"$d/out.$who" 2>&1
	echo "  supervisor exit $?"
	grep -c -- '-> EACCES' "$d/out.$who" | sed 's/^/  membership calls denied: /'
	grep -E 'rtnetlink|took|egress-supervisor: (pass|fail)' "$d/out.$who" | sed 's/^/  /'
done
