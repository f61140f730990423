#!/bin/bash
# ha48-guest.sh: hostile review h-attack48, the guest leg.
# Runs the ha48-* cells matching PATTERN in batch boots with ha48-agent
# (tests/review/review-guest.sh says how and what it prints).
#   tests/review/ha48-guest.sh [KERNEL [PATTERN]]  (default debian-7.3-cloud, ha48-*)
# SUPERVISOR=PATH in the environment runs another build (make passes it on):
#   make mutant-bin MUTANT=failfs-root-fails
#   SUPERVISOR=$PWD/build/mutants/failfs-root-fails/egress-supervisor \
#       tests/review/ha48-guest.sh debian-7.3-cloud 'ha48-a*'   # before 79318a6
set -euo pipefail
# shellcheck source=tests/review/review-guest.sh
. "$(dirname "$0")/review-guest.sh"
review_guest ha48 "${1:-debian-7.3-cloud}" "${2:-ha48-*}"
