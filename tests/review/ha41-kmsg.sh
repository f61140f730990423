#!/bin/bash
# shellcheck disable=SC2016 # the inner sh -c script expands its own $1
# ha41-kmsg.sh: hostile review h-attack41, /dev/kmsg on 0-2 (allowed since
# 7bf3c9b: "the kernel's log: read, or written into, never sent"). Any
# writer chooses the record's level: "<0>" is KERN_EMERG, which every
# console prints whatever its loglevel (console_loglevel 4 here), so what an
# agent writes to its stdout leaves the machine wherever the console is a
# serial port captured outside (a cloud VM's serial log, this host's
# ttyS0: /proc/consoles) or netconsole (UDP to the host the administrator
# named). The run says pass. devkmsg's rate limit lets 10 records of up to
# about 1 KiB through each 5 s (printk.devkmsg=ratelimit, the default).
# A uid-1000 agent, the caller's `>/dev/kmsg` opened by root as an init
# script's `exec >/dev/kmsg` leaves it.
#
#   tests/review/ha41-kmsg.sh    (as root)
# Environment: SV (default build/egress-supervisor).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
sv=${SV:-$top/build/egress-supervisor}
work=$(mktemp -d /tmp/ha41-kmsg.XXXXXX)
chmod 0755 "$work"
trap 'rm -rf "$work"' EXIT
cp "$sv" "$work/sv"
tag="ha41-kmsg-$$"
echo "consoles: $(tr '\n' ';' </proc/consoles) printk: $(cat /proc/sys/kernel/printk)"
rc=0
setpriv --reuid 1000 --regid 1000 --clear-groups "$work/sv" -- /bin/sh -c \
	'for i in 1 2 3 4 5 6 7 8 9 10 11 12; do printf "<0>%s %s secret-bytes\n" "$1" "$i"; done' \
	_ "$tag" >/dev/kmsg 2>"$work/err" || rc=$?
n=$(dmesg -x | grep -c "emerg.*$tag" || true)
echo "RESULT: supervisor exit $rc ($(tail -1 "$work/err")); $n records at KERN_EMERG in the kernel's log, printed on every console"
