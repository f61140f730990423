#!/bin/bash
# rerun2 guest cells: KERNELS='debian-6.1-cloud' tests/review/rerun2/guest.sh
set -eu
HERE=$(cd "$(dirname "$0")" && pwd); TOP=$(cd "$HERE/../../.." && pwd)
X=${EXTRA:-/tmp/rerun2-extra}; rm -rf "$X"; mkdir -p "$X"
cp "$HERE"/guest/*.scenario "$X"/
gcc -O1 -static -pthread -o "$X/rerun2-agent" "$HERE/agent.c"
cd "$TOP" && make -j2 matrix KERNELS="${KERNELS:-debian-6.1-cloud}" SCENARIOS="${SCENARIOS:-rerun2-*}" \
	EXTRA_SCENARIOS="$X" JOBS=1 ACCEL=tcg ISOLATION=boot
