#!/bin/bash
# ha42-vtdiacr.sh: hostile review h-attack42, what a virtual console on 0-2
# still lets any agent change for every VT of the host after 05525a1 dropped
# CAP_SYS_TTY_CONFIG. The agent takes a VT no session holds as its
# controlling terminal (TIOCSCTTY, not trapped: h-attack40), which is
# vt_ioctl's "perm"; KDSKBSENT/KDSKBENT also need the capability on 6.18,
# but KDSKBDIACR (the dead-key accent table, one for all VTs) and
# KDSKBMODE (this VT's keyboard mode: K_OFF leaves it dead after the run)
# need only perm. The agent reads each and writes it back unchanged.
#
#   tests/review/ha42-vtdiacr.sh [VT]    (as root; VT default /dev/tty8)
# Environment: SV (default build/egress-supervisor).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
vt=${1:-/dev/tty8}
sv=${SV:-$top/build/egress-supervisor}
work=$(mktemp -d /tmp/ha42-vtdiacr.XXXXXX)
chmod 0755 "$work"
trap 'rm -rf "$work"' EXIT
cat >"$work/agent.c" <<'C'
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/kd.h>
static struct kbdiacrs d;
static void say(const char *what, int r)
{
	printf("%s: %s\n", what, r ? strerror(errno) : "ok");
}
int main(void)
{
	int m = 0;

	say("TIOCSCTTY", ioctl(0, TIOCSCTTY, 0));
	say("KDGKBDIACR", ioctl(0, KDGKBDIACR, &d));
	say("KDSKBDIACR (the table it has, global)", ioctl(0, KDSKBDIACR, &d));
	say("KDGKBMODE", ioctl(0, KDGKBMODE, &m));
	say("KDSKBMODE (the mode it has)", ioctl(0, KDSKBMODE, m));
	return 0;
}
C
musl-gcc -O2 -static -isystem "$top/build/kheaders" -o "$work/agent" "$work/agent.c"
hits=0
for who in root uid1000; do
	as=()
	[ "$who" = root ] || as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
	rc=0
	out=$("${as[@]}" "$sv" -- "$work/agent" <"$vt" 2>&1) || rc=$?
	echo "RESULT ($who, $vt): supervisor exit $rc; $(echo "$out" | tr '\n' ';' | cut -c1-300)"
	case $out in *"KDSKBDIACR (the table it has, global): ok"*) hits=$((hits + 1)) ;; esac
done
echo "SUMMARY: the global accent table written in $hits of 2 runs"
