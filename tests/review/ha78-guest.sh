#!/bin/bash
# ha78-guest.sh: hostile review h-attack78, the guest leg (ha78-agent's
# benign and hostile SO_PASSRIGHTS modes), then the agent's stderr lines.
#   tests/review/ha78-guest.sh [KERNEL [PATTERN]]  (default debian-7.3, ha78-*)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kernel=${1:-debian-7.3}
pattern=${2:-ha78-*}
# shellcheck source=tests/review/review-guest.sh
. "$(dirname "$0")/review-guest.sh"
review_guest ha78 "$kernel" "$pattern"
find "$top" -path "*ha78-guest-$$*" -name supervisor_log | sort | while read -r f; do
	echo "LOG $f"
	grep -hE '^(stand-in|race|optlen|level|opt-|fd-|own-|swap|i386|x32|io_uring|uffd|final|tcp|pipe|closed|stdin|clone)' "$f" |
		sed 's/^/  /' || true
done
