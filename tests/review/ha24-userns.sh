#!/bin/bash
# ha24-userns.sh (hostile review h-attack24, held): the agent, in a user and
# mount namespace of its own, tries to reach a program bound read-only
# under the declared path (ha24-userns.c: umount, mount_setattr, remount,
# non-recursive open_tree and bind of its directory, an overlay with that
# directory as upper). Every copy of the bind is MNT_LOCKED there: EINVAL
# or EPERM, "overlayfs: failed to clone upperpath"; the file is unchanged.
# The file is 04777 so that DAC is no obstacle to the namespace's uid.
set -u
cd "$(dirname "$0")/../.." || exit 2
mkdir -p /tmp/ha24
gcc -O2 -static -o /tmp/ha24/userns tests/review/ha24-userns.c || exit 2
cat >/tmp/ha24/userns-inner.sh <<'INNER'
SV=$1 W=/tmp/ha24/work; mkdir -p $W /tmp/ha24-m
mount -t tmpfs -o mode=777 ha24w $W
mkdir -m 777 $W/u; cp /usr/bin/passwd $W/u/passwd; chmod 4777 $W/u/passwd
"$SV" --writable $W -- /tmp/ha24/userns $W/u/passwd
echo "supervisor exit $?"
stat -c '%A %s' $W/u/passwd; cmp -n 4096 $W/u/passwd /usr/bin/passwd && echo unchanged
umount $W
INNER
unshare -m --propagation private bash /tmp/ha24/userns-inner.sh "${SV:-$PWD/build/egress-supervisor}"
rm -f /tmp/ha24/userns-inner.sh
