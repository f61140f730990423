#!/bin/bash
# Review h-realprog: apt-get update through a loopback proxy under
# egress-supervisor as root (apt drops to _apt for its methods). Nothing
# can leave the host even unsupervised: a private mount namespace gives
# /etc/hosts mirror.hr.test -> 127.0.0.1 and a resolv.conf naming only
# 127.0.0.1 (nobody answers there), sources.list names only
# mirror.hr.test, and the "proxy" answers 404 to everything and forwards
# nothing. Expected: pass, apt exit 100 (every index 404), requests logged.
# A second run points the proxy at an undeclared port: fail, nothing logged.
#   tests/review/hr-real-apt.sh build/egress-supervisor
set -euo pipefail
sv=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
out=/tmp/hr-real-apt
rm -rf "$out" && mkdir -p "$out/lists/partial" "$out/cache/archives/partial" && chmod -R 755 "$out"
chown -R _apt:root "$out/lists" "$out/cache" 2>/dev/null || true
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
other=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
echo "deb http://mirror.hr.test/debian bookworm main" >"$out/sources.list"
printf '127.0.0.1 localhost\n127.0.0.1 mirror.hr.test\n' >"$out/hosts"
printf 'nameserver 127.0.0.1\noptions attempts:1 timeout:1\n' >"$out/resolv.conf"
/usr/bin/python3 "$here/hr-real-apt-proxy.py" "$port" "$out/requests.log" &
p1=$!
/usr/bin/python3 "$here/hr-real-apt-proxy.py" "$other" "$out/requests-undeclared.log" &
p2=$!
trap 'kill $p1 $p2' EXIT
sleep 1
# shellcheck disable=SC2016 # expanded by the inner bash
unshare --mount --propagation private -- bash -c '
    set -uo pipefail
    sv=$1 out=$2 port=$3 other=$4
    mount --bind "$out/hosts" /etc/hosts
    mount --bind "$out/resolv.conf" /etc/resolv.conf
    grep -qx "nameserver 127.0.0.1" /etc/resolv.conf || exit 9
    for aim in declared undeclared; do
        p=$port
        [ "$aim" = undeclared ] && p=$other
        rep=$out/report-$aim.json
        "$sv" --report-fd 9 --writable "$out" --no-loopback --allow "127.0.0.1:$port" -- \
            apt-get -q -o "Acquire::http::Proxy=http://127.0.0.1:$p" -o "Dir::Etc::SourceList=$out/sources.list" \
            -o Dir::Etc::SourceParts=/nonexistent -o "Dir::State::Lists=$out/lists" -o "Dir::Cache=$out/cache" \
            -o Debug::NoLocking=1 -o Acquire::Retries=0 update 9>"$rep" >"$out/apt-$aim.log" 2>&1
        rc=$?
        echo "$aim: supervisor exit $rc, apt exit $(grep -o "\"exit_code\": [0-9a-z]*" "$rep" | tail -1 | cut -d" " -f2)," \
            "not allowed: $(grep -o "\"dest\": \"[^\"]*\", \"bucket\": \"[a-z_]*\", \"reason\": \"[a-z-]*\"" "$rep" | grep -v allowed | sort -u | tr "\n" " ")"
    done' _ "$sv" "$out" "$port" "$other"
count() { if [ -f "$1" ]; then wc -l <"$1"; else echo 0; fi; }
echo "declared proxy got $(count "$out/requests.log") requests; undeclared proxy got $(count "$out/requests-undeclared.log")"
