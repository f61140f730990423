#!/usr/bin/env bash
# Review h-realprog3: the supervisor run by a socket activator (systemd-socket-activate).
#   hr3-sockact.sh SUPERVISOR listen   # LISTEN_FDS=1: the listener on fd 3 never reaches the agent
#   hr3-sockact.sh SUPERVISOR inetd    # --accept --inetd: the accepted TCP socket on 0-1, default policy
#   hr3-sockact.sh SUPERVISOR inetd-strict  # the same under --no-loopback with the listener's port declared
# Prints the activator's and the supervisor's output and the client's answer; loopback only.
set -euo pipefail
sv=$(realpath "$1")
mode=$2
d=$(mktemp -d /tmp/hr3-sockact.XXXXXX)
act=
cleanup() {
    if [[ -n $act ]]; then kill "$act" 2>/dev/null || true; wait "$act" 2>/dev/null || true; fi
    rm -rf "$d"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
case $mode in
listen)
    cat >"$d/srv.py" <<'PY'
import os, socket, sys
print("agent: LISTEN_FDS", os.environ.get("LISTEN_FDS"), "LISTEN_PID", os.environ.get("LISTEN_PID"), "getpid", os.getpid(), file=sys.stderr)
try:
    s = socket.socket(fileno=3)
except OSError as e:
    print("agent: fd 3:", e, file=sys.stderr)
    sys.exit(1)
c, _ = s.accept()
c.sendall(b"served\n")
PY
    systemd-socket-activate -l "$d/a.sock" -- "$sv" -- /usr/bin/python3 "$d/srv.py" >"$d/out" 2>&1 &
    act=$!
    sleep 1
    echo "client: $(timeout 5 socat -u UNIX-CONNECT:"$d/a.sock" - </dev/null || echo "(nothing, $?)")"
    ;;
inetd | inetd-strict)
    pol=()
    [[ $mode == inetd-strict ]] && pol=(--no-loopback --allow "127.0.0.1:$port")
    # shellcheck disable=SC2016 # $l is the agent shell's
    systemd-socket-activate -l "127.0.0.1:$port" -a --inetd -- "$sv" "${pol[@]}" -- /bin/sh -c 'read -r l; echo "served $l"' >"$d/out" 2>&1 &
    act=$!
    sleep 1
    echo "client: $(echo hello | timeout 5 socat - "TCP:127.0.0.1:$port" || echo "(nothing, $?)")"
    ;;
*)
    echo "usage: $0 SUPERVISOR listen|inetd|inetd-strict" >&2
    exit 2
    ;;
esac
sleep 1
grep -v '^{' "$d/out" | grep -v '^egress-supervisor-report' || true
