#!/bin/sh
# Test double (make bundle-smoke): a supervisor that contains nothing. It
# runs the agent unmediated and says pass when the agent exits 0: the
# stand-in for one whose agent's descendants outlive it (review
# h-attack71's ha71-bundle).
while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done
shift
"$@" && exit 0
exit 10
