#!/bin/bash
# ha37-eio.sh: hostile review h-attack37, item 2. 6904772 files a
# /proc/PID/mem read's EIO as an abandoned call (not a mechanism failure)
# when the notifying thread shows no VmSize and its notification dies. A
# live process's thread can have both: it ends itself (a signal handler
# calling SYS_exit) while its connect, whose address is in memfd_secret
# memory the supervisor cannot read, waits. The process lives on. Runs the
# test build with the /proc/PID/mem route forced (process_vm_readv:ENOSYS)
# and counts how the blinded read is filed, for a signal sent at once (the
# thread ends before or during the read) and after 20 ms (after it).
#
#   tests/review/ha37-eio.sh [RUNS]   (as root from the worktree after
#                                    `make FAULTS=1 supervisor`)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-${RUNS:-10}}
cd "$top" || exit 2
work=$(mktemp -d /tmp/ha37-eio.XXXXXX)
trap 'rm -rf "$work"' EXIT
musl-gcc -D_GNU_SOURCE -O2 -static -pthread -o "$work/ha37-eio" tests/review/ha37-eio.c || exit 2
sv=${SV:-build/faults/egress-supervisor}
for delay in 0 20000; do
	abandoned=0 mech=0 other=0
	for n in $(seq "$runs"); do
		rc=0
		EGRESS_SV_FAULT=process_vm_readv:ENOSYS "$sv" -- "$work/ha37-eio" "$delay" \
			>"$work/out" 2>"$work/err" || rc=$?
		line=$(grep -m1 'notifications' "$work/err")
		echo "delay ${delay}us run $n: exit $rc: $line"
		case "$line" in
		*"mechanism failures 0, abandoned 1"*) abandoned=$((abandoned + 1)) ;;
		*"mechanism failures 1"*) mech=$((mech + 1)) ;;
		*) other=$((other + 1)) ;;
		esac
	done
	echo "RESULT: delay ${delay}us: the blinded read filed abandoned in $abandoned, a mechanism failure in $mech, other in $other of $runs runs"
done
