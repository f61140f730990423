#!/bin/bash
# ha41-lease.sh: hostile review h-attack41, a root agent's kept CAP_LEASE.
# The agent sees the host's files read-only (rootfs.c), but a read lease
# needs only a read-only descriptor and, on a file it does not own,
# CAP_LEASE: it takes one on a root-owned host file (here a scratch file in
# /tmp, as /etc/resolv.conf or a service's state file would be) and ignores
# the kernel's SIGIO. Every later open of that file for writing or
# truncation by any process of the host blocks until the lease breaks
# (fs.lease-break-time, 45 s) or the agent lets go. The control, uid 1000,
# is refused (EACCES: not the owner).
#
#   tests/review/ha41-lease.sh [RUNS]    (as root)
# Environment: SV (default build/egress-supervisor), HOLD (20: seconds the
# agent holds the lease).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-3}
hold=${HOLD:-20}
sv=${SV:-$top/build/egress-supervisor}
work=$(mktemp -d /tmp/ha41-lease.XXXXXX)
chmod 0755 "$work"
trap 'rm -rf "$work"' EXIT
musl-gcc -D_GNU_SOURCE -O2 -static -no-pie -pthread -isystem "$top/build/kheaders" \
	-o "$work/ha41-agent" "$top/tests/review/ha41-agent.c"
cp "$sv" "$work/sv"
echo "lease-break-time $(cat /proc/sys/fs/lease-break-time)"
for n in $(seq "$runs"); do
	for who in root uid1000; do
		as=()
		[ "$who" = root ] || as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
		echo state >"$work/target"
		chmod 0644 "$work/target"
		"${as[@]}" "$work/sv" -- "$work/ha41-agent" lease "$work/target" "$hold" >"$work/out" 2>&1 &
		sleep 2
		s=$(date +%s%N)
		echo host-write >>"$work/target"
		e=$(date +%s%N)
		wait
		echo "RESULT run $n ($who): the host's append took $(((e - s) / 1000000)) ms; agent: $(grep -o 'F_SETLEASE.*' "$work/out"); $(tail -1 "$work/out")"
	done
done
