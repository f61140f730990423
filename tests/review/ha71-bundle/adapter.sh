#!/bin/sh
# Hostile review h-attack71: a foreign supervisor that contains nothing.
# It runs the agent unmediated and says pass when the agent exits 0: the
# stand-in for a supervisor whose agent's descendants outlive it.
while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done
shift
"$@" && exit 0
exit 10
