#!/bin/bash
# ha74-guest.sh: hostile review h-attack74, the guest leg (survivors check).
# Runs the ha74-* cells matching PATTERN in batch boots with ha74-agent
# (tests/review/review-guest.sh says how and what it prints). Under the
# passthrough bundle (contains nothing) each must be oracle-mismatch:
#   SUPERVISOR=$PWD/tests/bundles/passthrough tests/review/ha74-guest.sh debian-6.1-cloud
#   tests/review/ha74-guest.sh [KERNEL [PATTERN]]  (default debian-6.1-cloud, ha74-*)
set -euo pipefail
# shellcheck source=tests/review/review-guest.sh
. "$(dirname "$0")/review-guest.sh"
review_guest ha74 "${1:-debian-6.1-cloud}" "${2:-ha74-*}"
