#!/bin/bash
# ha47-filter.sh: hostile review h-attack47, the filter leg. Runs
# tests/review/ha47-filter.tests (what the filter does today with the calls
# Linux 6.10-7.3 added) through libseccomp's BPF
# simulator on the exported filter, as tests/filter does.
#   tests/review/ha47-filter.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
make -s "$top/build/filter/filter-export" "$top/build/filter/scmp_bpf_sim"
python3 tests/filter/run-filter-tests.py --export build/filter/filter-export \
	--sim build/filter/scmp_bpf_sim tests/review/ha47-filter.tests
