#!/bin/bash
# ha57-guest.sh: hostile review h-attack57, guest leg: the cells of
# tests/review/ha57-guest/ (ha57-agent modes "all" and "sp-name", root and
# uid 1000) on each kernel named, one VM at a time.
#   tests/review/ha57-guest.sh [KERNEL...]   (default debian-5.10 debian-7.3;
#   PATTERN='ha57-b-*' for finding 1's cell only)
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
review_guest ha57 "$1" "${PATTERN:-ha57-*}" || true
