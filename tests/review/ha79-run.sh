#!/bin/bash
# ha79-run.sh (hostile review h-attack79, against 111e0df): the agent
# ha79-agent.c under the supervisor, root and uid 1000, on the host:
#   forms: every form of a connect to the unspecified address on port P
#     (UDP bound to 127.0.0.1, dual-stack v6 with ::ffff:0.0.0.0 and [::]
#     bound v4-mapped, an AF_INET name on a v6 socket, a 64-byte name,
#     UDP-Lite, ICMP ping, raw, SCTP, TCP v4/v6, connect to the declared peer
#     first), each followed by a nameless send; sendto/sendmsg/sendmmsg
#     naming 0.0.0.0. Undeclared TCP+UDP listeners on 127.0.0.1:P count
#     anything that arrives.
#   race: N TCP connects to 0.0.0.0:P on a descriptor another thread swaps
#     (dup2) between a TCP and a UDP socket: how many are recorded
#     neutralized (sort-probe) vs denied, and whether any connection lands.
#   swap: one TCP connect to 0.0.0.0:P; once /proc/TID/syscall shows the
#     thread in connect, another thread dup2()s a UDP socket over the
#     descriptor (SWAPS runs per uid: how many pass with a neutralized event)
#   swap9 (not in the default MODES): the same on 127.0.0.1:9, a
#     sort-probe port of an undeclared address (the race before 111e0df)
#   i386: tests/agents/i386-socketcall (socketcall and i386 connect of a TCP
#     socket) to 0.0.0.0:P: denied foreign-abi, never sort-probe
#   cmsg: SCM_TXTIME (with and without SO_TXTIME, far future, 4 bytes),
#     SO_TIMESTAMPING old/new (good flags, OPT_ID, 8 bytes, with an
#     IP_PKTINFO naming ifindex 2 after it), IPV6_DONTFRAG, to the declared
#     127.0.0.5:DP and [::1]:DP6, one to the undeclared 127.0.0.1:P.
# Supervisor: --no-loopback --allow 127.0.0.5:DP --allow [::1]:DP6.
#   ha79-run.sh [SUPERVISOR]    (MODES="forms race swap cmsg i386", N=200 RACES=3 SWAPS=20)
# Prints per run the agent's lines, the report's events (compressed) and the
# listeners' log. Needs root (runs the uid 1000 leg with setpriv).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
mkdir -p /tmp/ha79 && chmod 777 /tmp/ha79
review_cc /tmp/ha79/agent tests/review/ha79-agent.c || exit 2
review_cc /tmp/ha79/i386 -DAGENTLIB_WRAP_MAIN tests/agents/i386-socketcall.c || exit 2
d=$(review_stage ha79-run "${1:-build/egress-supervisor}" /tmp/ha79/agent)
install -m 755 -o 1000 -g 1000 /tmp/ha79/i386 "$d/i386"
P=${P:-47911} DP=${DP:-47912} DP6=${DP6:-47913}
python3 tests/review/ha79-sinks.py "$d/sinks.log" "$P" "$DP" "$DP6" &
sinks=$!
trap 'kill "$sinks" 2>/dev/null; wait "$sinks" 2>/dev/null' EXIT
for _ in $(seq 50); do grep -q ready "$d/sinks.log" 2>/dev/null && break; sleep 0.1; done
run() { # TAG UID ARGS...
	local tag=$1 uid=$2 pre=() prog=agent
	shift 2
	[ "$1" = i386 ] && prog=i386 && set -- "0.0.0.0:$2"
	[ "$uid" = 1000 ] && pre=(setpriv --reuid 1000 --regid 1000 --clear-groups)
	echo "=== $tag (uid $uid)"
	"${pre[@]}" "$d/sv" --no-loopback --allow "127.0.0.5:$DP" --allow "[::1]:$DP6" \
		--report "$d/rep.$tag.json" -- "$d/$prog" "$@" >"$d/out.$tag" 2>"$d/err.$tag"
	echo "  exit $?"
	sed 's/^/  agent: /' "$d/out.$tag"
	python3 -c 'import collections,json,sys
r = json.load(open(sys.argv[1]))
print("  verdict", r.get("verdict"))
c = collections.Counter()
for e in r["events"]:
    c[" ".join(str(e.get(k)) for k in ("syscall", "bucket", "reason", "dest", "errno", "action"))] += 1
for k, n in sorted(c.items()):
    print("  event x%d %s" % (n, k))' "$d/rep.$tag.json"
}
for uid in 0 1000; do
	for mode in ${MODES:-forms race swap cmsg i386}; do
		case $mode in
		forms) run "forms-$uid" "$uid" forms "$P" "$DP" ;;
		race) for i in $(seq "${RACES:-3}"); do run "race$i-$uid" "$uid" race "$P" "${N:-200}"; done ;;
		swap) for i in $(seq "${SWAPS:-20}"); do run "swap$i-$uid" "$uid" swap "$P"; done ;;
		swap9) for i in $(seq "${SWAPS:-20}"); do run "swap9-$i-$uid" "$uid" swap 9 127.0.0.1; done ;;
		cmsg) run "cmsg-$uid" "$uid" cmsg "$DP" "$DP6" ;;
		i386) run "i386-$uid" "$uid" i386 "$P" ;;
		esac
	done
done
sleep 0.3
echo "--- listeners ($d/sinks.log):"
sed 's/^/  /' "$d/sinks.log"
