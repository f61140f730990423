#!/bin/bash
# Review h-isolate: a root service in one cell of a batch leaves kernel state
# (KIND: rule bpf pids rlimit xfrm xfrmgone; reset-plant outcome-KIND), and the next
# cell of the same boot, hiso-victim-declared (declared-only under a name
# that sorts after the plant's; hiso-victim-loopback after the bpf plant), is
# compared with the same cell in a boot of its own (ISOLATION=boot).
#   tests/review/hiso-outcome.sh [--old] KIND...
# --old: egress-reset as at 97c2285 (built from git into build/hiso-old/bin,
# passed as GUEST_BIN); without it the worktree's guest programs. Prints one
# line per KIND: the victim's outcome in the batch and in its own boot, and
# the reset's lines that ran between the two cells. Run from the worktree,
# as root, after `make supervisor agents initramfs-guest`. One VM at a time.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
GB=
if [[ ${1:-} == --old ]]; then
	shift
	GB=$TOP/build/hiso-old/bin
	mkdir -p "$GB" /tmp/hiso-oldsrc
	for f in reset.c reset_util.c reset_net.c reset_snap.c reset.h; do
		git show 97c2285:initramfs/guest/$f >/tmp/hiso-oldsrc/$f
	done
	cp build/initramfs/bin/* "$GB"/
	musl-gcc -std=c11 -D_GNU_SOURCE -O2 -isystem build/kheaders -isystem build/sysroot/include \
		-static -o "$GB/egress-reset" /tmp/hiso-oldsrc/reset*.c
fi
victim() { [[ $1 == bpf ]] && echo hiso-victim-loopback || echo hiso-victim-declared; }
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
run() { # RUN_ID ISOLATION SCENARIOS
	env ${GB:+GUEST_BIN="$GB"} KERNELS=debian-6.1-cloud SCENARIOS="$3" JOBS=1 ISOLATION="$2" \
		COSTS=none FLOOR=3 RUN_ID="$1" EXTRA_SCENARIOS="$TOP/tests/review/hiso-scenarios" \
		BUILD="$TOP/build" "$TOP/run-vm.sh" matrix >"/tmp/$1.log" 2>&1 || true
}
outcome() { # RUN_ID SCENARIO-PREFIX
	python3 - "$TOP/results/$1/summary.json" "$2" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for c in s["cells"]:
    if c["cell"].split(".", 1)[0] == sys.argv[2] or c["scenario"] == sys.argv[2]:
        print(f"{c['outcome']} ({c['reason'][:160]})")
        break
PY
}
run "hiso-boot-$STAMP" boot "hiso-victim-*"
for k in "$@"; do
	VICTIM=$(victim "$k")
	boot=$(outcome "hiso-boot-$STAMP" "$VICTIM")
	id="hiso-$k-$STAMP"
	run "$id" batch "hiso-plant-$k $VICTIM"
	vdir=("$TOP/results/$id/cells/$VICTIM"+*)
	echo "$k: batch: $(outcome "$id" "$VICTIM")"
	echo "$k: boot:  $boot"
	if [[ -f ${vdir[0]}/guest/reset ]]; then
		sed "s/^/$k:   /" "${vdir[0]}/guest/reset"
	else
		echo "$k:   (no reset section: the victim ran in a boot of its own)"
	fi
done
