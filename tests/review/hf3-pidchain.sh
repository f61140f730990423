#!/bin/bash
# Review h-foreign3 finding 8 on the host (root): pid-chain as init of
# hf3-killer's pid namespace reads getppid() == 0, its second link stops at
# the usage check and the first polls kill(0, 0) for 20 minutes. Exits 0
# when the finding reproduces (the run is still going after 20 s).
# Needs make agents and tests/review/hf3-build.sh.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
log=$(mktemp /tmp/hf3-pidchain.XXXXXX)
trap 'rm -f "$log"' EXIT
rc=0
EGRESS_AGENT_LOG=$log timeout 20 "$top/tests/review/hf3-killer/killer" --report-fd 9 \
	-- "$top/build/agents/pid-chain" 20 9>/dev/null || rc=$?
echo "hf3-pidchain: killer exit $rc (124: still running after 20 s); agent log:"
cat "$log"
[ "$rc" = 124 ]
