#!/bin/bash
# ha47-guest.sh: hostile review h-attack47, the guest leg.
# Runs the ha47-* cells matching PATTERN in batch boots with ha47-agent
# (tests/review/review-guest.sh says how and what it prints).
#   tests/review/ha47-guest.sh [KERNEL [PATTERN]]  (default debian-7.3-cloud, ha47-*)
set -euo pipefail
# shellcheck source=tests/review/review-guest.sh
. "$(dirname "$0")/review-guest.sh"
review_guest ha47 "${1:-debian-7.3-cloud}" "${2:-ha47-*}"
