#!/bin/bash
# ha66-guest.sh: hostile review h-attack66, guest leg: the cells of
# tests/review/ha66-guest/ (ha66-agent, root and uid 1000) on each kernel
# named, one VM at a time.
#   tests/review/ha66-guest.sh [KERNEL...]   (default debian-5.10 debian-7.3)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$#" -ne 1 ]; then
	# one process per kernel: review_guest names its run after $$
	if [ "$#" -eq 0 ]; then
		set -- debian-5.10 debian-7.3
	fi
	for k in "$@"; do
		"$0" "$k" || true
	done
	exit 0
fi
# shellcheck source=tests/review/review-guest.sh
. "$top/tests/review/review-guest.sh"
review_guest ha66 "$1" "${PATTERN:-ha66-*}" || true
