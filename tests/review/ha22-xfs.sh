#!/bin/bash
# ha22-xfs.sh (hostile review h-attack22): sock_diag reports a socket
# file's inode number in 32 bits (struct unix_diag_vfs.udiag_vfs_ino);
# unixdiag.c matches it against the 64-bit st_ino of the file the agent
# named. On XFS (inode64, the default; RHEL's default file system) inode
# numbers carry the allocation group above bit 31 once an AG is ~1 TB or
# more, so AG 1 and AG 3 (or 0 and 2) give the same low 32 bits at the same
# offset. Part A: a root service's socket in a writable XFS directory; the
# agent, in a user+network namespace of its own (the service's listener is
# not in that namespace's dump), binds sockets in a directory of another AG
# until one agrees in the low 32 bits, holds it, and connects to the
# service's socket file: judged "local" (its own listener), the act
# connects to the service's file. Part B: the run's own socket with an
# inode number above 2^32 never matches: a false red.
# Stand-ins: a sparse 3 TB XFS image (about 1.5 GB on disk) on a loop
# device, a tmpfs for the host's files, all in a private mount namespace.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
command -v mkfs.xfs >/dev/null || { echo "needs mkfs.xfs (apt-get install xfsprogs)"; exit 2; }
mkdir -p /tmp/ha22
gcc -static -O2 -o /tmp/ha22/unix tests/review/ha22-unix.c || exit 2
cat >/tmp/ha22/xfs-inner.sh <<'INNER'
set -u
exec 2>&1
SV=$1 A=/tmp/ha22/unix W=/tmp/ha22/x H=/tmp/ha22/host
mkdir -p $W $H
mount -t tmpfs -o mode=755 ha22-host $H
truncate -s 3T /tmp/ha22/x.img && mkfs.xfs -q -f /tmp/ha22/x.img && mount -o loop /tmp/ha22/x.img $W || exit 1
echo "XFS at $W: $(xfs_info $W | head -1 | sed 's/.*agcount/agcount/')"
# The host's files: a directory per AG (the inode64 rotor), the service's in AG 1.
mkdir $W/home $W/srv && chmod 1777 $W
$A serve $W/srv/api.sock $H/marker &
SVC=$!
sleep 0.5
printf 'host: root service on %s, ino 0x%x\n' $W/srv/api.sock $(stat -c %i $W/srv/api.sock)
echo "== A: the agent connects to the host's socket file"
"$SV" --writable $W -- $A xfs-collide $W $W/srv/api.sock
echo "supervisor exit $?"
sleep 0.3
echo "host's marker: $(cat $H/marker 2>&1)"
kill $SVC
echo "== B: the run's own socket in an AG above 2^32"
for i in 1 2 3 4 5 6; do mkdir $W/b$i; done
for i in 1 2 3 4 5 6; do
  if [ $(( $(stat -c %i $W/b$i) >> 32 )) -gt 0 ]; then
    printf 'directory %s: ino 0x%x\n' $W/b$i $(stat -c %i $W/b$i)
    "$SV" --writable $W -- $A self $W/b$i/own.sock
    echo "supervisor exit $?"
    break
  fi
done
umount $W $H
rm -f /tmp/ha22/x.img
INNER
timeout 300 unshare -m --propagation private bash /tmp/ha22/xfs-inner.sh "$SV"
rm -f /tmp/ha22/xfs-inner.sh /tmp/ha22/x.img
