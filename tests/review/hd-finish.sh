#!/bin/bash
# hd-finish.sh: review h-docaudit. docs/design.md promises (Threat model,
# promise 4) that "nothing of the agent's process tree outlives a run the
# supervisor finished", in every containment mode; the host's integration
# harness checks survivors only after a supervisor that was killed, never
# after one that finished. This runs a uid-1000 supervisor that finishes
# normally (its agent's first process exits 0 at once) and counts what of
# the agent's tree is alive 1 s later, in two modes:
#   userns     the default shape (user-namespace+pid-namespace+landlock)
#   subreaper  user namespaces refused through the seam (userns:EPERM):
#              subreaper+landlock, whose end is a kill loop by parent chain
# and three agents (each a /bin/sh script carrying a marker in its argv):
#   setsid     a setsid grandchild that loops on sleep for about 3 s
#   chain      a fork chain: each generation starts the next and exits
#              every 10 ms (300 generations), so a kill loop must outrun it
#   many       50 setsid grandchildren as setsid's
# A run that waits for the tree (the pid-namespace reaper reaps until the
# namespace is empty) takes about 3 s; one that ends with its agent's
# first process and kills the rest is quick. Either way no survivor may be
# alive after the supervisor exited.
# Prints `MODE AGENT: supervisor exit N, survivors K` per run. Survivors are
# then SIGKILLed by pid (the ones this script found by its marker). The
# supervisor runs in a session of its own (setsid -w), as the harness runs it. As root,
# from the worktree, after make supervisor FAULTS=1:
#   tests/review/hd-finish.sh [RUNS]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-3}
sv=$top/build/faults/egress-supervisor
[ -x "$sv" ] || { echo "hd-finish: $sv missing (make supervisor FAULTS=1)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/hdfinish.XXXXXX)
chmod 0777 "$tmp"
marker=hdfinish-$$
survivors() {
	local p
	for p in /proc/[0-9]*; do
		# the agent's shells only (/bin/sh SCRIPT MARKER), not the
		# supervisor or setpriv, whose argv holds the marker too
		{ tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null | grep -q -- "^/bin/sh .*$marker" &&
			echo "${p#/proc/}"
	done
	return 0
}
cleanup() {
	local p
	for p in $(survivors); do kill -KILL "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
cat >"$tmp/setsid.sh" <<'EOF'
#!/bin/sh
setsid /bin/sh -c 'i=0; while [ $i -lt 60 ]; do sleep 0.05; i=$((i + 1)); done' "$1" </dev/null >/dev/null 2>&1 &
exit 0
EOF
cat >"$tmp/chain.sh" <<'EOF'
#!/bin/sh
n=${2:-0}
[ "$n" -lt 300 ] || exit 0
( sleep 0.01; exec /bin/sh "$0" "$1" $((n + 1)) ) </dev/null >/dev/null 2>&1 &
exit 0
EOF
cat >"$tmp/many.sh" <<'EOF'
#!/bin/sh
i=0
while [ $i -lt 50 ]; do
	setsid /bin/sh -c 'i=0; while [ $i -lt 60 ]; do sleep 0.05; i=$((i + 1)); done' "$1" </dev/null >/dev/null 2>&1 &
	i=$((i + 1))
done
exit 0
EOF
chmod 0755 "$tmp"/*.sh
for mode in userns subreaper; do
	fault=
	[ "$mode" = subreaper ] && fault=userns:EPERM
	for agent in setsid chain many; do
		for _ in $(seq "$runs"); do
			rc=0 t0=$(date +%s.%N)
			EGRESS_SV_FAULT=$fault setsid -w setpriv --reuid 1000 --regid 1000 --clear-groups \
				--inh-caps=-all --bounding-set=-all \
				"$sv" --report "$tmp/report.json" --writable "$tmp" -- \
				/bin/sh "$tmp/$agent.sh" "$marker" >"$tmp/sv.log" 2>&1 || rc=$?
			t1=$(date +%s.%N)
			sleep 1
			n=$(survivors | grep -c . || true)
			shape=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("containment"))' \
				"$tmp/report.json" 2>/dev/null || true)
			printf '%s %s: supervisor exit %s after %.1f s, survivors %s %s\n' "$mode" "$agent" "$rc" \
				"$(echo "$t1 - $t0" | bc)" "$n" "${shape:-(no containment in report)}"
			[ "$rc" -le 3 ] || tail -3 "$tmp/sv.log"
			for p in $(survivors); do kill -KILL "$p" 2>/dev/null || true; done
		done
	done
done
