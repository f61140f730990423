#!/bin/bash
# ha50-host.sh: hostile review h-attack50, host leg (as root, no VM). A
# stand-in root service listens on an undeclared AF_UNIX socket in a host
# directory (read-only in the agent's namespace: unix-peer, exit 1, is due)
# and records what reaches it. Modes (ha50-agent.c):
#   deep  the directory is more than a page deep: /proc/TID/cwd cannot be
#         read (ENAMETOOLONG), and the supervisor's answer is its bucket
#   race  a sibling thread flips a tmpfs over the agent's working directory
#   long  the directory's name is under a page but with the socket's name
#         over PATH_MAX, which the supervisor's lookup of the whole refuses
#   race1 the same, one connect per run (the run's only call)
#   chdir a sibling thread switches the shared working directory between
#         the host directory and /
#   plain / bind  the directory, or a bind mount of it (false-red check)
#   late  (a FAULTS=1 build, whose cwd_window holds between the
#         directory's proof and the name's lookup until the name stops
#         naming the directory, at most 3 s) a tmpfs lands over the
#         directory inside that window (600 ms after the connect), once
#   late-escape  the same from DIR/e with the name ../s.sock (a name that
#         leaves its directory, looked up from the root)
#   absent  the directory, a name nothing is bound to (ENOENT and pass due)
#   tests/review/ha50-host.sh [N]   (N runs per mode, default 3; MODES=... to pick)
set -euo pipefail
# The bind mode's mount is made in a mount namespace of the script's own
# (private propagation): it ends with the script, however the script ends
# (a SIGKILL runs no trap), and never reaches the host's namespace.
if [ "${HA50_PRIVATE:-}" != 1 ]; then
	exec env HA50_PRIVATE=1 unshare -m --propagation private bash "$0" "$@"
fi
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-3}
sv=${SUPERVISOR:-$top/build/egress-supervisor}
work=$(mktemp -d /tmp/ha50.XXXXXX)
srv=
# Every step may fail (the service gone, nothing mounted): none may stop
# the rest (the bind mount once outlived the script on the host, and every
# later root agent's run was refused: its read-only pass could not remount
# it; the mount is now the script's own namespace's).
cleanup() {
	if [ -n "$srv" ]; then
		kill "$srv" 2>/dev/null || true
	fi
	umount "$work/b" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
gcc -O2 -Wall -static -pthread -o "$work/agent" "$top/tests/review/ha50-agent.c"
mkdir -p "$work/h/e" "$work/b" "$work/d" "$work/l"
long=$(printf 'y%.0s' $(seq 95)).sock
python3 - "$work/h" "$work/d" "$work/l" "$long" "$work/got" <<'PY' &
import ctypes, os, socket, sys, selectors
ctypes.CDLL(None).prctl(1, 9)  # PR_SET_PDEATHSIG: SIGKILL when the script ends, trap or not
sel = selectors.DefaultSelector()
for d in sys.argv[1:4]:
    os.chdir(d)
    # Under d: 20 components of 240 x's (about 4.8 kB, over a page);
    # under l: 16 of 240 and one of 150 (4 kB, just under PATH_MAX).
    comps = {"d": [240] * 20, "l": [240] * 16 + [150]}.get(d[-1], [])
    for c in comps:
        os.makedirs("x" * c, exist_ok=True)
        os.chdir("x" * c)
    name = sys.argv[4] if d.endswith("/l") else "s.sock"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(name); s.listen(64)
    sel.register(s, selectors.EVENT_READ)
while True:
    for k, _ in sel.select():
        c, _ = k.fileobj.accept()
        d = c.recv(100)
        open(sys.argv[5], "ab").write(d)
        c.close()
PY
srv=$!
sleep 1
# Ground truth without the supervisor: the kernel reaches both sockets.
for m in deep long; do
	name=s.sock
	[ "$m" = long ] && name=$long
	rm -f "$work/got"
	"$work/agent" "$work/${m:0:1}" "$name" "$m" 2>&1 || true
	echo "UNSUPERVISED $m: sink reached: $([ -s "$work/got" ] && echo yes || echo no)"
done
case " ${MODES:-bind} " in
*" bind "*) mount --bind "$work/h" "$work/b" ;;
esac
for mode in ${MODES:-plain bind deep long race race1 chdir}; do
	case $mode in
	deep) dir=$work/d ;;
	long) dir=$work/l ;;
	bind) dir=$work/b ;;
	*) dir=$work/h ;;
	esac
	amode=$mode
	case $mode in bind | absent) amode=plain ;; esac
	for i in $(seq "$n"); do
		rm -f "$work/got"
		case $mode in
		long) name=$long ;;
		late-escape) name=../s.sock ;;
		absent) name=absent.sock ;;
		*) name=s.sock ;;
		esac
		fault=
		case $mode in late*) fault=cwd_window:EIO ;; esac
		set +e
		EGRESS_SV_FAULT=$fault timeout -s KILL 60 "$sv" -- "$work/agent" "$dir" "$name" "$amode" 2>"$work/err"
		rc=$?
		set -e
		if [ "$mode" = deep ] && [ "$i" = 1 ]; then
			grep -i 'proc_cwd\|mechanism' "$work/err" | head -3
		fi
		got=no
		[ -s "$work/got" ] && got=yes
		echo "MODE $mode run $i: exit $rc, sink reached: $got" \
			"$(grep -o 'ha50 [a-z].*\|unix-peer[^ ]*\|mechanism[^,]*\|capability[^,]*' "$work/err" | sort | uniq -c | head -4 | tr '\n' ' ')"
	done
done
