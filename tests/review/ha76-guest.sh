#!/bin/bash
# ha76-guest.sh: hostile review h-attack76, the guest leg.
# Runs the ha76-* cells matching PATTERN in batch boots with ha76-agent
# (tests/review/review-guest.sh says how and what it prints).
#   tests/review/ha76-guest.sh [KERNEL [PATTERN]]  (default debian-7.3, ha76-*)
set -euo pipefail
# shellcheck source=tests/review/review-guest.sh
. "$(dirname "$0")/review-guest.sh"
review_guest ha76 "${1:-debian-7.3}" "${2:-ha76-*}"
