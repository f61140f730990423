#!/bin/bash
# ll-oom.sh SV AGENT [MB]: the uid-1000 supervisor SV in a memory cgroup
# limited to MB (48) MiB, with AGENT (ll-oom) as its agent. The agent
# forks small children until the OOM killer acts; the kernel log names the
# victim (the supervisor: the largest task), and the agent's setsid
# grandchild goes on writing its mark with ppid 1: it outlived the run.
# Uses a cgroup v1 memory hierarchy if there is one, else cgroup2 (memory
# enabled in the root's subtree_control). Kills what it leaves and removes
# the cgroup. Run as root; no traffic.
set -uo pipefail
sv=$1 agent=$2 mb=${3:-48}
v1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ {print $2; exit}' /proc/mounts)
if [ -n "$v1" ]; then
	cg=$v1/ll-oom.$$
	mkdir "$cg"
	echo $((mb * 1024 * 1024)) >"$cg/memory.limit_in_bytes"
else
	cg=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)/ll-oom.$$
	mkdir "$cg"
	echo $((mb * 1024 * 1024)) >"$cg/memory.max"
fi
mark=/tmp/ll-oom-mark.$$
: >"$mark"
chown 1000:1000 "$mark"
# shellcheck disable=SC2016
timeout -s KILL 60 sh -c 'echo $$ > "$1/cgroup.procs"; cd /; exec setpriv --reuid 1000 --regid 1000 --clear-groups "$2" --no-loopback -- "$3" "$4"' \
	sh "$cg" "$sv" "$agent" "$mark"
echo "supervisor exit $? (137: killed)"
dmesg 2>/dev/null | grep -i "out of memory: killed process" | tail -1
n1=$(wc -l <"$mark")
sleep 1
n2=$(wc -l <"$mark")
if [ "$n2" -gt "$n1" ]; then echo "OUTLIVED: mark $n1 -> $n2, last: $(tail -1 "$mark")"; else echo "nothing outlived"; fi
while read -r p; do kill -KILL "$p" 2>/dev/null; done <"$cg/cgroup.procs"
sleep 1
rmdir "$cg" || echo "WARNING: $cg left"
rm -f "$mark"
