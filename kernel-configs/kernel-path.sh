#!/bin/bash
# kernel-path.sh NAME: print the cached kernel image for NAME (a name from
# `kernels.sh list`), fetching a Debian kernel or building a custom one first
# when it is not cached. Exits non-zero with a message on stderr otherwise.
# Progress goes to stderr; stdout is only the path.
set -euo pipefail

if (($# != 1)); then
	echo "usage: kernel-path.sh NAME   (names: kernel-configs/kernels.sh list)" >&2
	exit 2
fi
exec "$(dirname "${BASH_SOURCE[0]}")/kernels.sh" path "$1"
