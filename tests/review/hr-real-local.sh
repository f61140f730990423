#!/bin/bash
# Review h-realprog: name resolution through a loopback DNS server, and an
# AF_UNIX HTTP service, under egress-supervisor as root and uid 1000.
# The host's /etc/resolv.conf is never touched: a private mount namespace
# binds one that names only 127.0.0.1 over it, and hr-real-local.py checks
# that before anything resolves.
#   tests/review/hr-real-local.sh build/egress-supervisor [OUT]
set -euo pipefail
sv=$(realpath "$1")
out=${2:-/tmp/hr-real-local}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
printf 'nameserver 127.0.0.1\noptions attempts:1 timeout:2\n' >"$out/resolv.conf"
# shellcheck disable=SC2016 # expanded by the inner bash, from its arguments
exec unshare --mount --propagation private -- bash -c '
    set -euo pipefail
    mount --bind "$1/resolv.conf" /etc/resolv.conf
    exec /usr/bin/python3 "$2/hr-real-local.py" "$3" "$1"' _ "$out" "$here" "$sv"
