#!/bin/bash
# review-unix.sh: sourced by the reproductions whose ground truth is a
# stand-in root service on a host's AF_UNIX socket (ha49, ha51, ha52, ha55,
# ha56, ha59, ha62: a socket on a mount the run sees read-only, so unix-peer
# is due for any name that reaches it; the file GOT says whether anything
# did).
#   review_unix_service SOCK GOT   binds SOCK (mode 0777, so an agent of any
#                                  uid may connect), appends the first 100
#                                  bytes of every connection to GOT, and
#                                  dies with the script (PR_SET_PDEATHSIG,
#                                  trap or not). Returns once SOCK exists,
#                                  with the service's pid in REVIEW_UNIX_PID;
#                                  1 if it never came up (5 s)

review_unix_service() {
	python3 - "$1" "$2" <<'PY' &
import ctypes, os, socket, sys
ctypes.CDLL(None).prctl(1, 9)  # PR_SET_PDEATHSIG: SIGKILL when the script ends
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
s.listen(256)
while True:
    c, _ = s.accept()
    d = c.recv(100)
    with open(sys.argv[2], "ab") as f:
        f.write(d)
    c.close()
PY
	# shellcheck disable=SC2034 # read by the script that sourced this one
	REVIEW_UNIX_PID=$!
	for _ in $(seq 50); do
		[ -S "$1" ] && return 0
		sleep 0.1
	done
	echo "review_unix_service: $1 never came up" >&2
	return 1
}

#   review_unix_modes AGENT DIR GOT PREFIX N CONNECTS SV MODE...
#                                  for each MODE: AGENT DIR MODE CONNECTS
#                                  once unsupervised, then N times under SV
#                                  (--report in GOT's directory), printing
#                                  "MODE m run i: exit RC, sink lines: K,
#                                  recorded: COUNTxBUCKET/REASON/ERRNO ..."
#                                  and the agent's own PREFIX lines (the
#                                  ha56, ha59 and ha62 harnesses)
review_unix_modes() {
	local agent=$1 dir=$2 got=$3 prefix=$4 n=$5 connects=$6 sv=$7 mode i rc hits rec
	local rep err
	rep=$(dirname "$got")/rep
	err=$(dirname "$got")/err
	shift 7
	for mode in "$@"; do
		rm -f "$got"
		"$agent" "$dir" "$mode" "$connects" 2>&1 || true
		sleep 0.5
		echo "UNSUPERVISED $mode: sink lines: $([ -s "$got" ] && grep -c secret "$got" || echo 0)"
		for i in $(seq "$n"); do
			rm -f "$got"
			set +e
			timeout -s KILL 300 "$sv" --report "$rep" -- "$agent" "$dir" "$mode" "$connects" 2>"$err"
			rc=$?
			set -e
			sleep 0.3
			hits=0
			[ -s "$got" ] && hits=$(grep -c secret "$got")
			rec=$(python3 -c 'import json,sys,collections
r=json.load(open(sys.argv[1]))
c=collections.Counter("%s/%s/%s" % (e.get("bucket"), e.get("reason"), e.get("errno")) for e in r.get("events", []) if e.get("family") == "unix")
print(" ".join("%dx%s" % (v, k) for k, v in sorted(c.items())))' "$rep" 2>/dev/null || true)
			echo "MODE $mode run $i: exit $rc, sink lines: $hits, recorded: $rec" \
				"$(grep -o "$prefix [a-z][^:]*: .*" "$err" | sort | uniq -c | tr '\n' ' ')"
		done
	done
}
