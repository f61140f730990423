#!/bin/bash
# ha25-setid.sh (hostile review h-attack25, against c88bfaf): a root agent
# against the setid walk (rootfs.c bind_setid, dab563c) and the mode
# filter (filter.c add_setuid). Stand-in: a btrfs loop image in a private
# mount namespace is the declared path W, holding W/su (a setuid-root copy
# of passwd), W/plain (the same bytes, 0755, not setuid) and W/capme (uid
# 1000's, 0755). Agent: ha25-setid.c. Expected: every way refused, nothing
# privileged for uid 1000 afterwards (all held in our run).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
T=/tmp/h-attack25
mkdir -p $T
gcc -O2 -static -Wall -o $T/setid tests/review/ha25-setid.c || exit 2
cat >$T/setid-inner.sh <<'INNER'
set -u
exec 2>&1
SV=$1 T=/tmp/h-attack25
W=$T/w A=$T/setid
mkdir -p $W
truncate -s 300M $T/btrfs.img
mkfs.btrfs -q -f $T/btrfs.img >/dev/null 2>&1 || { echo "no mkfs.btrfs"; exit 2; }
mount -o loop $T/btrfs.img $W
chmod 755 $W
cp /usr/bin/passwd $W/su; chmod 4755 $W/su
cp /usr/bin/passwd $W/plain; chmod 0755 $W/plain
cp $A $W/capme; chown 1000:1000 $W/capme; chmod 0755 $W/capme
mkdir -p $W/up $W/wk $W/mnt $W/low
cp /usr/bin/passwd $W/low/su2; chmod 4755 $W/low/su2
"$SV" --writable $W -- /bin/sh -c "
	echo '-- O_TMPFILE'; $A tmpfile $W
	echo '-- fchmodat2'; $A fchmodat2 $W/plain
	echo '-- chmod through /proc/self/fd'; $A procfd $W/plain
	echo '-- mknod'; $A mknod $W/new
	echo '-- dedupe into the bound program'; $A dedupe $W/plain $W/su
	echo '-- hard link of the bound program'; $A link $W/su $W/su-link
	echo '-- security.capability from a user namespace'; $A userns-cap $W/capme 1000
	echo '-- overlay copy-up of a bound setuid program'; $A ovl $W/low $W/up $W/wk $W/mnt su2
	true"
echo "supervisor exit $?"
echo "host sees:"
ls -l $W | sed 's/^/  /'
ls -l $W/up 2>/dev/null | sed 's/^/  up: /'
echo "  capme: $(getcap -n $W/capme 2>&1)"
setpriv --reuid 1000 --regid 1000 --clear-groups $W/capme try-setuid
umount $W
INNER
timeout 120 unshare -m --propagation private bash $T/setid-inner.sh "$SV"
rm -f $T/setid-inner.sh $T/btrfs.img
