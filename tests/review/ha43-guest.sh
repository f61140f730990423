#!/bin/bash
# ha43-guest.sh: hostile review h-attack43, the guest leg (batch mode).
# Runs the ha43-* cells matching PATTERN in batch boots with ha43-agent
# (tests/review/review-guest.sh says how and what it prints).
#   tests/review/ha43-guest.sh [KERNEL [PATTERN]]  (default debian-6.1-cloud, ha43-*)
set -euo pipefail
# shellcheck source=tests/review/review-guest.sh
. "$(dirname "$0")/review-guest.sh"
review_guest ha43 "${1:-debian-6.1-cloud}" "${2:-ha43-*}"
