#!/bin/bash
# Review h-foreign3: two supervisors of other designs through the appliance.
# Builds the bundles (hf3-build.sh) and runs each through the slices of the
# matrix the review used, one VM at a time, then lists every cell that is not
# ok. Usage: tests/review/hf3-run.sh [KERNEL...] (default debian-6.12
# debian-5.10). Each run is batched: about a minute per bundle and kernel
# under TCG. pid-chain is left out: its agent, as init of hf3-killer's pid
# namespace, idles to its 900 s timeout (finding 8).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || kernels=(debian-6.12 debian-5.10)
slices=()
slices[1]='no-network declared-only blocking-connect udp-sendto-undeclared udp-connected-declared
inherit-fd daemonize threads-load forged-report forged-report-one-userns sink-fill
supervisor-killed killed-supervisor-tree sendmmsg-mixed unix-host-relay unix-inrun-abstract
negative-control exit-storm'
slices[2]='udp-sort-probe udp-held-sends unspecified-dest unspec-disconnect mapped-v6-declared
mapped-v6-undeclared tcp-name-connected fastopen-undeclared listen-wildcard-denied
listen-loopback-allowed signal-interrupt-declared signal-interrupt-undeclared denial-interrupt
withdrawn-connect toctou-flip stdio-socket-undeclared stdio-udp-declared stdio-tcp-declared
x32-connect i386-socketcall io-uring-connect socket-families-denied socket-allowed-kinds
leader-exit-declared exec-chain fork-storm unreachable-name'
slices[3]='outsider-mem cgroup-delegated prlimit-supervisor result-port-forge guest-state-forgery'
slices[4]='outsider-mem core-pattern second-proc-core-pattern key-upcall module-name
module-name-socketpair module-name-ldisc netlink-deputy lease-delegation helper-replace
thread-files nodump cross-process-getfd peer-pid'
make -s supervisor agents >/dev/null
tests/review/hf3-build.sh
for k in "${kernels[@]}"; do
	for b in killer bpfkill; do
		# The killer runs slices 1-3, bpfkill 1, 3 and 4.
		for s in 1 2 3 4; do
			case $b$s in killer4 | bpfkill2) continue ;; esac
			id="hf3-$b-$k-$s"
			make matrix KERNELS="$k" SCENARIOS="$(tr '\n' ' ' <<<"${slices[$s]}")" JOBS=1 RUN_ID="$id" \
				SUPERVISOR="$top/tests/review/hf3-$b" >"/tmp/$id.log" 2>&1 || true
			echo "== $id"
			grep -E '^matrix hf3' "/tmp/$id.log" || tail -3 "/tmp/$id.log"
			grep -E '^[a-z].*  +[A-Z][A-Z-]+$' "/tmp/$id.log" || true
		done
	done
done
