#!/bin/bash
# ha19-stdio.sh (hostile review h-attack19): a root agent and the regular
# files sv_rootfs_check_stdio lets through, and the files of a declared
# path as the host sees them (ha19-stdio.c). Stand-ins, in a private mount
# namespace of the script's own: a tmpfs at /tmp/ha19/host for a host file
# system (suid allowed, as / is), a tmpfs at /tmp/ha19/work for the
# declared path, and /tmp/ha19/work/etc a bind of /tmp/ha19/host/etc (a
# mount under the declared path: read-only in the agent's view).
#  A: a file given for reading whose path is under the declared path but
#     on that mount under it: under_declared() says yes by name; the agent
#     reopens /proc/self/fd/0 O_RDWR and writes the host's "/etc".
#  B: a file given for writing (> out): the agent makes it a copy of
#     itself, root's, setuid and with file capabilities; uid 1000 on the
#     host runs it outside the run with euid 0.
#  C: the same planted in the declared path: nosuid in the agent's view,
#     not in the host's.
#  D: an append-only (chattr +a) log given with >>: the agent clears the
#     attribute (CAP_LINUX_IMMUTABLE kept) and rewrites it.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
# shellcheck source=tests/review/review-cc.sh
. tests/review/review-cc.sh
SV=${SV:-$PWD/build/egress-supervisor}
mkdir -p /tmp/ha19
review_cc /tmp/ha19/stdio tests/review/ha19-stdio.c || exit 2
cat >/tmp/ha19/stdio-inner.sh <<'INNER'
set -u
exec 2>&1
SV=$1 A=/tmp/ha19/stdio H=/tmp/ha19/host W=/tmp/ha19/work
mkdir -p $H $W
mount -t tmpfs -o mode=755 ha19-host $H
mount -t tmpfs -o mode=755 ha19-work $W
mkdir -p $H/etc $H/secret $W/etc
chmod 700 $H/secret
echo "root:x:0:0::/root:/bin/sh" >$H/etc/passwd
mount --bind $H/etc $W/etc
cp $A /tmp/ha19/host/agent
chmod 755 /tmp/ha19/host/agent
A=/tmp/ha19/host/agent

echo "== A: $W/etc/passwd (a mount under the declared $W) on stdin, read-only"
"$SV" --writable $W -- $A reopen 0 "HA19-A: written through fd 0" <$W/etc/passwd
echo "supervisor exit $?"
echo "host's $H/etc/passwd: $(cat $H/etc/passwd)"

echo "== B: stdout a file given for writing, $H/out"
"$SV" -- $A suid 1 >$H/out
echo "supervisor exit $?"
echo "host sees: $(stat -c '%A %U' $H/out); getcap: $(getcap $H/out 2>&1)"
echo "uid 1000 runs it on the host, outside the run:"
setpriv --reuid 1000 --regid 1000 --clear-groups $H/out euid $H/secret/B-marker
ls -l $H/secret/B-marker 2>&1

echo "== C: planted in the declared path $W"
"$SV" --writable $W -- $A plant $W/tool
echo "supervisor exit $?"
echo "host sees: $(stat -c '%A %U' $W/tool)"
echo "uid 1000 runs it on the host, outside the run:"
setpriv --reuid 1000 --regid 1000 --clear-groups $W/tool euid $H/secret/C-marker
ls -l $H/secret/C-marker 2>&1

echo "== D: an append-only log on stdout (>>)"
echo "line 1: the job started" >$H/audit.log
chattr +a $H/audit.log && lsattr $H/audit.log
"$SV" -- $A unappend 1 "HA19-D: history rewritten" >>$H/audit.log
echo "supervisor exit $?"
echo "host's log: $(cat $H/audit.log); $(lsattr $H/audit.log)"
chattr -a $H/audit.log 2>/dev/null
umount $W/etc $W $H
INNER
unshare -m --propagation private bash /tmp/ha19/stdio-inner.sh "$SV"
rm -f /tmp/ha19/stdio-inner.sh
