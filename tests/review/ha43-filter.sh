#!/bin/bash
# ha43-filter.sh: hostile review h-attack43, the filter leg. Runs
# tests/review/ha43-filter.tests (what the filter does today on i386, x32,
# high bits, and the input-subsystem ioctls) through libseccomp's BPF
# simulator on the exported filter, as tests/filter does.
#   tests/review/ha43-filter.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
make -s "$top/build/filter/filter-export" "$top/build/filter/scmp_bpf_sim"
python3 tests/filter/run-filter-tests.py --export build/filter/filter-export \
	--sim build/filter/scmp_bpf_sim tests/review/ha43-filter.tests
