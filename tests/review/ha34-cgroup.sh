#!/bin/bash
# ha34-cgroup.sh: hostile review h-attack34. A root agent (pid-namespace
# mode, no Landlock domain) sees every cgroup mount read-only, but may make
# a user namespace of its own (no capability needed) and, in it, a mount
# and a cgroup namespace; there it has CAP_SYS_ADMIN over a fresh cgroup2
# mount (FS_USERNS_MOUNT) whose root is the cgroup the supervisor started
# in, and its kuid 0 owns the files (the uid map cannot even be written
# without CAP_SETFCAP: it is not needed). Writing cgroup.kill there kills
# every process of that cgroup: the supervisor, its caller, anything else
# the caller runs beside it; cgroup.freeze freezes them all, the caller's
# own timeout included. Refused only where the host mounted cgroup2 with
# nsdelegate (systemd does; this host and the appliance's guest do not).
#
#   tests/review/ha34-cgroup.sh [RUNS]     (as root, cgroup2 mounted; SV=BINARY
#                                          picks the supervisor; the last line
#                                          counts the legs that reached the
#                                          caller's cgroup)
# Per run, in a cgroup of the script's own (CG below the cgroup2 mount):
#   kill:    the caller (a shell running `timeout 20 sv ...`) and a
#            bystander (`sleep 60`, the script's child moved into CG);
#            the agent writes cgroup.kill; exit statuses of both.
#   freeze:  the same with cgroup.freeze and `timeout 2`; 4 s later the
#            script reads CG/cgroup.events and whether the caller's timeout
#            has fired, then thaws and kills CG from outside.
#   control: the agent does nothing (`probe` to loopback).
#   hide:    the agent makes CG/hide and moves itself into it; 1.5 s in,
#            CG/cgroup.procs (all the guest init's survivor check reads for
#            a cell that is not delegated) and CG/hide/cgroup.procs.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-${RUNS:-3}}
root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$root" ] || { echo "no cgroup2 mount" >&2; exit 2; }
grep -q " $root cgroup2 .*nsdelegate" /proc/mounts && echo "note: $root has nsdelegate: expect EPERM"
work=$(mktemp -d /tmp/ha34-cgroup.XXXXXX)
cg=$root/ha34-cgroup.$$
# cg_remove CG: thaws and kills what is in CG, waits (2 s at most) for it
# to empty, removes it. No step stops the rest (it runs in the EXIT trap).
cg_remove() {
	local c=$1
	[ -e "$c/cgroup.freeze" ] && { echo 0 >"$c/cgroup.freeze" || true; }
	[ -e "$c/cgroup.kill" ] && { echo 1 >"$c/cgroup.kill" || true; }
	for _ in $(seq 20); do
		grep -q '^populated 0' "$c/cgroup.events" 2>/dev/null && break
		sleep 0.1
	done
	rmdir "$c/hide" 2>/dev/null || true
	rmdir "$c" 2>/dev/null || true
}
# A run killed without its trap (SIGKILL) left its cgroup, named after
# its dead pid.
for old in "$root"/ha34-cgroup.*; do
	[ -d "$old" ] && ! kill -0 "${old##*.}" 2>/dev/null && cg_remove "$old"
done
mkdir "$cg"
cleanup() {
	cg_remove "$cg"
	rm -rf "$work"
}
trap cleanup EXIT
musl-gcc -D_GNU_SOURCE -O2 -static -pthread -o "$work/ha34-agent" "$top/tests/review/ha34-agent.c"
cp "${SV:-$top/build/egress-supervisor}" "$work/sv"
mkdir "$work/mnt"

one() { # TIMEOUT FREEZE(0|1) AGENT-ARG...
	local tmo=$1 freeze=$2 by caller rc brc
	shift 2
	sleep 60 &
	by=$!
	echo "$by" >"$cg/cgroup.procs"
	bash -c 'echo $$ >"$1/cgroup.procs"; shift; exec timeout "$@"' _ "$cg" "$tmo" \
		"$work/sv" -- "$work/ha34-agent" "$@" >"$work/out" 2>"$work/err" &
	caller=$!
	if [ "$freeze" = 1 ]; then
		sleep 4
		grep -q '^frozen 1' "$cg/cgroup.events" && reached=$((reached + 1))
		echo "  after 4 s: $(tr '\n' ' ' <"$cg/cgroup.events")caller (timeout $tmo) $(kill -0 "$caller" 2>/dev/null && echo 'still running' || echo 'gone')"
		echo 0 >"$cg/cgroup.freeze"
		echo 1 >"$cg/cgroup.kill"
	fi
	rc=0
	wait "$caller" || rc=$?
	kill "$by" 2>/dev/null || true
	brc=0
	wait "$by" 2>/dev/null || brc=$?
	if [ "$freeze" = 1 ]; then
		echo "  caller exit $rc, bystander exit $brc: both ended by the script's thaw and kill"
	else
		[ "$brc" = 137 ] && reached=$((reached + 1))
		echo "  caller exit $rc; bystander sleep exit $brc ($([ "$brc" = 137 ] && echo SIGKILL || echo 'not by SIGKILL: alive until the script ended it'))"
	fi
	grep -h 'write\|mount\|unshare' "$work/out" | sed 's/^/  agent: /' || true
}

reached=0
for n in $(seq "$runs"); do
	echo "== run $n: control (the agent does nothing to its cgroup)"
	one 20 0 probe 127.0.0.1 9
	echo "== run $n: kill (cgroup.kill)"
	one 20 0 cgroup "$work/mnt" cgroup.kill
	echo "== run $n: freeze (cgroup.freeze)"
	one 2 1 cgroup "$work/mnt" cgroup.freeze
	echo "== run $n: hide (a cgroup below the supervisor's)"
	bash -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' _ "$cg" \
		"$work/sv" -- "$work/ha34-agent" cgroup "$work/mnt" hide >"$work/out" 2>"$work/err" &
	caller=$!
	sleep 1.5
	echo "  $cg/cgroup.procs: $(tr '\n' ' ' <"$cg/cgroup.procs")(the supervisor and the reaper)"
	echo "  $cg/hide/cgroup.procs: $(tr '\n' ' ' <"$cg/hide/cgroup.procs" 2>/dev/null)(the agent)"
	wait "$caller" || true
	rmdir "$cg/hide" 2>/dev/null || true
done
echo "RESULT: the caller's cgroup killed or frozen in $reached of $((runs * 3)) legs (the control counts too)"
