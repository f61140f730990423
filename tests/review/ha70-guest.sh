#!/bin/bash
# ha70-guest.sh: hostile review h-attack70, the guest leg.
# Runs the ha70-* cells matching PATTERN in batch boots with ha70-agent
# (tests/review/review-guest.sh says how and what it prints).
#   tests/review/ha70-guest.sh [KERNEL [PATTERN]]  (default debian-7.3, ha70-*)
set -euo pipefail
# shellcheck source=tests/review/review-guest.sh
. "$(dirname "$0")/review-guest.sh"
review_guest ha70 "${1:-debian-7.3}" "${2:-ha70-*}"
