#!/bin/bash
# Review h-foreign3: builds the foreign supervisors' binaries into their
# bundle directories (tests/review/hf3-killer, hf3-bpfkill), static musl,
# against the kernel headers the tree's build installed (make supervisor).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kh=${KHEADERS:-$top/build/kheaders}
[ -d "$kh/linux" ] || { echo "hf3-build: no $kh (run make supervisor first)" >&2; exit 1; }
cc() { musl-gcc -static -O2 -Wall -Wextra -Werror -isystem "$kh" "$@"; }
cc -pthread -o "$top/tests/review/hf3-killer/killer" "$top/tests/review/hf3-killer/killer.c"
cc -o "$top/tests/review/hf3-bpfkill/bpfkill" "$top/tests/review/hf3-bpfkill/bpfkill.c"
for b in killer bpfkill; do
	python3 "$top/initramfs/host/bundle.py" check "$top/tests/review/hf3-$b"
done
