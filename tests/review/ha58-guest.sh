#!/bin/bash
# ha58-guest.sh: hostile review h-attack58, the guest leg.
# Runs the ha58-* cells matching PATTERN in batch boots with ha58-agent
# (tests/review/review-guest.sh says how and what it prints).
#   tests/review/ha58-guest.sh [KERNEL [PATTERN]]  (default debian-7.3, ha58-*)
set -euo pipefail
# shellcheck source=tests/review/review-guest.sh
. "$(dirname "$0")/review-guest.sh"
review_guest ha58 "${1:-debian-7.3}" "${2:-ha58-*}"
