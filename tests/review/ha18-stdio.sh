#!/bin/bash
# ha18-stdio.sh (hostile review h-attack18, against main 22693ed): the
# caller's descriptors 0-2 are of the caller's mounts, not the agent's
# read-only copies. A root agent (1) given a directory on stdin creates a
# file in it on the host's writable root file system; (2) given a file
# read-only on stdin reopens it through /proc/self/fd/0 for writing and
# changes it; (3) given a loop device (made here over a temp file)
# read-only on stdin reopens it the same way and writes the raw device,
# although its /dev holds no block device and every host mount is nodev.
# Verdict: pass each time. Stands for /var/lib (a root service's files), a
# script the caller feeds in, an image a job reads.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
W=/var/tmp/ha18  # on the host's root file system (ext4 /dev/vda here)
mkdir -p $W /tmp/ha18
review_cc /tmp/ha18/stdio tests/review/ha18-stdio.c || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
rm -f $W/created $W/img; echo original >$W/file
truncate -s 1M $W/img
LOOP=$(losetup -f --show $W/img) || exit 2
trap 'losetup -d $LOOP' EXIT

echo "== 1: a directory on stdin ($W, root fs: $(stat -f -c %T $W))"
"$SV" -- /tmp/ha18/stdio created HA18-DIR <$W; echo "supervisor exit $?"
echo "host sees: $(cat $W/created 2>&1)"
echo "== 2: a file read-only on stdin"
"$SV" -- /tmp/ha18/stdio x HA18-FILE <$W/file; echo "supervisor exit $?"
echo "host sees: $(cat $W/file)"
echo "== 3: a loop device read-only on stdin ($LOOP)"
"$SV" -- /tmp/ha18/stdio x HA18-BLOCK <"$LOOP"; echo "supervisor exit $?"
echo "image starts: $(head -c 10 $W/img | tr -d '\0')"
