#!/bin/bash
# review-cc.sh: sourced by the ha*-run.sh reproductions. review_cc OUT SRC...
# builds one static musl reproduction agent against this worktree's build/
# (kernel headers, libseccomp sysroot) with tests/agents/agentlib.c (and the
# supervisor's errnames.c it names errnos with), the
# same way each review built its own. Run from the worktree after `make`.
# Builds into a fixed /tmp/NAME/ (no dot in NAME) hold the lock dir-NAME for
# the rest of the script (review-lock.sh): one run of those at a time.
. tests/review/review-lock.sh

review_cc() {
	local out=$1 b=$PWD/build
	shift
	# A fixed directory (/tmp/ha17, shared by the review's scripts) is one
	# run's at a time: another would rebuild its agents, inner scripts and
	# images under it (review-lock.sh; held until this script ends).
	case $out in
	/tmp/*/*)
		local dir=${out#/tmp/}
		dir=${dir%%/*}
		case $dir in *.*) ;; *) review_lock "dir-$dir" || return 1 ;; esac
		;;
	esac
	musl-gcc -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2 -isystem "$b/kheaders" \
		-isystem "$b/sysroot/include" -static -pthread -Itests/agents -o "$out" \
		"$@" tests/agents/agentlib.c supervisor/errnames.c
}

# review_stage TAG SV AGENT: a fresh /tmp/TAG.XXXXXX holding the supervisor
# binary SV as sv and the agent AGENT as agent, owned by uid 1000 (the
# reproductions run the supervisor as uid 1000). Prints the directory.
# Earlier TAG directories whose script has ended (.owner: its pid) are
# removed first: the last run's stays for a look, and /tmp no longer gains
# one copy of the supervisor per reproduction per CI run (it held 700 of
# them, 1.5 GB, by stop 40; helper h-hygiene).
review_stage() {
	local d old owner
	for old in /tmp/"$1".??????; do
		owner=$(cat "$old/.owner" 2>/dev/null) || continue
		kill -0 "$owner" 2>/dev/null || rm -rf "$old"
	done
	d=$(mktemp -d "/tmp/$1.XXXXXX")
	echo "$$" >"$d/.owner"
	cp "$2" "$d/sv"
	cp "$3" "$d/agent"
	chown -R 1000:1000 "$d"
	echo "$d"
}

# review_print_report JSON: the report's verdict and, per event, its
# syscall, bucket, reason, destination, errno, result and sendmmsg messages.
review_print_report() {
	python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
print("  verdict", r.get("verdict"))
for e in r["events"]:
    print("  event", *(e.get(k) for k in ("syscall", "bucket", "reason", "dest", "errno", "result", "messages")))' "$1"
}
