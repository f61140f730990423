#!/bin/bash
# ha22-falsered.sh (hostile review h-attack22): the run's own socket file
# is compared with sock_diag's UNIX_DIAG_VFS by the st_dev fstat gives; the
# kernel reports the superblock's s_dev there. They differ on btrfs (every
# subvolume's st_dev is an anonymous device of its own, the top level's
# too) and on overlayfs whose layers are on different file systems without
# xino (a non-directory's st_dev is its real layer's): no listener matches,
# the probe connects to the run's own listener (which sees an empty
# connection) and the connect is denied unix-peer: fail for a job that
# talks to its own server. tmpfs and overlay with xino=on for comparison.
# (XFS with inode numbers above 2^32: ha22-xfs.sh part B.)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
command -v mkfs.btrfs >/dev/null || { echo "needs mkfs.btrfs (apt-get install btrfs-progs)"; exit 2; }
mkdir -p /tmp/ha22
gcc -static -O2 -o /tmp/ha22/unix tests/review/ha22-unix.c || exit 2
cat >/tmp/ha22/falsered-inner.sh <<'INNER'
set -u
exec 2>&1
SV=$1 A=/tmp/ha22/unix W=/tmp/ha22/w B=/tmp/ha22/ovl
mkdir -p $W $B
run() { "$SV" --writable $1 -- $A self $1/own.sock; echo "supervisor exit $?"; }
echo "== btrfs (a loop image)"
truncate -s 1G /tmp/ha22/b.img && mkfs.btrfs -q -f /tmp/ha22/b.img >/dev/null 2>&1
mount -o loop /tmp/ha22/b.img $W
echo "stat dev $(stat -c %D $W), superblock $(grep " $W " /proc/self/mountinfo | awk '{print $3}')"
run $W
umount $W; rm -f /tmp/ha22/b.img
echo "== tmpfs"
mount -t tmpfs t $W; run $W; umount $W
mount -t tmpfs t $B && mkdir -p $B/u $B/w $B/m /tmp/ha22/lower
for opt in "" ",xino=on"; do
  rm -rf $B/u/* $B/w/*
  echo "== overlayfs, lower on / and upper on tmpfs$opt"
  mount -t overlay o -o lowerdir=/tmp/ha22/lower,upperdir=$B/u,workdir=$B/w$opt $B/m || continue
  echo "stat dev $(stat -c %D $B/m), superblock $(grep " $B/m " /proc/self/mountinfo | awk '{print $3}')"
  run $B/m
  umount $B/m
done
umount $B
INNER
timeout 120 unshare -m --propagation private bash /tmp/ha22/falsered-inner.sh "$SV"
rm -f /tmp/ha22/falsered-inner.sh
