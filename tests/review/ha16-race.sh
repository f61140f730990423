#!/bin/bash
# ha16-race.sh (hostile review h-attack16, against main 9886fc1): give_port's
# port taken away again by an allowed connect(AF_UNSPEC), so a racing failed
# bind(fe80::dead%a1) sets the device of a UDP socket between the
# supervisor's device check and its send; and IP_LOCAL_PORT_RANGE (one port,
# held by a second socket) makes give_port's own bind fail quietly, with the
# same effect on UDP and on a TCP fast-open send; and an untrapped shutdown()
# gives back the port of a TCP socket still in SYN_SENT (ha16-race.c). Each hit: the
# undeclared ha16x gets the 61440-byte payload, verdict capability-error
# (device-binding); a miss is a pass to the declared server. Namespaces and
# sinks: ha16-net.sh.
#   ha16-race.sh [SUPERVISOR]   (MODES=... picks: udp disc discmmsg rangenb range rangetfo synshut, and tfoshut (tried: no leak); RUNS=N repeats)
#   With the test build and HA16_ENV="EGRESS_SV_FAULT=device_window:EAGAIN HA16_DELAY_US=100000",
#   each racing step lands between the judgement of the device and the act.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
mkdir -p /tmp/ha16 && chmod 777 /tmp/ha16
review_cc /tmp/ha16/race tests/review/ha16-race.c || exit 2
d=$(review_stage ha16-race "${1:-build/egress-supervisor}" /tmp/ha16/race)
. tests/review/ha16-net.sh
for _ in $(seq "${RUNS:-1}"); do
	for mode in ${MODES:-udp disc discmmsg rangenb range rangetfo synshut}; do
		# synshut: a declared address nobody on the path answers (the
		# router's ARP for it fails), which ha16x holds on a1's link.
		dest=198.51.100.7:9999 EXTRA_ALLOW=
		[ "$mode" = synshut ] && dest=198.51.100.8:9999 EXTRA_ALLOW="--allow 198.51.100.8:9999"
		EXTRA_ALLOW=$EXTRA_ALLOW ha16_run "$mode" "$d" "$d/sv" "$d/agent" "$mode" "$dest" a1 "$d/payload.$mode"
	done
done
ha16_sinks
