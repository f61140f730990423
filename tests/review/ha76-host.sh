#!/bin/bash
# ha76-host.sh: hostile review h-attack76, the host leg of the probes
# (tests/review/ha76-agent.c says what each makes; held on 6.18). Runs
# `ha76-agent probe` under build/egress-supervisor as root, as uid 1000, and
# as uid 1000 in a cgroup v2 delegated to it (made under the unified
# hierarchy and removed after), then once outside any supervisor as uid
# 1000 in that cgroup: the control, where the cgroup files reached through
# a detached clone do open for writing (opened, never written). The agent
# clones mounts without attaching them and writes nothing outside its
# scratch directory. Run as root from the worktree.
#   tests/review/ha76-host.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/ha76-host.XXXXXX)
cg=""
cleanup() {
	if [ -n "$cg" ] && [ -d "$cg" ]; then
		rmdir "$cg" || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"
mkdir -m 777 "$work/w"
musl-gcc -D_GNU_SOURCE -O2 -static -no-pie -isystem "$top/build/kheaders" \
	-o "$work/ha76-agent" "$top/tests/review/ha76-agent.c"
sv=("$top/build/egress-supervisor" --writable "$work/w" --)
as1000=(setpriv --reuid 1000 --regid 1000 --clear-groups)
run() {
	echo "== $1"
	shift
	(cd "$work" && timeout 120 "$@") 2>"$work/err" | grep -v 'pidfs ino' || true
	tail -1 "$work/err"
}
run "root agent" "${sv[@]}" "$work/ha76-agent" probe "$work/w"
run "uid-1000 agent" "${as1000[@]}" "${sv[@]}" "$work/ha76-agent" probe "$work/w"
unified=/sys/fs/cgroup
if [ -d /sys/fs/cgroup/unified ]; then
	unified=/sys/fs/cgroup/unified
fi
cg=$unified/ha76-host
mkdir "$cg"
chown -R 1000:1000 "$cg"
# The inner shell's own $$ and arguments, not ours.
# shellcheck disable=SC2016
enter='echo $$ >"$0/cgroup.procs"; exec "$@"'
run "uid-1000 agent, cgroup delegated" sh -c "$enter" "$cg" \
	"${as1000[@]}" "${sv[@]}" "$work/ha76-agent" probe "$work/w"
run "control: uid 1000 in the delegated cgroup, no supervisor" \
	sh -c "$enter" "$cg" \
	"${as1000[@]}" "$work/ha76-agent" probe "$work/w"
