#!/bin/bash
# ll-into-cgroup.sh SV AGENT [fork]: a cgroup DIR delegated to uid 1000 (as a
# systemd user session's user@1000.service); the uid-1000 supervisor SV runs
# in DIR/sup with "AGENT DIR/esc MARK [fork]" (ll-into-cgroup) as its agent.
# After 2 s this script stops the run the way systemd stops a unit: it
# writes 1 to DIR/sup/cgroup.kill. It then shows whether the agent's child
# still writes its mark (it outlived the run and the cgroup kill), then
# kills, thaws and removes every cgroup under DIR.
# Run as root; no network traffic.
set -euo pipefail
sv=$1 agent=$2 how=${3:-clone3}
root=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
dir=$root/ll-into.$$
mark=/tmp/ll-into-mark.$$
mkdir -p "$dir/sup"
chown -R 1000:1000 "$dir"
: >"$mark"
chown 1000:1000 "$mark"
# shellcheck disable=SC2016
sh -c 'echo $$ > "$1/sup/cgroup.procs"; cd /; shift; exec setpriv --reuid 1000 --regid 1000 --clear-groups "$@"' \
	sh "$dir" "$sv" --no-loopback -- "$agent" "$dir/esc" "$mark" ${3:+"$3"} &
svpid=$!
sleep 2
echo "sup procs before the kill: $(tr '\n' ' ' <"$dir/sup/cgroup.procs")"
echo 1 >"$dir/sup/cgroup.kill"
rc=0
wait "$svpid" || rc=$?
echo "[$how] supervisor exit $rc (137: killed with its cgroup)"
n1=$(wc -l <"$mark")
sleep 1
n2=$(wc -l <"$mark")
echo "[$how] mark lines 1 s after the supervisor ended: $n1 -> $n2; last: $(tail -1 "$mark")"
if [ "$n2" -gt "$n1" ]; then echo "[$how] OUTLIVED: the agent's child survived the cgroup kill"; else echo "[$how] nothing outlived"; fi
find "$dir" -depth -type d | while read -r c; do
	echo 1 >"$c/cgroup.kill" 2>/dev/null || true
done
sleep 0.5
find "$dir" -depth -type d -exec rmdir {} + 2>/dev/null || true
[ ! -e "$dir" ] || echo "WARNING: $dir left"
rm -f "$mark"
