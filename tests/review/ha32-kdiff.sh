#!/bin/bash
# ha32-kdiff.sh (hostile review h-attack32, against 7d6cbe9): the kernel
# alone (no supervisor), in a network namespace of our own: the answer the
# supervisor's connect probe (sv_unixdiag_name_refused, 923d8e9) gets for
# each state a socket bound to an abstract name can be in, next to the
# agent's own connect or sendto. See ha32-kdiff.c. Exit 1 when the probe
# said refused where the agent was not.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
W=/tmp/h-attack32
mkdir -p $W
gcc -static -O2 -Wall -o $W/kdiff tests/review/ha32-kdiff.c || exit 2
unshare -n $W/kdiff
