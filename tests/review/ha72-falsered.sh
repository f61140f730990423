#!/bin/bash
# ha72-falsered.sh: hostile review h-attack72, question 3 (false reds), as
# root on the host. Each case runs `-- /bin/sh -c 'cat /proc/self/status
# >/dev/null; echo ok >"$W/f"'` (a write under --writable $W when the case
# says so) and prints exit, verdict, containment, userns_refused and
# probe.containment:
#   root, uid1000                      the plain host
#   rootless-root                      unshare -Ur (root in a namespace uid
#                                      1000 owns, every capability)
#   rootless-uid                       unshare -U with uid 1000 mapped to
#                                      itself (no capability after exec)
#   writable-root, writable-uid        --writable on a directory the uid owns
#   hidepid-root, hidepid-uid          /proc mounted again with hidepid=2 in
#                                      a private mount namespace of root's
#   subset-root, subset-uid            /proc mounted again with subset=pid
#                                      (no /proc/sys) likewise
# SV: the supervisor (default the worktree's build).
set -euo pipefail
# shellcheck source=tests/review/review-host.sh
. "$(dirname "$0")/review-host.sh"
VERDICT_PROBE=1
top=$(cd "$(dirname "$0")/../.." && pwd)
sv=${SV:-$top/build/egress-supervisor}
work=$(mktemp -d /tmp/ha72f.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
cp "$sv" "$work/sv"
chmod 755 "$work/sv"
mkdir "$work/out" "$work/w"
chown 1000:1000 "$work/out" "$work/w"
u="setpriv --reuid 1000 --regid 1000 --clear-groups"
one() {
	local name=$1 pre=$2 wr=${3:-}
	local args=(--report "$work/out/$name.json")
	[ -z "$wr" ] || args+=(--writable "$work/w")
	set +e
	# shellcheck disable=SC2086,SC2016 # $pre is a word list; $W is the inner sh's
	(cd "$work/out" && W="$work/w" $pre "$work/sv" "${args[@]}" -- /bin/sh -c \
		'cat /proc/self/status >/dev/null && echo ok >"$W/f.$$"') >"$work/out/$name.txt" 2>&1
	local rc=$?
	set -e
	echo "$name: exit $rc $(verdict "$work/out/$name.json")"
	[ "$rc" = 0 ] || grep -v '^{' "$work/out/$name.txt" | grep -i 'egress-supervisor\|containment' |
		cut -c1-240 | head -4 | sed 's/^/    /'
}
one root ""
one uid1000 "$u"
one rootless-root "$u unshare -Ur"
one rootless-uid "$u unshare -U --map-user=1000 --map-group=1000"
one writable-root "" w
one writable-uid "$u" w
for opt in hidepid subset; do
	o=hidepid=2
	[ $opt = hidepid ] || o=subset=pid
	for who in root uid; do
		as=()
		[ $who = root ] || read -r -a as <<<"$u"
		set +e
		# shellcheck disable=SC2016 # expanded by the inner sh
		(cd "$work/out" && W="$work/w" unshare -m --propagation private sh -c \
			'mount -t proc -o "$1" proc /proc && shift && exec "$@"' sh "$o" \
			"${as[@]}" "$work/sv" --report "$work/out/$opt-$who.json" -- \
			/bin/sh -c 'cat /proc/self/status >/dev/null && echo ok >"$W/f.$$"') \
			>"$work/out/$opt-$who.txt" 2>&1
		rc=$?
		set -e
		echo "$opt-$who: exit $rc $(verdict "$work/out/$opt-$who.json")"
		[ "$rc" = 0 ] || grep -v '^{' "$work/out/$opt-$who.txt" |
			grep -i 'egress-supervisor\|containment' | cut -c1-240 | head -4 | sed 's/^/    /'
	done
done
