#!/bin/bash
# ha20-setid.sh (hostile review h-attack20): a root agent under fb67a5d and
# f347e94 still leaves a privilege-granting executable on a host mount
# that honours it (ha20-modes.c). Stand-ins, in a private mount namespace
# of the script's own: a tmpfs at /tmp/ha20/host for a host file system
# (suid allowed, as / is) and a tmpfs at /tmp/ha20/work for the declared
# path; $H/secret (0700 root) for a root-only directory and $H/shadow
# (0640 root:42) for /etc/shadow. Each planted file is then run on the
# host, outside the run, by uid 1000.
#  A: setgid: fchown root:6 (disk) or 42 (shadow), fchmod 02755 (S_ISGID
#     is not trapped): uid 1000 runs it with that egid and reads $H/shadow.
#  B: stdout a file given for writing (> $H/out), the same with gid 42.
#  C: CAP_FSETID kept: a setuid-root file already on the declared path (a
#     root file system being built there) truncated and rewritten keeps
#     S_ISUID: uid 1000 runs the agent's program with euid 0.
#  D: (did not work) file capabilities without CAP_SETFCAP: a user
#     namespace mapping host uid 0 to 1, a VFS_CAP_REVISION_3
#     security.capability with rootid 1: the uid_map write is EPERM.
#  E: the filter itself, every mode call with S_ISUID on x86_64, x32 and
#     i386 (all EPERM; i386 is SIGSEGV on a host without IA32 emulation);
#     io_uring (ENOSYS); open O_CREAT with a garbage mode (EPERM: a false
#     red where it was a file of odd mode before).
#  F: false red: tar -xpf of an archive with a setuid member into the
#     declared path exits 2 ("Cannot change mode"), the member left 0700.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
# shellcheck source=tests/review/review-cc.sh
. tests/review/review-cc.sh
SV=${SV:-$PWD/build/egress-supervisor}
mkdir -p /tmp/ha20
review_cc /tmp/ha20/modes tests/review/ha20-modes.c || exit 2
cat >/tmp/ha20/setid-inner.sh <<'INNER'
set -u
exec 2>&1
SV=$1 H=/tmp/ha20/host W=/tmp/ha20/work
mkdir -p $H $W
mount -t tmpfs -o mode=755 ha20-host $H
mount -t tmpfs -o mode=755 ha20-work $W
mkdir -p $H/secret
chmod 700 $H/secret
echo "root:\$6\$SECRET-HASH:19000:0:99999:7:::" >$H/shadow
chown 0:42 $H/shadow
chmod 640 $H/shadow
cp /tmp/ha20/modes $H/agent
chmod 755 $H/agent
A=$H/agent
outside() { # PLANTED MARKER: uid 1000 runs PLANTED on the host
	echo "host sees: $(stat -c '%A %U:%G' "$1"); getcap: $(getcap "$1" 2>&1)"
	echo "uid 1000 runs it on the host, outside the run:"
	setpriv --reuid 1000 --regid 1000 --clear-groups "$1" euid "$2" $H/shadow
	ls -l "$2" 2>&1
}

echo "== A: setgid disk (6) and shadow (42) in the declared path $W"
"$SV" --writable $W -- $A sgid $W/disk 6
echo "supervisor exit $?"
outside $W/disk $H/secret/A-disk
"$SV" --writable $W -- $A sgid $W/shadow 42
echo "supervisor exit $?"
outside $W/shadow $H/secret/A-shadow

echo "== B: setgid shadow on stdout, a file given for writing ($H/out)"
"$SV" -- $A sgid /proc/self/fd/1 42 >$H/out
echo "supervisor exit $?"
outside $H/out $H/secret/B-marker

echo "== C: a setuid-root program already on the declared path, rewritten"
mkdir -p $W/rootfs/usr/bin
cp /bin/true $W/rootfs/usr/bin/passwd
chmod 4755 $W/rootfs/usr/bin/passwd
"$SV" --writable $W -- $A fsetid $W/rootfs/usr/bin/passwd
echo "supervisor exit $?"
outside $W/rootfs/usr/bin/passwd $H/secret/C-marker

echo "== D: file capabilities through a user namespace mapping uid 0 to 1"
"$SV" --writable $W -- $A userns $W/capped
echo "supervisor exit $?"
outside $W/capped $H/secret/D-marker

echo "== E: the filter: S_ISUID on every ABI, io_uring, a garbage mode"
mkdir -p $W/abi
"$SV" --writable $W -- $A abi $W/abi
echo "supervisor exit $?"
"$SV" -- $A iouring
echo "supervisor exit $?"
"$SV" --writable $W -- $A garbage $W/garbage
echo "supervisor exit $?"

echo "== F: tar -xpf with a setuid member into the declared path"
mkdir -p /tmp/ha20/src
cp /bin/true /tmp/ha20/src/su
chmod 4755 /tmp/ha20/src/su
tar -C /tmp/ha20 -cf /tmp/ha20/src.tar src
"$SV" --writable $W -- /bin/sh -c "tar -C $W -xpf /tmp/ha20/src.tar; echo tar exit \$?"
echo "supervisor exit $?"
ls -l $W/src
rm -rf /tmp/ha20/src /tmp/ha20/src.tar
umount $W $H
INNER
unshare -m --propagation private bash /tmp/ha20/setid-inner.sh "$SV"
rm -f /tmp/ha20/setid-inner.sh
