#!/bin/bash
# ha71-guest.sh: hostile review h-attack71, the guest leg.
# Runs the ha71-* cells matching PATTERN in batch boots with ha71-agent
# (tests/review/review-guest.sh says how and what it prints).
#   tests/review/ha71-guest.sh [KERNEL [PATTERN]]  (default debian-6.1-cloud, ha71-*)
set -euo pipefail
# shellcheck source=tests/review/review-guest.sh
. "$(dirname "$0")/review-guest.sh"
review_guest ha71 "${1:-debian-6.1-cloud}" "${2:-ha71-*}"
