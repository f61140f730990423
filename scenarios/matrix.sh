#!/usr/bin/env bash
# scenarios/matrix.sh: what `run-vm.sh matrix` execs. The matrix runner is
# scenarios/tools/matrix.py (Python 3 standard library); its options and the
# environment it reads (KERNELS, SCENARIOS, JOBS, SUPERVISOR, EXTRA_SCENARIOS,
# RUN_ID, FLOOR) are in docs/scenarios.md.
set -euo pipefail

command -v python3 >/dev/null || {
	echo "scenarios/matrix.sh: python3 not found (apt-get install python3)" >&2
	exit 2
}
exec python3 "$(dirname "${BASH_SOURCE[0]}")/tools/matrix.py" "$@"
