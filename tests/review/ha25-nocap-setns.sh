#!/bin/bash
# ha25-nocap-setns.sh (helper h-nsguest, found while deriving the guest's
# setns scenarios): a root supervisor without CAP_SYS_PTRACE (Docker's
# default capability set has none) answers every judged setns with a
# mechanism failure, the run's own namespaces included. nsjoin.c looks for
# the run's processes through the reaper's /proc/PID/ns/pid (runprocs.c,
# run_ns), and the reaper is non-dumpable, so that link is EACCES without
# CAP_SYS_PTRACE (PTRACE_MODE_READ_FSCREDS). `ns-join own` joins a user and
# a network namespace its own child made: expected pass, seen
# capability-error (supervisor exit 3, "setns mechanism_failure proc_ns
# EACCES"). Never a false green, a false red. Fixed: the run's pid
# namespace is named through the calling thread (runprocs.c); mutant
# run-ns-by-reaper puts the old way back. Needs root, the build (make) and
# setpriv.
set -u
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
W=$(mktemp -d /tmp/ha25.XXXXXX) || exit 2
chmod 1777 "$W"
EGRESS_AGENT_LOG=$W/agent.log setpriv --bounding-set -sys_ptrace -- \
	"$SV" --writable "$W" --report "$W/report.json" -- "$PWD/build/agents/ns-join" own
echo "supervisor exit $? (0 pass, 3 capability-error)"
cat "$W/agent.log"
python3 -c 'import json, sys
for e in json.load(open(sys.argv[1]))["events"]:
    print(e["syscall"], e["bucket"], e["mechanism"], e["mechanism_errno"])' "$W/report.json"
rm -rf "$W"
