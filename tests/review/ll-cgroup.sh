#!/bin/bash
# ll-cgroup.sh SV AGENT [ARG]...: a delegated cgroup (owned by uid 1000, as a
# systemd user session's user@1000.service) on the host's cgroup2 mount; the
# uid-1000 supervisor SV runs in DIR/sup with AGENT DIR [ARG]... as its
# agent (ll-cgroup-agent). Prints the agent's output and the supervisor's
# exit status, then kills, thaws and removes every cgroup under DIR.
# Run as root; loopback only (no traffic at all).
set -euo pipefail
sv=$1 agent=$2
shift 2
root=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
dir=$root/ll-review.$$
mkdir -p "$dir/sup"
chown -R 1000:1000 "$dir"
rc=0
# shellcheck disable=SC2016
timeout -s KILL 30 sh -c 'echo $$ > "$1/sup/cgroup.procs"; cd /; shift; exec setpriv --reuid 1000 --regid 1000 --clear-groups "$@"' \
	sh "$dir" "$sv" --no-loopback -- "$agent" "$dir" "$@" || rc=$?
echo "supervisor exit $rc"
find "$dir" -name cgroup.procs -exec sh -c 'for f; do p=$(tr "\n" " " <"$f"); [ -z "$p" ] || echo "left in ${f%/cgroup.procs}: $p"; done' sh {} +
find "$dir" -depth -type d | while read -r c; do
	echo 0 >"$c/cgroup.freeze" 2>/dev/null || true
	echo 1 >"$c/cgroup.kill" 2>/dev/null || true
done
sleep 0.5
find "$dir" -depth -type d -exec rmdir {} + 2>/dev/null || true
[ ! -e "$dir" ] || echo "WARNING: $dir left"
