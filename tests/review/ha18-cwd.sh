#!/bin/bash
# ha18-cwd.sh (hostile review h-attack18, against main 22693ed): the root
# agent's working directory is re-resolved by path only when getcwd works
# (sv_contain_mounts: have_cwd). When it does not (the caller's directory was
# removed, or its path is longer than 4096 bytes), the agent starts in the
# mount its caller was in. If that mount is one the new /dev covers (the
# caller worked in /dev/shm), it is a copy the supervisor never made
# read-only or nodev (host_read_only skips everything under /dev, and the
# read-back skips covered mounts): the agent climbs with ".." into the
# host's old /dev (devtmpfs, rw, devices allowed), opens a loop device made
# here over a temp file and writes it, and writes a file into the host's
# /dev/shm. Verdict: pass.
# Two cases: "removed" (cwd rmdir'd before the run) and "long" (cwd path
# longer than 4096 bytes). Never touches any block device but the loop one.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
W=/tmp/ha18
mkdir -p $W
review_cc $W/climb tests/review/ha18-climb.c || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
truncate -s 1M $W/img
LOOP=$(losetup -f --show $W/img) || exit 2
SHM=$(mktemp -d /dev/shm/ha18.XXXXXX)
trap 'losetup -d $LOOP; rm -rf $SHM' EXIT
L=$(basename "$LOOP")

echo "== case removed: cwd $SHM/gone, removed before the run"
dd if=/dev/zero of=$W/img bs=1k count=1 conv=notrunc status=none
mkdir "$SHM"/gone
( cd "$SHM"/gone && rmdir "$SHM"/gone && "$SV" -- $W/climb "$L" HA18-REMOVED marker-removed; echo "supervisor exit $?" )
echo "image starts: $(head -c 12 $W/img | tr -d '\0')"
ls -la "$SHM"

echo "== case long: cwd under $SHM with a path longer than 4096 bytes"
dd if=/dev/zero of=$W/img bs=1k count=1 conv=notrunc status=none
(
	cd "$SHM" || exit 2
	for _ in $(seq 1 25); do
		d=$(printf 'd%.0s' $(seq 1 200))
		mkdir "$d" && cd "$d" || exit 2
	done
	echo "cwd length $(pwd | wc -c)"
	"$SV" -- $W/climb "$L" HA18-LONG marker-long
	echo "supervisor exit $?"
	find "$SHM" -name marker-long | sed 's|/d[d]*|/...|g'
)
echo "image starts: $(head -c 12 $W/img | tr -d '\0')"
