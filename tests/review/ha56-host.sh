#!/bin/bash
# ha56-host.sh: hostile review h-attack56, host leg (as root, no VM): a
# stand-in root service listens on an undeclared AF_UNIX socket DIR/s.sock
# in a host directory (read-only in the run: unix-peer, exit 1, is due for
# any name that reaches it) and records what reaches it. Modes flip, climb,
# static, staticover. Run by h-attack59's harness, whose agent
# (ha59-agent.c) is ha56-agent's with modes added and these unchanged; its
# lines say ha59.
#   tests/review/ha56-host.sh [N] [CONNECTS]
#     N runs per mode (default 3), CONNECTS per run (default 50);
#     MODES=..., SUPERVISOR=binary, HA59_LINKS, HA59_PHASE_US.
set -euo pipefail
MODES=${MODES:-static staticover flip} exec "$(dirname "$0")/ha59-host.sh" "$@"
