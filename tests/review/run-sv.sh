#!/bin/bash
# run.sh TAG -- AGENT ARGS : runs the supervisor with --report-fd 9 on an unlinked file, prints exit + report summary
tag=$1; shift; shift
exec 9<>/tmp/hr/rep.$tag.$$; rm -f /tmp/hr/rep.$tag.$$
timeout -s KILL ${TMO:-20} /tmp/hr/sv --report-fd 9 $SVARGS -- "$@" 2>/tmp/hr/err.$tag
rc=$?
cp /proc/$$/fd/9 /tmp/hr/rec.$tag 2>/dev/null || cat /proc/$$/fd/9 > /tmp/hr/rec.$tag
echo "TAG $tag uid $(id -u) exit $rc"
