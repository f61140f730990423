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
#   tests/review/ha34-reuse.sh MODE [RUNS]     (as root; or HA34_MODE, HA34_RUNS)
#   MODE: root      a root supervisor (pid-namespace)
#         uid1000   a uid-1000 supervisor (user-namespace+pid-namespace+landlock)
#         subreaper a uid-1000 test build with the seam userns:EPERM
#                   (subreaper+landlock; needs build/faults/egress-supervisor)
#         control   root, but the supervisor is SIGKILLed (no kill loop)
#   Environment (defaults as in the review): SV (the supervisor, default
#   build/egress-supervisor; build/faults/egress-supervisor for subreaper),
#   HA34_WAIT (3: seconds before the signal), HA34_CHURN ("4 150": workers,
#   sleepers), HA34_VICTIMS ("20 10": children kept, their ms), HA34_PID_MAX
#   (400), HA34_LATE (0; 1: the run's pids start above 300, where a pid
#   freed is taken again once pid_max wraps (the kernel never again hands
#   out those below), and the bystander starts 0.5 s after the supervisor,
#   once the run is set up, so that it may keep more children than the pid
#   namespace has pids left: every pid freed is taken at once, as on a busy
#   host). The bystander lives HA34_WAIT + 2 s. The
#   integration test interrupted_supervisor_kills_nothing_outside_the_run
#   runs it short.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:-${HA34_MODE:?MODE: root, uid1000, subreaper or control}}
runs=${2:-${HA34_RUNS:-10}}
IFS=. read -r kmaj kmin _ <<<"$(uname -r)"
kmin=${kmin%%[!0-9]*}
if ((kmaj < 6 || (kmaj == 6 && kmin < 14))); then
	echo "needs Linux 6.14 (pid_max per pid namespace): not lowering this host's" >&2
	exit 2
fi
work=$(mktemp -d /tmp/ha34-reuse.XXXXXX)
chmod 0755 "$work"
trap 'rm -rf "$work"' EXIT
musl-gcc -D_GNU_SOURCE -O2 -static -pthread -o "$work/ha34-agent" "$top/tests/review/ha34-agent.c"
sv=${SV:-$top/build/egress-supervisor}
wait_s=${HA34_WAIT:-3}
churn=${HA34_CHURN:-4 150}
victims=${HA34_VICTIMS:-20 10}
pid_max=${HA34_PID_MAX:-400}
late=${HA34_LATE:-0}
as=()
env=()
sig=TERM
case $mode in
root) ;;
control) sig=KILL ;;
uid1000) as=(setpriv --reuid 1000 --regid 1000 --clear-groups) ;;
subreaper)
	sv=${SV:-$top/build/faults/egress-supervisor}
	as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
	env=(EGRESS_SV_FAULT=userns:EPERM)
	;;
*) echo "unknown mode $mode" >&2; exit 2 ;;
esac
cp "$sv" "$work/sv"
hit=0
for n in $(seq "$runs"); do
	out=$(unshare --pid --fork --mount-proc bash -s "$work" "$sig" "$wait_s" "$churn" "$victims" \
		"$pid_max" "$late" "${#as[@]}" "${as[@]}" "${env[@]}" <<'EOF'
set -uo pipefail
work=$1 sig=$2 wait_s=$3 churn=$4 victims=$5 pid_max=$6 late=$7 nas=$8
shift 8
as=("${@:1:$nas}")
shift "$nas"
echo "$pid_max" >/proc/sys/kernel/pid_max
[[ $late == 1 ]] && echo 300 >/proc/sys/kernel/ns_last_pid
bystander() {
	# shellcheck disable=SC2086 # the counts are meant to split
	"${as[@]}" "$work/ha34-agent" victims $((${wait_s%.*} + 2)) $victims >"$work/victims.out" &
	vp=$!
}
[[ $late == 1 ]] || bystander
sleep 0.5
# shellcheck disable=SC2086
env "$@" "${as[@]}" "$work/sv" -- "$work/ha34-agent" churn $churn >/dev/null 2>"$work/sv.err" &
svp=$!
if [[ $late == 1 ]]; then
	sleep 0.5
	bystander
fi
sleep "$wait_s"
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
