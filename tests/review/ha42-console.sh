#!/bin/bash
# ha42-console.sh: hostile review h-attack42, 05525a1 refused /dev/kmsg on
# 0-2 again because a record written there reaches every console (a
# provider's serial log, netconsole). The consoles themselves pass the
# stdio check: /dev/console (5:1) and the console's own line (ttyS0 here,
# hvc0 on a Xen or virtio console) are tty class, no pty master; so is
# /dev/ttyprintk (5:3, Debian builds it as a module: by reading, this host's
# kernel has none), which printk()s what is written to it at KERN_INFO,
# without kmsg's rate limit. Each device is given on stdout to an agent that
# writes one line; the supervisor's exit and the agent's write are printed.
# /dev/kmsg is the control (refused: exit 3). One harmless line per device
# reaches this host's console.
#
#   tests/review/ha42-console.sh [RUNS]    (as root)
# Environment: SV (default build/egress-supervisor).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-1}
sv=${SV:-$top/build/egress-supervisor}
echo "consoles: $(tr -s ' ' </proc/consoles | tr '\n' ';')"
hits=0 total=0
for n in $(seq "$runs"); do
	for dev in /dev/console "/dev/$(cut -d' ' -f1 /sys/class/tty/console/active)" /dev/ttyprintk /dev/kmsg; do
		[ -c "$dev" ] || {
			echo "RESULT run $n ($dev): absent"
			continue
		}
		rc=0
		err=$("$sv" -- /bin/sh -c "echo 'ha42-console: the agent wrote this line on $dev' && echo wrote >&2" \
			</dev/null 2>&1 >"$dev") || rc=$?
		echo "RESULT run $n ($dev): supervisor exit $rc; $(echo "$err" | tr '\n' ' ' | cut -c1-160)"
		if [ "$dev" != /dev/kmsg ]; then
			total=$((total + 1))
			[ "$rc" = 0 ] && hits=$((hits + 1))
		fi
	done
done
echo "SUMMARY: a console on stdout passed in $hits of $total runs (kmsg, the same destination, refused)"
