#!/bin/bash
# review-unix.sh: sourced by the reproductions whose ground truth is a
# stand-in root service on a host's AF_UNIX socket (ha49, ha51, ha52, ha55:
# a socket on a mount the run sees read-only, so unix-peer is due for any
# name that reaches it; the file GOT says whether anything did).
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
