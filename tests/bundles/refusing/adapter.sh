#!/bin/sh
# The refusing double's adapter (busybox sh in the guest). It ignores the
# appliance's flags and builds its supervisor's own configuration from the
# contract's environment (docs/supervisor-contract.md): a config file of
# `allow SPEC` lines and `loopback yes|no`, turned into that supervisor's
# command line. The agent's argv is what follows `--`.
set -eu
dir=${EGRESS_BUNDLE_DIR:?not run by the appliance}
conf=$(mktemp /tmp/refusing.XXXXXX)
for spec in ${EGRESS_ALLOW:-}; do
	echo "allow $spec"
done >"$conf"
echo "loopback ${EGRESS_LOOPBACK:-yes}" >>"$conf"
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	shift
done
[ $# -gt 0 ] || { echo "refusing: no -- AGENT in the command line" >&2; exit 2; }
shift
# No report: this supervisor does not write the appliance's format, so the
# channel is closed here and never reaches it or the agent.
exec 9>&-
set -- --deny-errno ECONNREFUSED -- "$@"
flags=
while read -r key val; do
	case $key in
	allow) flags="$flags --allow $val" ;;
	loopback) [ "$val" = yes ] || flags="$flags --no-loopback" ;;
	esac
done <"$conf"
rm -f "$conf"
rc=0
# shellcheck disable=SC2086 # $flags: words without spaces, from the config
"$dir/egress-supervisor" $flags "$@" || rc=$?
# Its own statuses: 0 pass, 10 fail, 20 capability-error; anything else
# (a bad invocation, a signal) passes through.
case $rc in
0) exit 0 ;;
1) exit 10 ;;
3) exit 20 ;;
*) exit "$rc" ;;
esac
