#!/bin/bash
# ha19-chroot.sh (hostile review h-attack19): the supervisor run as root
# inside a chroot. Its /proc/self/mountinfo lists only the mounts under the
# chroot, so only those are made read-only; the agent keeps CAP_SYS_CHROOT,
# climbs out of the chroot (ha19-chroot.c) and writes a mount outside it.
# Stand-ins, in a private mount namespace of the script's own: a tmpfs at
# /tmp/ha19/srv holds the chroot (a build chroot on /srv), a tmpfs at
# /tmp/ha19/hostfs stands for the host's writable file systems outside it
# (/, /var, /run). The chroot's root is a mount of its own, as schroot's
# are. Nothing of the real host is written.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
# shellcheck source=tests/review/review-cc.sh
. tests/review/review-cc.sh
SV=${SV:-$PWD/build/egress-supervisor}
mkdir -p /tmp/ha19
review_cc /tmp/ha19/chroot-agent tests/review/ha19-chroot.c || exit 2
cat >/tmp/ha19/chroot-inner.sh <<'INNER'
set -u
exec 2>&1
SV=$1
mkdir -p /tmp/ha19/srv /tmp/ha19/hostfs
mount -t tmpfs ha19-srv /tmp/ha19/srv
mount -t tmpfs ha19-hostfs /tmp/ha19/hostfs
R=/tmp/ha19/srv/chroot
mkdir -p $R/bin $R/proc $R/dev $R/tmp $R/work
# schroot's directory chroots are bind mounts (/run/schroot/mount/NAME):
# the chroot's root is a mount root (else the supervisor's first
# mount(MS_PRIVATE) on / says EINVAL and the run is refused).
mount --bind $R $R
cp "$SV" $R/bin/egress-supervisor
cp /tmp/ha19/chroot-agent $R/bin/agent
mount -t proc proc $R/proc
mount --rbind /dev $R/dev
echo "== the supervisor in the chroot $R; the agent writes /tmp/ha19/hostfs/marker (outside it)"
chroot $R /bin/egress-supervisor -- /bin/agent /tmp/ha19/hostfs/marker HA19-CHROOT
echo "supervisor exit $?"
echo "host sees: $(cat /tmp/ha19/hostfs/marker 2>&1)"
umount -l $R/dev $R/proc $R
umount /tmp/ha19/hostfs /tmp/ha19/srv
INNER
unshare -m --propagation private bash /tmp/ha19/chroot-inner.sh "$SV"
rm -f /tmp/ha19/chroot-inner.sh
