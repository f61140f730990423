#!/bin/bash
# ha42-stall.sh: hostile review h-attack42, the agent stalls or starves the
# host's processes without a lease (05525a1 neutralized F_SETLEASE only).
# Its read-only view of the host's files is enough for flock(LOCK_EX), an
# fcntl F_RDLCK and an OFD F_RDLCK; a host process that locks the same file
# during the run waits (or fails with -w/LOCK_NB). inotify instances are
# counted per uid: a root agent takes root's whole allowance from the host.
# A uid-1000 agent's read lease on a file its uid owns needs no capability
# and is not trapped (only a root agent's F_SETLEASE is): every host writer
# of the caller's own files stalls (fs.lease-break-time, 45 s).
# Nothing is trapped, nothing recorded, the run says pass.
#
#   tests/review/ha42-stall.sh [RUNS]    (as root; root and uid 1000)
# Environment: SV (default build/egress-supervisor), HOLD (6: seconds held),
# WHO (the agents: "root uid1000"), MODES (what they take: "flock posix ofd
# lease inotify"; the integration test wants only uid 1000's lease).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-2}
hold=${HOLD:-6}
sv=${SV:-$top/build/egress-supervisor}
work=$(mktemp -d /tmp/ha42-stall.XXXXXX)
chmod 0755 "$work"
trap 'rm -rf "$work"' EXIT
musl-gcc -D_GNU_SOURCE -O2 -static -no-pie -isystem "$top/build/kheaders" \
	-o "$work/ha42-agent" "$top/tests/review/ha42-agent.c"
cp "$sv" "$work/sv"
# The host's side: python's fcntl, as a host daemon would lock.
cat >"$work/victim.py" <<'PY'
import fcntl, os, sys, time, ctypes
mode, path = sys.argv[1], sys.argv[2]
s = time.monotonic()
if mode == "flock":
    fd = os.open(path, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
elif mode == "lease":
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)  # any writer of the host
elif mode in ("posix", "ofd"):
    fd = os.open(path, os.O_RDWR)
    fcntl.lockf(fd, fcntl.LOCK_EX)  # F_SETLKW F_WRLCK
elif mode == "inotify":
    libc = ctypes.CDLL(None, use_errno=True)
    r = libc.inotify_init1(0)
    print(f"host inotify_init1: {r if r >= 0 else os.strerror(ctypes.get_errno())}")
print(f"host {mode} waited {int((time.monotonic() - s) * 1000)} ms")
PY
hits=0 total=0
for n in $(seq "$runs"); do
	for who in ${WHO:-root uid1000}; do
		for mode in ${MODES:-flock posix ofd lease inotify}; do
			as=()
			[ "$who" = root ] || as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
			echo state >"$work/target"
			chmod 0644 "$work/target"
			# The lease: on a file the agent's uid owns (the caller's own
			# files when the caller runs the supervisor as itself).
			[ "$who" = root ] || chown 1000:1000 "$work/target"
			if [ "$mode" = inotify ]; then
				args=(inotify "$hold")
			else
				args=("$mode" "$work/target" "$hold")
			fi
			set +e
			"${as[@]}" "$work/sv" -- "$work/ha42-agent" "${args[@]}" >"$work/out" 2>&1 &
			sleep 1.5
			# The host process runs as the agent's uid for inotify (the
			# count is per uid), as root for the locks (any host writer).
			if [ "$mode" = inotify ]; then
				v=$("${as[@]}" /usr/bin/python3 "$work/victim.py" "$mode" x 2>&1 | tr '\n' ' ')
			else
				v=$(/usr/bin/python3 "$work/victim.py" "$mode" "$work/target" 2>&1 | tr '\n' ' ')
			fi
			wait $!
			rc=$?
			set -e
			echo "RESULT run $n ($who, $mode): $v; agent: $(head -1 "$work/out"); supervisor exit $rc"
			total=$((total + 1))
			case "$v" in
			*"Too many open files"* | *"waited "[2-9][0-9][0-9][0-9]*) hits=$((hits + 1)) ;;
			esac
		done
	done
done
echo "SUMMARY: the host process waited >= 2 s or was refused in $hits of $total runs"
