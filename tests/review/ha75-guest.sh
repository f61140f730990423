#!/bin/bash
# ha75-guest.sh: hostile review h-attack75, the guest leg (survivors check after dcba926).
# Runs the ha75-* cells matching PATTERN in batch boots with ha75-agent
# (tests/review/review-guest.sh says how and what it prints). Under the
# passthrough bundle (contains nothing) each must be oracle-mismatch:
#   SUPERVISOR=$PWD/tests/bundles/passthrough tests/review/ha75-guest.sh debian-6.1-cloud
#   tests/review/ha75-guest.sh [KERNEL [PATTERN]]  (default debian-6.1-cloud, ha75-*)
set -euo pipefail
# shellcheck source=tests/review/review-guest.sh
. "$(dirname "$0")/review-guest.sh"
review_guest ha75 "${1:-debian-6.1-cloud}" "${2:-ha75-*}"
