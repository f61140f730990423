#!/bin/bash
# ha16-net.sh: sourced by the ha16-*.sh reproductions (hostile review
# h-attack16). The five network namespaces of review-net.sh (ha16*):
# the agent's host ha16a has a0 (192.0.2.1, 192.0.2.9; default route via
# the router ha16r to the declared server ha16s, 198.51.100.7) and a1
# (203.0.113.1, a second link); ha16x on a1's link and ha16y on a0's link
# also hold 198.51.100.7/32. Sinks on UDP and TCP 9999 in ha16s, ha16x and
# ha16y log to /tmp/ha16/sinks.log. ha16_run MODE SV AGENT... runs the
# supervisor as uid 1000 in ha16a (--no-loopback --allow 198.51.100.7:9999
# --allow [fe80::1]:9999, report on fd 9; HA16_ENV: VAR=VALUE words for its
# environment, such as EGRESS_SV_FAULT=device_window:EAGAIN HA16_DELAY_US=N
# with the test build) and prints its verdict and events.
. tests/review/review-net.sh
review_net_up ha16 192.0.2.9/24
ip -n ha16x addr add 198.51.100.8/32 dev x0
review_net_sinks ha16 /tmp/ha16
ha16_run() {
	local mode=$1 d=$2 bin=$3
	shift 3
	# shellcheck disable=SC2086 # EXTRA_ALLOW, HA16_ENV: lists of words
	review_net_run ha16 "$d" "$mode" ${HA16_ENV:-} -- "$bin" --allow 198.51.100.7:9999 \
		--allow "[fe80::1]:9999" ${EXTRA_ALLOW:-} -- "$@"
}
ha16_sinks() {
	echo "--- sinks:"
	uniq -c /tmp/ha16/sinks.log | sed 's/^/  /'
}
