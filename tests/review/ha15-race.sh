#!/bin/bash
# ha15-race.sh (hostile review h-attack15, against c8ea553): a failed
# bind(fe80::dead%a1) racing the supervisor's payload read still sets the
# device of (1) a TCP socket sending with MSG_FASTOPEN (give_port is for
# datagram sockets only: the connect and the whole payload leave by a1 to
# the undeclared ha15x before the check after the act), (2) a UDP socket
# with IP_BIND_ADDRESS_NO_PORT (give_port's bind then takes no port). Same
# five namespaces of review-net.sh (ha15*); sinks listen on UDP and
# TCP 9999. Supervisor: --no-loopback --allow 198.51.100.7:9999
# --allow [fe80::1]:9999, uid 1000. Modes undo/noundo (ha15-undo.c): write()s
# from a second thread in the window between a failed re-connect and its undo.
#   ha15-race.sh [SUPERVISOR]   (MODES=... picks: tcpplain tfo tfomsg udp noport noundo undo srcport srcaddr;
#   tcpwin tfoconn need the test seam EGRESS_SV_FAULT=device_window, set by the script)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
. tests/review/review-net.sh
mkdir -p /tmp/ha15 && chmod 777 /tmp/ha15
review_cc /tmp/ha15/mm tests/review/ha15-race.c || exit 2
review_cc /tmp/ha15/undo tests/review/ha15-undo.c || exit 2
d=$(review_stage ha15-race "${1:-build/egress-supervisor}" /tmp/ha15/mm)
# tcpwin, tfoconn: the test build (make FAULTS=1 supervisor; SVF=path to pick another)
cp "${SVF:-build/faults/egress-supervisor}" "$d/svf" 2>/dev/null && chown 1000:1000 "$d/svf"
cp /tmp/ha15/undo "$d/undo" && chown 1000:1000 "$d/undo"
review_net_up ha15 192.0.2.9/24
review_net_sinks ha15 "$d"
for mode in ${MODES:-tcpplain tfo tfomsg udp noport noundo undo srcport srcaddr}; do
	case $mode in
	undo | noundo) agent=("$d/undo" "$mode" 198.51.100.7:9999 a1) ;;
	*) agent=("$d/agent" "$mode" 198.51.100.7:9999 a1 "$d/payload.$mode") ;;
	esac
	fault_env=()
	bin=sv
	case $mode in tcpwin | tfoconn) fault_env=(EGRESS_SV_FAULT=device_window:EAGAIN) bin=svf ;; esac
	review_net_run ha15 "$d" "$mode" "${fault_env[@]}" -- "$d/$bin" --allow 198.51.100.7:9999 --allow "[fe80::1]:9999" -- \
		"${agent[@]}"
done
echo "--- sinks:"
uniq -c "$d/sinks.log" | sed 's/^/  /'
