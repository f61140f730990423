#!/bin/bash
# cgroup-kill.sh SV AGENT MODE: a systemd-user-session-like delegated cgroup
# (owned by uid 1000) on the host's cgroup2 mount; the uid-1000 supervisor
# runs in DIR/sup, its agent (hr3-agent cgkill|cgfreeze DIR MARK) moves
# itself to DIR/esc and writes DIR/sup/cgroup.kill (or .freeze). Prints the
# supervisor's exit status and whether the agent's descendant outlived it.
# Run as root; loopback only (no traffic at all).
set -euo pipefail
sv=$1 agent=$2 mode=$3
root=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
dir=$root/hr3-review.$$
mark=/tmp/hr3/mark.$mode.$$
mkdir -p "$dir/sup"
chown -R 1000:1000 "$dir"
rm -f "$mark"
rc=0
# shellcheck disable=SC2016
timeout -s KILL 20 sh -c 'echo $$ > "$1/sup/cgroup.procs"; exec setpriv --reuid 1000 --regid 1000 --clear-groups "$2" -- "$3" "$4" "$1" "$5"' \
	sh "$dir" "$sv" "$agent" "$mode" "$mark" || rc=$?
echo "supervisor exit $rc"
sleep 3
echo "mark after the supervisor ended: $(tail -1 "$mark" 2>/dev/null || echo none)"
echo "esc procs: $(tr '\n' ' ' <"$dir/esc/cgroup.procs" 2>/dev/null)"
# clean up: kill what is left in the test cgroups, then remove them
for c in "$dir/esc" "$dir/sup"; do
	[ -d "$c" ] || continue
	echo 0 >"$c/cgroup.freeze" 2>/dev/null || true
	echo 1 >"$c/cgroup.kill" 2>/dev/null || true
done
sleep 1
rmdir "$dir/esc" "$dir/sup" "$dir" 2>/dev/null || true
