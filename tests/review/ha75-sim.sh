#!/bin/bash
# ha75-sim.sh: hostile review h-attack75, part 2 on the host. Runs the
# guest init's own check_survivors (and the functions it calls, taken
# from initramfs/guest/init by name) under busybox sh as pid 1 of a
# private pid, mount and cgroup namespace, with cgroup2 mounted at
# /sys/fs/cgroup (a test cgroup ha75-sim-$$ of the host's unified
# hierarchy, removed after), after an "agent" run by a stand-in supervisor
# (sh -c) that leaves a survivor shaped by MODE:
#   helpercg   the survivor moves into egress-init-cell (init's helpers')
#   procmount  ha75-agent procmount: tmpfs at /proc during the check
#   nlname     ha75-agent nlname: a cgroup named "ha75\n0::/egress-cell"
#   root       control: the survivor moves to the cgroup2 root (caught)
# Prints the check's precondition line, the survivors record, and whether
# the survivor was alive after the check. As root, from the worktree:
#   tests/review/ha75-sim.sh MODE [RUNS]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:?MODE}
runs=${2:-1}
tmp=$(mktemp -d /tmp/ha75sim.XXXXXX)
u=$(awk '$9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)
cg=$u/ha75-sim-$$
cleanup() {
	rmdir "$cg"/egress-cell "$cg"/egress-init-cell "$cg" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$cg"
musl-gcc -D_GNU_SOURCE -O2 -static -no-pie -o "$tmp/ha75-agent" "$top/tests/review/ha75-agent.c"
# The functions of init that the check runs.
awk '/^(cg_procs|cell_cg_procs|kill_cgroup|escaped_procs|proc_cover_mounts|check_survivors|undelegate_cell_cgroup)\(\) \{/,/^}/' \
	"$top/initramfs/guest/init" >"$tmp/fns.sh"
cat >"$tmp/init.sh" <<'SIM'
set -u
tmp=$1 mode=$2
mount -t cgroup2 cgroup2 /sys/fs/cgroup
CELL_CG=/sys/fs/cgroup/egress-cell HELPER_CG=/sys/fs/cgroup/egress-init-cell CELL_CG_DELEGATED=
mkdir -p $CELL_CG $HELPER_CG
W=$tmp/w; mkdir -p $W
precondition() { echo "precondition $*"; }
. $tmp/fns.sh
(
	read -r me _ </proc/self/stat
	echo "$me" >"$HELPER_CG/cgroup.procs"
	# The supervisor: in the cell's cgroup, runs the agent, exits.
	sh -c 'echo $$ >/sys/fs/cgroup/egress-cell/cgroup.procs; case $1 in
		procmount) $0/ha75-agent procmount 3 ;;
		nlname) $0/ha75-agent nlname 3 ;;
		helpercg) $0/ha75-agent helpercg /sys/fs/cgroup/egress-init-cell 3 ;;
		root) $0/ha75-agent helpercg /sys/fs/cgroup 3 ;;
		esac; true' "$tmp" "$mode" &
	pid=$!
	wait $pid
	sleep 0.2
	check_survivors
	cat /proc/self/fd/0 </dev/null >/dev/null && echo "init read /proc/self/fd after the check: ok" || echo "init read /proc/self/fd after the check: FAILED"
	[ -s $W/survivors ] && sed 's/^/survivors: /' $W/survivors || echo "survivors: none recorded"
	sleep 0.5
	for d in /proc/[0-9]*; do
		case $(tr '\0' ' ' <$d/cmdline 2>/dev/null) in *ha75-agent*) echo "ALIVE after the check: ${d#/proc/} $(tr '\0' ' ' <$d/cmdline) $(cat $d/cgroup)" ;; esac
	done
)
kill -KILL $(cat $HELPER_CG/cgroup.procs /sys/fs/cgroup/cgroup.procs 2>/dev/null | grep -vx 1) 2>/dev/null
sleep 0.2
rmdir /sys/fs/cgroup/ha75*/egress-cell 2>/dev/null; rmdir $CELL_CG $HELPER_CG /sys/fs/cgroup/ha75* 2>/dev/null
SIM
for i in $(seq 1 "$runs"); do
	echo "=== $mode run $i"
	unshare -pfmC --mount-proc --propagation private sh -c "echo \$\$ >'$cg/cgroup.procs' && exec unshare -C busybox sh '$tmp/init.sh' '$tmp' '$mode'" 2>&1 | grep -v '^$' || true
done
