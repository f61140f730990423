#!/bin/bash
# Review h-attack60: a root cell of a batch leaves a change the reset of
# 04409e0 does not see, and the next cell of the same boot
# (hiso2-z-victim: a connect to an undeclared destination, expected fail;
# after encap hiso2-z-victim-loopback, a declared loopback connect) is
# compared with the same cell in a boot of its own (ISOLATION=boot).
#   tests/review/hiso2-outcome.sh [-n N] [KERNEL] KIND...
# KIND: mmap clock mmapagent patch encap encapprepend hashcost deep (hiso2-scenarios/hiso2-a-KIND.scenario;
# patch's is written here). -n N: N batches
# per KIND (the hit rate). Prints, per batch, the victim's outcome in the
# batch and in its own boot, the plant's "hiso2" lines and the reset's
# rootfs/clock lines between them. Run from the worktree, as root, after
# `make supervisor agents initramfs-guest`. One VM at a time.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
N=1
if [[ ${1:-} == -n ]]; then
	N=$2
	shift 2
fi
KERNEL=debian-6.1-cloud
if [[ ${1:-} == debian-* ]]; then
	KERNEL=$1
	shift
fi
DIR=$TOP/tests/review/hiso2-scenarios
musl-gcc -D_GNU_SOURCE -O2 -static -no-pie -isystem "$TOP/build/kheaders" \
	-o "$DIR/hiso2-agent" "$TOP/tests/review/hiso2-agent.c"
# KIND patch: the scenario is written now, with the file offset of
# sv_policy_allows in this build's supervisor (the bundle the initramfs
# stages) and its first 6 bytes, replaced by "mov $1,%eax; ret".
SV_BIN=$TOP/build/egress-supervisor
addr=$(nm "$SV_BIN" | awk '$3 == "sv_policy_allows" { print $1 }')
off=$(readelf -lW "$SV_BIN" | while read -r kind o v _ s _; do
	[[ $kind == LOAD ]] || continue
	if ((16#$addr >= v && 16#$addr < v + s)); then
		echo $((16#$addr - v + o))
	fi
done)
old=$(od -An -tx1 -j "$off" -N 6 "$SV_BIN" | tr -d ' \n')
cat >"$DIR/hiso2-a-patch.scenario" <<EOS
# Written by hiso2-outcome.sh (review h-attack60): a root service patches the
# supervisor in the root filesystem by mmap (sv_policy_allows at file
# offset $off answers true), ctime kept; only the next cell's outcome is
# compared.
name = hiso2-a-patch
description = a root service patches sv_policy_allows in /opt/supervisor by mmap, ctime kept
agent = /agents/no-network
service = /agents/hiso2-agent patch /opt/supervisor/* $off $old b801000000c3
isolation = batch
timeout = 60
expect_agent_exit = 0
expect = pass: the agent makes no network call; what the service leaves is judged by the next cell's outcome
EOS
# shellcheck disable=SC2064 # the paths are fixed now, for the trap
trap "rm -f '$DIR/hiso2-agent' '$DIR/hiso2-a-patch.scenario'" EXIT
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
run() { # RUN_ID ISOLATION SCENARIOS
	env KERNELS="$KERNEL" SCENARIOS="$3" JOBS=1 ISOLATION="$2" COSTS=none FLOOR=3 \
		RUN_ID="$1" EXTRA_SCENARIOS="$DIR" BUILD="$TOP/build" "$TOP/run-vm.sh" matrix \
		>"/tmp/$1.log" 2>&1 || true
}
outcome() { # RUN_ID SCENARIO
	python3 - "$TOP/results/$1/summary.json" "$2" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for c in s["cells"]:
    if c["scenario"] == sys.argv[2]:
        print(f"{c['outcome']} ({c['reason'][:200]})")
        break
PY
}
victim() { [[ $1 == encap* ]] && echo hiso2-z-victim-loopback || echo hiso2-z-victim; }
run "hiso2-boot-$STAMP" boot "hiso2-z-victim*"
for k in "$@"; do
	v=$(victim "$k")
	boot=$(outcome "hiso2-boot-$STAMP" "$v")
	for i in $(seq 1 "$N"); do
		id="hiso2-$k-$i-$STAMP"
		run "$id" batch "hiso2-a-$k $v"
		echo "$k#$i: batch: $(outcome "$id" "$v")"
		echo "$k#$i: boot:  $boot"
		pdir=("$TOP/results/$id/cells/hiso2-a-$k"+*)
		grep -h "^hiso2 " "${pdir[0]}"/guest/supervisor_log "${pdir[0]}"/guest/service.* 2>/dev/null | sed "s/^/$k#$i:   plant: /" || true
		vdir=("$TOP/results/$id/cells/$v"+*)
		if [[ -f ${vdir[0]}/guest/reset ]]; then
			grep -E 'reset:(rootfs|clock|processes|network)|precondition|as at boot after' "${vdir[0]}/guest/reset" |
				sed "s/^/$k#$i:   reset: /" || true
		else
			echo "$k#$i:   (no reset section: the victim ran in a boot of its own)"
		fi
	done
done
