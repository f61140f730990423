#!/bin/sh
# hr5-passive.sh: glibc's address-sorting probe of a passive lookup
# (getaddrinfo(NULL, service, AI_PASSIVE) with AF_UNSPEC: the answers are
# :: and 0.0.0.0, and rfc3484_sort connects a UDP socket to each, nothing
# sent) is denied `unspecified-address`, not neutralized `sort-probe` as the
# same probe of named addresses is; every Tcl 8.6 client socket makes that
# lookup for its local address, so every Tcl network client fails the run
# (helper h-realprog5, finding 1).
#
#   tests/review/hr5-passive.sh build/egress-supervisor [N]
#
# Runs in a network namespace of its own (unshare -n, lo up; nothing leaves
# it) with a TCP echo on 127.0.0.1:PORT (outside the supervisor). Cases, as
# root and as uid 1000 (setpriv), N times each, under --no-loopback with the
# echo declared ("strict") and under the default policy ("default"):
#   gai-passive  python3: getaddrinfo(None, 0, AF_UNSPEC, SOCK_STREAM, 0,
#                AI_PASSIVE), nothing else (expected: pass)
#   gai-named    python3: getaddrinfo("localhost", None) with ::1 and
#                127.0.0.1 (the probes at port 0 neutralized: the control)
#   tcl-client   tclsh: socket 127.0.0.1 PORT, a line echoed (expected: pass)
#   perl-lport   perl IO::Socket::IP to 127.0.0.1:PORT with LocalPort 40001:
#                its local lookup is getaddrinfo(NULL, "40001", AI_PASSIVE),
#                probed at port 40001 (expected: pass)
# Prints one line a run (verdict, exit, the events not allowed) and a count.
set -u
SV=$(realpath "$1")
N=${2:-3}
if [ "${HR5_NS:-}" != 1 ]; then
	HR5_NS=1 exec unshare -mn --propagation private sh "$0" "$@"
fi
ip link set lo up
T=$(mktemp -d /tmp/hr5-passive.XXXXXX)
chmod 755 "$T"
mkdir "$T/r"
chmod 1777 "$T/r"
printf '127.0.0.1 localhost\n::1 localhost\n' >"$T/hosts"
mount --bind "$T/hosts" /etc/hosts
PORT=47815
python3 -c '
import socket, sys, threading
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(16)
def one(c):
    c.sendall(c.recv(100)); c.close()
while True:
    c, _ = s.accept(); threading.Thread(target=one, args=(c,), daemon=True).start()
' "$PORT" &
ECHO=$!
trap 'kill $ECHO; umount /etc/hosts; rm -rf "$T"' EXIT
sleep 0.5
# shellcheck disable=SC2016
printf 'set s [socket 127.0.0.1 %s]; fconfigure $s -buffering line; puts $s hr5; gets $s l; exit [expr {$l ne "hr5"}]\n' "$PORT" >"$T/client.tcl"
echo 'import socket; print(socket.getaddrinfo(None, 0, 0, socket.SOCK_STREAM, 0, socket.AI_PASSIVE))' >"$T/gai-passive.py"
echo 'import socket; print(socket.getaddrinfo("localhost", None, 0, socket.SOCK_STREAM))' >"$T/gai-named.py"
# shellcheck disable=SC2016
printf 'use IO::Socket::IP; my $s = IO::Socket::IP->new(PeerHost => "127.0.0.1", PeerPort => %s, LocalPort => 40001, ReuseAddr => 1) or die "$@"; print $s "hr5\n"; my $l = <$s>; exit($l eq "hr5\n" ? 0 : 1);\n' "$PORT" >"$T/lport.pl"
bad=0 runs=0
for pol in strict default; do
	if [ $pol = strict ]; then allow="--no-loopback --allow 127.0.0.1:$PORT"; else allow=""; fi
	for who in root uid1000; do
		if [ $who = root ]; then pre=""; else pre="setpriv --reuid=1000 --regid=1000 --clear-groups"; fi
		for case in gai-passive gai-named tcl-client perl-lport; do
			case $case in
			gai-passive) prog="python3 $T/gai-passive.py" ;;
			gai-named) prog="python3 $T/gai-named.py" ;;
			tcl-client) prog="tclsh $T/client.tcl" ;;
			perl-lport) prog="perl $T/lport.pl" ;;
			esac
			i=0
			while [ $i -lt "$N" ]; do
				i=$((i + 1))
				rep="$T/r/rep-$who-$case-$i.json"
				rm -f "$rep"
				# shellcheck disable=SC2086
				$pre "$SV" --report "$rep" $allow -- $prog >/dev/null 2>"$T/err"
				rc=$?
				# shellcheck disable=SC2016
				ev=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
a = d.get("agent") or {}
print("agent", a.get("exit_code"), ";".join(sorted(set(e["syscall"] + " " + e["dest"] + " " + e["bucket"] + " " + e["reason"]
      for e in d["events"] if e["bucket"] != "allowed" and e["dest"]))))' "$rep" 2>/dev/null)
				runs=$((runs + 1))
				[ $rc = 0 ] || bad=$((bad + 1))
				echo "$pol $who $case run $i: supervisor exit $rc, $ev"
			done
		done
	done
done
echo "$runs runs, $bad not pass"
