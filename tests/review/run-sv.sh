#!/bin/bash
# run-sv.sh TAG -- AGENT [ARG]...: runs /tmp/hr/sv with --report-fd 9 on an
# unlinked file (TMO seconds, then SIGKILL, like a CI harness), copies the
# channel to /tmp/hr/rec.TAG and prints the exit status. SVARGS: extra
# supervisor arguments, split on spaces.
set -uo pipefail
tag=$1
shift 2
exec 9<>"/tmp/hr/rep.$tag.$$"
rm -f "/tmp/hr/rep.$tag.$$"
read -r -a extra <<<"${SVARGS:-}"
timeout -s KILL "${TMO:-20}" /tmp/hr/sv --report-fd 9 "${extra[@]}" -- "$@" 2>"/tmp/hr/err.$tag"
rc=$?
cat "/proc/$$/fd/9" >"/tmp/hr/rec.$tag"
echo "TAG $tag uid $(id -u) exit $rc"
