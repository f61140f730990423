#!/bin/bash
# review-net.sh: sourced by the output-interface reproductions (ha12-oif,
# ha13-bindfail, ha14-mmsg, ha14-reconnect, ha15-race) after review-cc.sh.
# They share one topology of five network namespaces made here and removed
# on exit (veth pairs between them; the host's own network is not touched),
# named after the review's prefix P:
#
#   Pa  the agent's host: a0 192.0.2.1/24 (default via 192.0.2.254, the
#       router) and a1 203.0.113.1/24 (a second link, e.g. a café LAN)
#   Pr  router: 192.0.2.254 <-> 198.51.100.254, forwarding; its LAN side
#       is a bridge (br0) so that Py shares a0's link
#   Ps  the declared server 198.51.100.7 (UDP and TCP sink on 9999)
#   Px  another host on a1's link that also holds 198.51.100.7/32: an
#       undeclared destination, whatever its address says
#   Py  another host on a0's own link holding 198.51.100.7/32 too (for
#       MSG_DONTROUTE and SO_DONTROUTE, which skip the gateway)

. tests/review/review-lock.sh

REVIEW_NS=()
REVIEW_SINKS_LOG=/dev/null
REVIEW_NET_LOCK=

# review_net_clean: kills what runs in the namespaces and removes them.
# No step stops the rest (a namespace already gone is the usual case).
review_net_clean() {
	local n
	for n in "${REVIEW_NS[@]}"; do ip netns pids "$n" 2>/dev/null | xargs -r kill 2>/dev/null || true; done
	sleep 0.2
	for n in "${REVIEW_NS[@]}"; do ip netns del "$n" 2>/dev/null || true; done
}

# review_net_down: review_net_clean, then lets review_net_up's lock go
# (the EXIT trap). A script that names its own REVIEW_NS and calls this
# first holds the lock of its first namespace's name from here on.
review_net_down() {
	if [ -z "$REVIEW_NET_LOCK" ] && [ "${#REVIEW_NS[@]}" -gt 0 ]; then
		REVIEW_NET_LOCK=net-${REVIEW_NS[0]}
		review_lock "$REVIEW_NET_LOCK" || exit 2
		review_net_clean
		return 0
	fi
	review_net_clean
	if [ -n "$REVIEW_NET_LOCK" ]; then
		review_unlock "$REVIEW_NET_LOCK"
		REVIEW_NET_LOCK=
	fi
	return 0
}

# review_net_up P [ADDR/LEN...]: the five namespaces, each ADDR added to a0
# as well (ha15's srcaddr mode binds a second address of a0's link).
# Removed on exit.
review_net_up() {
	local p=$1 n l ns dev
	shift
	REVIEW_NS=("${p}a" "${p}r" "${p}s" "${p}x" "${p}y")
	# One run of prefix P at a time (review-lock.sh): another's clean start
	# would delete these namespaces under this run.
	REVIEW_NET_LOCK=net-${p}a
	review_lock "$REVIEW_NET_LOCK" || exit 2
	trap review_net_down EXIT
	review_net_clean
	for n in "${REVIEW_NS[@]}"; do ip netns add "$n" && ip -n "$n" link set lo up; done
	ip link add a0 netns "${p}a" type veth peer name r0 netns "${p}r"
	ip link add r1 netns "${p}r" type veth peer name s0 netns "${p}s"
	ip link add a1 netns "${p}a" type veth peer name x0 netns "${p}x"
	ip link add ry netns "${p}r" type veth peer name y0 netns "${p}y"
	ip -n "${p}r" link add br0 type bridge
	ip -n "${p}r" link set r0 master br0
	ip -n "${p}r" link set ry master br0
	ip -n "${p}a" addr add 192.0.2.1/24 dev a0
	for l in "$@"; do ip -n "${p}a" addr add "$l" dev a0; done
	ip -n "${p}a" addr add 203.0.113.1/24 dev a1
	ip -n "${p}r" addr add 192.0.2.254/24 dev br0
	ip -n "${p}y" addr add 192.0.2.66/24 dev y0
	ip -n "${p}y" addr add 198.51.100.7/32 dev y0
	ip -n "${p}r" addr add 198.51.100.254/24 dev r1
	ip -n "${p}s" addr add 198.51.100.7/24 dev s0
	ip -n "${p}x" addr add 203.0.113.66/24 dev x0
	ip -n "${p}x" addr add 198.51.100.7/32 dev x0
	for l in "a a0" "a a1" "r r0" "r ry" "r br0" "r r1" "s s0" "x x0" "y y0"; do
		read -r ns dev <<<"$l"
		ip -n "$p$ns" link set "$dev" up
	done
	ip -n "${p}a" route add default via 192.0.2.254
	ip -n "${p}s" route add default via 198.51.100.254
	ip netns exec "${p}r" sysctl -qw net.ipv4.ip_forward=1
}

# review_net_sinks P DIR: a UDP and TCP sink on port 9999 in Ps, Px and Py,
# each line in DIR/sinks.log (REVIEW_SINKS_LOG) ("NAME got UDP N bytes 'DATA' from PEER",
# "NAME accepted TCP from PEER", "NAME got TCP N bytes 'DATA' from PEER" when
# the connection closes); returns once all three listen.
review_net_sinks() {
	local p=$1 dir=$2 n
	cat >"$dir/sink.py" <<'PY'
import select, socket, sys
name = sys.argv[1]
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("0.0.0.0", 9999))
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); t.bind(("0.0.0.0", 9999)); t.listen(8)
conns = {}
while True:
    r, _, _ = select.select([u, t] + list(conns), [], [], 90)
    if not r: break
    for s in r:
        if s is u:
            data, peer = u.recvfrom(65536)
            print("%s got UDP %d bytes %r from %s" % (name, len(data), data[:40].decode(errors="replace"), peer[0]), flush=True)
        elif s is t:
            c, peer = t.accept(); conns[c] = [peer, b""]
            print("%s accepted TCP from %s" % (name, peer[0]), flush=True)
        else:
            d = s.recv(65536)
            if d: conns[s][1] += d; continue
            peer, data = conns.pop(s); s.close()
            print("%s got TCP %d bytes %r from %s" % (name, len(data), data[:40].decode(errors="replace"), peer[0]), flush=True)
PY
	REVIEW_SINKS_LOG=$dir/sinks.log
	rm -f "$dir/sinks.log"
	ip netns exec "${p}s" python3 "$dir/sink.py" "DECLARED server ${p}s 198.51.100.7" >>"$dir/sinks.log" 2>&1 &
	ip netns exec "${p}x" python3 "$dir/sink.py" "UNDECLARED host ${p}x on a1's link" >>"$dir/sinks.log" 2>&1 &
	ip netns exec "${p}y" python3 "$dir/sink.py" "UNDECLARED host ${p}y on a0's link" >>"$dir/sinks.log" 2>&1 &
	for n in "${p}s" "${p}x" "${p}y"; do
		for _ in $(seq 50); do ip netns exec "$n" ss -Hltn 'sport = :9999' | grep -q . && break; sleep 0.1; done
	done
}

# review_net_print_channel FILE: the last whole record of a --report-fd
# stream: its verdict and containment, and per event its syscall, bucket,
# reason, destination, action, errno, result, mechanism and sendmmsg
# messages.
review_net_print_channel() {
	python3 -c 'import json,sys
data = open(sys.argv[1], "rb").read(); i = 0; r = None
while i < len(data):
    nl = data.find(b"\n", i); hdr = data[i:nl].split(); n = int(hdr[2])
    if len(data) - nl - 1 < n: break
    r = json.loads(data[nl + 1:nl + 1 + n]); i = nl + 1 + n
print("  verdict", r["verdict"], "containment", r["containment"])
for e in r["events"]:
    print("  event", e["syscall"], e["bucket"], e["reason"], e["dest"], e["action"], e["errno"], e["result"], e.get("mechanism"), e.get("messages", ""))' "$1"
}

# review_net_run P DIR MODE [ENV=VALUE...] -- SUPERVISOR-ARGS... -- AGENT...:
# runs the supervisor in Pa as uid 1000 (as root with REVIEW_AS_ROOT=1) with
# --report-fd 9 on DIR/rep.MODE (unlinked once open), marks MODE in the
# sinks' log, then prints "== MODE: supervisor exit N (its last
# stderr line)" and the channel's last record (kept in DIR/channel.MODE).
review_net_run() {
	local p=$1 dir=$2 mode=$3 rc
	local -a env=() sv=() as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
	shift 3
	while [ "$1" != -- ]; do
		env+=("$1")
		shift
	done
	shift
	while [ "$1" != -- ]; do
		sv+=("$1")
		shift
	done
	shift
	[ "${REVIEW_AS_ROOT:-0}" = 1 ] && as=()
	echo "== $mode" >>"$REVIEW_SINKS_LOG"
	exec 9<>"$dir/rep.$mode"
	rm -f "$dir/rep.$mode"
	ip netns exec "${p}a" env "${env[@]}" "${as[@]}" \
		"${sv[@]}" --no-loopback --report-fd 9 -- "$@" 2>"$dir/err.$mode"
	rc=$?
	echo "== $mode: supervisor exit $rc ($(tail -1 "$dir/err.$mode"))"
	cp "/proc/$$/fd/9" "$dir/channel.$mode"
	exec 9>&-
	review_net_print_channel "$dir/channel.$mode"
	sleep 0.3
}
