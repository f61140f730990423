#!/bin/bash
# ha18-netfs.sh (hostile review h-attack18, against main 22693ed): a host
# mount of a network file system stays readable to the agent, read-only:
# and a read-only mount still sends every lookup to whatever serves it.
# ha18-fused stands for sshfs (a FUSE daemon outside the run that would
# send the name to its server; the kernel's NFS and CIFS clients send it
# themselves). The agent (root here; a uid-1000 agent the same) stats
# "<mount>/<secret>"; the daemon records the name: the secret left the run
# with no trapped call. Verdict: pass. Runs in a private mount namespace.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
mkdir -p /tmp/ha18 /var/tmp/ha18/netfs
review_cc /tmp/ha18/fused tests/review/ha18-fused.c || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
LOG=/tmp/ha18/fused.log
: >$LOG
unshare -m --propagation private bash -c "
/tmp/ha18/fused /var/tmp/ha18/netfs $LOG &
sleep 1
grep ha18 /proc/self/mountinfo
$SV -- /bin/sh -c 'stat /var/tmp/ha18/netfs/SECRET-API-KEY-0123456789 2>&1 | head -1; grep ha18 /proc/self/mountinfo'
echo supervisor exit \$?
umount /var/tmp/ha18/netfs; wait"
echo "the daemon outside the run received:"; cat $LOG
