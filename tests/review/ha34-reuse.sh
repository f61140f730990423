#!/bin/bash
# ha34-reuse.sh: hostile review h-attack34. When a run ends by a signal
# (SIGTERM, SIGINT, SIGHUP: a CI timeout), kill_descendants() (main.c) reads
# every /proc/PID/stat, works out which pids chain up to the supervisor, and
# then kill()s them by number. In pid-namespace mode the first kill that
# lands on the reaper makes the kernel kill the whole namespace at once, and
# the supervisor goes on killing the rest of its snapshot by number: pids
# that are free by then and may already belong to a process outside the
# tree. A bystander started in that window is SIGKILLed by the supervisor.
#
# Shown in a pid namespace of its own (Linux 6.14+: pid_max is per pid
# namespace, so the host's is untouched) with pid_max 400, so pids are
# reused within milliseconds; on a host the agent churns through pid_max
# (32768 on this one) itself. The agent: `ha34-agent churn 4 150` (150
# sleepers, 4 workers forking children that live 0-2 ms). The bystander,
# outside the run: `ha34-agent victims` (20 children of 10 ms each, counts
# those killed by SIGKILL). After 3 s the run gets SIGTERM.
#
#   tests/review/ha34-reuse.sh MODE [RUNS]     (as root)
#   MODE: root      a root supervisor (pid-namespace)
#         uid1000   a uid-1000 supervisor (user-namespace+pid-namespace+landlock)
#         subreaper a uid-1000 test build with the seam userns:EPERM
#                   (subreaper+landlock; needs build/faults/egress-supervisor)
#         control   root, but the supervisor is SIGKILLed (no kill loop)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:?MODE: root, uid1000, subreaper or control}
runs=${2:-10}
work=$(mktemp -d /tmp/ha34-reuse.XXXXXX)
chmod 0755 "$work"
trap 'rm -rf "$work"' EXIT
musl-gcc -D_GNU_SOURCE -O2 -static -pthread -o "$work/ha34-agent" "$top/tests/review/ha34-agent.c"
sv=$top/build/egress-supervisor
as=()
env=()
sig=TERM
case $mode in
root) ;;
control) sig=KILL ;;
uid1000) as=(setpriv --reuid 1000 --regid 1000 --clear-groups) ;;
subreaper)
	sv=$top/build/faults/egress-supervisor
	as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
	env=(EGRESS_SV_FAULT=userns:EPERM)
	;;
*) echo "unknown mode $mode" >&2; exit 2 ;;
esac
cp "$sv" "$work/sv"
hit=0
for n in $(seq "$runs"); do
	out=$(unshare --pid --fork --mount-proc bash -s "$work" "$sig" "${#as[@]}" "${as[@]}" \
		"${env[@]}" <<'EOF'
set -uo pipefail
work=$1 sig=$2 nas=$3
shift 3
as=("${@:1:$nas}")
shift "$nas"
echo 400 >/proc/sys/kernel/pid_max
"${as[@]}" "$work/ha34-agent" victims 8 20 10 >"$work/victims.out" &
vp=$!
sleep 0.5
env "$@" "${as[@]}" "$work/sv" -- "$work/ha34-agent" churn 4 150 >/dev/null 2>"$work/sv.err" &
svp=$!
sleep 3
kill -"$sig" "$svp"
rc=0
wait "$svp" || rc=$?
wait "$vp"
echo "supervisor exit $rc; $(tail -n 1 "$work/victims.out")"
EOF
)
	echo "run $n ($mode): $out"
	case $out in *"killed by SIGKILL 0,"*) ;; *) hit=$((hit + 1)) ;; esac
done
echo "$mode: a bystander SIGKILLed in $hit of $runs runs"
