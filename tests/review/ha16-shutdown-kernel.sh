#!/bin/bash
# ha16-shutdown-kernel.sh (hostile review h-attack16): what the kernel does
# with ha16-race.c's synshut and tfoshut steps, unsupervised, as uid 1000
# (ha16-shutdown-kernel.c). Namespaces and sinks: ha16-net.sh.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
mkdir -p /tmp/ha16 && chmod 777 /tmp/ha16
review_cc /tmp/ha16/shutdown-kernel tests/review/ha16-shutdown-kernel.c || exit 2
chmod 755 /tmp/ha16/shutdown-kernel
. tests/review/ha16-net.sh
for mode in nonblocking deferred; do
	echo "== $mode" | tee -a /tmp/ha16/sinks.log
	how=NONBLOCKING=1
	[ "$mode" = deferred ] && how=DEFER=1
	ip netns exec ha16a env "$how" setpriv --reuid 1000 --regid 1000 --clear-groups \
		/tmp/ha16/shutdown-kernel
	sleep 0.5
done
ha16_sinks
