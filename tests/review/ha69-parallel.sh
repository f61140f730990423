#!/bin/bash
# ha69-parallel.sh: hostile review h-attack69, false reds on a healthy host
# (as root, no VM). Starts N uid-1000 supervisors at once (default 20),
# each running /bin/true (or CMD), ROUNDS times (default 3), and counts the
# verdicts, containments and exit statuses: on a healthy host every run
# must pass in user-namespace mode. SV: the supervisor (default the
# worktree's build).
#   tests/review/ha69-parallel.sh [N] [ROUNDS]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
sv=${SV:-$top/build/egress-supervisor}
n=${1:-20}
rounds=${2:-3}
read -r -a cmd <<<"${CMD:-/bin/true}"
work=$(mktemp -d /tmp/ha69p.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp "$sv" "$work/sv"
mkdir "$work/out"
chmod 755 "$work" "$work/sv"
chown 1000:1000 "$work/out"
for r in $(seq 1 "$rounds"); do
	pids=()
	for i in $(seq 1 "$n"); do
		(
			cd "$work/out"
			set +e
			setpriv --reuid 1000 --regid 1000 --clear-groups "$work/sv" \
				--report "$work/out/r$r-$i.json" -- "${cmd[@]}" \
				>"$work/out/o$r-$i.txt" 2>&1
			echo $? >"$work/out/x$r-$i"
		) &
		pids+=("$!")
	done
	wait "${pids[@]}"
done
python3 - "$work/out" "$n" "$rounds" <<'PY'
import collections, json, os, sys
out, n, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
tally = collections.Counter()
for r in range(1, rounds + 1):
    for i in range(1, n + 1):
        x = open(os.path.join(out, "x%d-%d" % (r, i))).read().strip()
        try:
            rep = json.load(open(os.path.join(out, "r%d-%d.json" % (r, i))))
            key = (x, rep["verdict"], rep.get("containment"), rep.get("userns_refused"),
                   rep.get("internal_error"))
        except Exception as e:
            key = (x, "no report", str(e), None, None)
        tally[key] += 1
        if key[0] != "0" or key[2] != "user-namespace+pid-namespace+landlock":
            print("round %d run %d:" % (r, i), key)
            print(open(os.path.join(out, "o%d-%d.txt" % (r, i))).read()[-600:])
for k, v in sorted(tally.items(), key=str):
    print(v, "x exit %s %s %s userns_refused=%s internal=%s" % k)
bad = sum(v for k, v in tally.items()
          if k[0] != "0" or k[2] != "user-namespace+pid-namespace+landlock")
print("not a user-namespace pass: %d of %d" % (bad, n * rounds))
PY
