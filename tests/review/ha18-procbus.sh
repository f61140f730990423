#!/bin/bash
# ha18-procbus.sh (hostile review h-attack18, against main 22693ed): a root
# agent opens a PCI device's configuration space in its new /proc for
# writing (/proc/bus/pci is neither bound read-only nor judged: the
# read-back looks at mounts, not at what a writable proc holds). On this
# host only a write past the end (no effect) is made; HA18_PCI_WRITE=1
# (a throw-away guest only) rewrites a read-only register with its value.
# The /proc/irq/*/smp_affinity files are writable the same way.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
mkdir -p /tmp/ha18
review_cc /tmp/ha18/procbus tests/review/ha18-procbus.c || exit 2
dev=$(find /proc/bus/pci -mindepth 2 -maxdepth 2 2>/dev/null | head -1)
[ -n "$dev" ] || { echo "no /proc/bus/pci here"; exit 0; }
build/egress-supervisor -- /tmp/ha18/procbus "$dev" 4096 ${HA18_PCI_WRITE:+really}
echo "supervisor exit $?"
# shellcheck disable=SC2016 # expanded by the agent's shell
build/egress-supervisor -- /bin/sh -c 'for f in /proc/irq/default_smp_affinity /proc/irq/*/smp_affinity; do [ -w "$f" ] && exec 3>>"$f" && echo "irq: $f opened for writing" && break; done'
