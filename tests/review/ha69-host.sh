#!/bin/bash
# ha69-host.sh: hostile review h-attack69, host leg (as root, no VM).
# Each run: a uid-1000 "container" (unshare -U -m, ids 1000 mapped to
# themselves, a shell that starts the supervisor after 1 s, as a rootless
# container's job would), and an outsider of uid 1000 on the host that,
# meanwhile, joins its user and mount namespaces (ha69-nsmount.c, no exec)
# and mounts one thing in them:
#   tests/review/ha69-host.sh proc [N]    # a file over /proc/cpuinfo: the
#                                         # spawn child's proc mount is EPERM
#                                         # (mount_too_revealing), "the host's"
#   tests/review/ha69-host.sh root [N]    # / bound onto itself: the trial's
#                                         # unshare(CLONE_NEWUSER) is EPERM
#                                         # (current_chrooted), "the host's"
#   tests/review/ha69-host.sh shm [N]     # proc, the run's program writing a
#                                         # 0600 SysV segment of a uid-1000
#                                         # outsider (ha65-agent.c shmput)
#   tests/review/ha69-host.sh control [N] # no mount
# SV: the supervisor (default the worktree's build). Prints one line per run
# (exit, verdict, containment, userns_refused) and a tally.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
sv=${SV:-$top/build/egress-supervisor}
mode=${1:-proc}
n=${2:-5}
# shellcheck source=tests/review/review-host.sh
. "$(dirname "$0")/review-host.sh"
work=$(mktemp -d /tmp/ha69.XXXXXX)
chmod 755 "$work"
a=
o=
cleanup() {
	if [ -n "$a" ]; then kill "$a" 2>/dev/null || true; fi
	if [ -n "$o" ]; then kill "$o" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
cp "$sv" "$work/sv"
mkdir "$work/out"
chown 1000:1000 "$work/out"
gcc -O2 -Wall -static -o "$work/nsmount" "$top/tests/review/ha69-nsmount.c"
gcc -O2 -Wall -static -pthread -o "$work/agent" "$top/tests/review/ha65-agent.c"
chmod 755 "$work/sv" "$work/nsmount" "$work/agent"
weak=0
leaked=0
for i in $(seq 1 "$n"); do
	prog=(/bin/true)
	if [ "$mode" = shm ]; then
		key=$((0x6900 + i))
		u "$work/agent" shmhost "$key" 4000 >"$work/out/sh$i.txt" 2>&1 &
		o=$!
		prog=("$work/agent" shmput "$key" "secret-of-run-$i")
	fi
	# The container: its shell starts the supervisor a second later.
	# shellcheck disable=SC2016 # expanded by the inner sh
	(cd "$work/out" && exec setpriv --reuid 1000 --regid 1000 --clear-groups \
		unshare -U -m --map-user=1000 --map-group=1000 \
		sh -c 'sleep 1; exec "$@"' sh "$work/sv" --report "$work/out/r$i.json" -- "${prog[@]}" \
		>"$work/out/o$i.txt" 2>&1) &
	a=$!
	sleep 0.4
	holder=$(pgrep -P "$a" sleep || echo "$a")
	case $mode in
	proc | shm) u "$work/nsmount" "$holder" proc ;;
	root) u "$work/nsmount" "$holder" root ;;
	control) ;;
	*) echo "unknown mode $mode" >&2; exit 2 ;;
	esac
	set +e
	wait "$a"
	rc=$?
	set -e
	a=
	line="$(verdict "$work/out/r$i.json")"
	extra=
	if [ "$mode" = shm ]; then
		wait "$o" || true
		o=
		extra=" | outsider: $(cat "$work/out/sh$i.txt")"
		if [ "$rc" = 0 ] && grep -q "secret-of-run-$i" "$work/out/sh$i.txt"; then
			leaked=$((leaked + 1))
		fi
	fi
	echo "run $i: exit $rc $line$extra"
	case $line in *subreaper*) [ "$rc" = 0 ] && weak=$((weak + 1)) ;; esac
done
echo "passed in subreaper+landlock: $weak of $n"
if [ "$mode" = shm ]; then echo "passed with the outsider's segment written: $leaked of $n"; fi
