#!/bin/bash
# ha79-release-same.sh (hostile review h-attack79): main.c and unixpath.c of
# BASE (948470d) and NEW (111e0df) compiled with the release flags (no
# -DSV_FAULTS, no mutant) and their disassembly compared: the
# SV_MUTANT_INTERRUPT_BEFORE_REAP guard and the cwd_window loop change no
# release code. Then make release-has-no-seam and the seam's name in the
# release binary's strings. Run from the worktree after `make supervisor`.
#   ha79-release-same.sh [BASE [NEW]]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
base=${1:-948470d} new=${2:-111e0df} bad=0
t=$(mktemp -d /tmp/ha79-obj.XXXXXX)
trap 'rm -rf "$t"' EXIT
for c in "$base" "$new"; do
	mkdir -p "$t/$c"
	git archive "$c" supervisor | tar -x -C "$t/$c" || exit 2
	for f in main unixpath; do
		musl-gcc -std=c11 -Wall -Wextra -D_GNU_SOURCE -O2 -g0 -isystem build/kheaders \
			-isystem build/sysroot/include -c -o "$t/$c/$f.o" "$t/$c/supervisor/$f.c" || exit 2
		objdump -d --no-show-raw-insn "$t/$c/$f.o" | sed 1,3d >"$t/$c/$f.dis"
	done
done
for f in main unixpath; do
	if cmp -s "$t/$base/$f.dis" "$t/$new/$f.dis"; then
		echo "$f.o: release code of $base and $new identical ($(wc -l <"$t/$new/$f.dis") lines)"
	else
		echo "$f.o: release code differs"
		bad=1
	fi
done
make -s release-has-no-seam || bad=1
echo "cwd_window in the release binary's strings: $(strings build/egress-supervisor | grep -c cwd_window)"
exit "$bad"
