#!/bin/bash
# ha17-scoped.sh (hostile review h-attack17, against main d07b047): an
# allowed connect() to a link-local address binds the agent's IPv6 UDP
# socket to a1 while another thread's send to the declared ::ffff:198.51.100.7
# sits between the judgement of the device (none) and the act; the
# datagram leaves by a1 and the undeclared ha17x (on a1's link, holding
# 198.51.100.7/32) gets it; the check after the send makes it a mechanism
# failure (capability-error). ha17-scoped.c says how. Namespaces and sinks:
# review-net.sh (ha17*); policy --allow 198.51.100.7:9999 --allow
# [fe80::1]:9999, --no-loopback, uid 1000.
#   ha17-scoped.sh [SUPERVISOR [TEST-BUILD]]   (MODES=seam race undo undorace; HA17_ITER=N for race, undorace)
#   seam and undo run the test build (make supervisor-faults) with
#   EGRESS_SV_FAULT=device_window:EAGAIN; race runs the release build.
#   undo, undorace: a1 gets net.ipv6.conf.a1.disable_ipv6=1 (an IPv4-only link).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
. tests/review/review-net.sh
mkdir -p /tmp/ha17 && chmod 777 /tmp/ha17
review_cc /tmp/ha17/scoped tests/review/ha17-scoped.c || exit 2
d=$(review_stage ha17-scoped "${1:-build/egress-supervisor}" /tmp/ha17/scoped)
cp "${2:-build/faults/egress-supervisor}" "$d/svf" && chown 1000:1000 "$d/svf"
review_net_up ha17 192.0.2.9/24
review_net_sinks ha17 "$d"
for mode in ${MODES:-seam race undo undorace}; do
	env=() bin=sv
	case $mode in seam | undo) env=(EGRESS_SV_FAULT=device_window:EAGAIN) bin=svf ;; esac
	# undo: a1 without IPv6, so that the scoped connect fails after it
	# wrote the device (as while a1's link-local address is tentative).
	ip netns exec ha17a sysctl -qw "net.ipv6.conf.a1.disable_ipv6=$(case $mode in undo*) echo 1 ;; *) echo 0 ;; esac)"
	review_net_run ha17 "$d" "$mode" "${env[@]}" HA17_ITER="${HA17_ITER:-20000}" -- "$d/$bin" \
		--allow 198.51.100.7:9999 --allow "[fe80::1]:9999" -- \
		"$d/agent" "$mode" 198.51.100.7:9999 fe80::1:9999 a1 >"$d/out.$mode"
	grep -v 'event ' "$d/out.$mode"
	grep 'event ' "$d/out.$mode" | sed 's/#[0-9]*//' | sort | uniq -c | sed 's/^/  /'
	cat "$d/err.$mode"
done
echo "--- sinks (UDP lines counted):"
grep -v '^DECLARED.*got UDP' "$d/sinks.log" | uniq -c | sed 's/^/  /'
echo "  declared server: $(grep -c '^DECLARED.*got UDP' "$d/sinks.log") datagrams"
