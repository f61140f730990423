#!/bin/bash
# ha77-guest.sh: hostile review h-attack77, the guest leg.
# Runs the ha77-* cells matching PATTERN (tests/review/ha77-guest/) in batch
# boots with ha77-agent, then prints each cell's outcome and the agent's
# "ha77:" lines.
#   tests/review/ha77-guest.sh [KERNEL [PATTERN]]  (default debian-6.1-cloud, ha77-*)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kernel=${1:-debian-6.1-cloud}
pattern=${2:-ha77-*}
# shellcheck source=tests/review/review-guest.sh
. "$(dirname "$0")/review-guest.sh"
review_guest ha77 "$kernel" "$pattern"
# The agent's own lines start "ha77:", which review_guest does not grep.
find "$top" -path "*ha77-guest-$$*" -name supervisor_log | sort | while read -r f; do
	echo "LOG $f"
	grep -h '^ha77' "$f" | sed 's/^/  /' || true
done
