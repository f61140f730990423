#!/bin/bash
# ha75-procknobs.sh: hostile review h-attack75, part 1 (e5b2dae: a root
# agent's fresh /proc with sv_rootfs_proc_knobs bound read-only). As root
# on the host, from the worktree, after make supervisor. Under our
# supervisor as host root and in unshare -Ur:
#  1. lists every non-per-process file of the agent's /proc it can open
#     O_WRONLY (opened, never written), and every file of each /proc/PID
#     it is not;
#  2. nested namespaces: a second sysfs, proc, cgroup2, cgroup v1 mount;
#  3. finding 1: writes 19 to /proc/1/autogroup (the reaper's, which is
#     the caller's session's autogroup) and prints the caller's autogroup
#     after the run. Runs in a session of its own (setsid) and sets its
#     nice back to 0 after.
#   tests/review/ha75-procknobs.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
sv=$top/build/egress-supervisor
tmp=$(mktemp -d /tmp/ha75.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
cat >"$tmp/enum.py" <<'PY'
import os
knobs = ("/proc/sys", "/proc/bus", "/proc/fs", "/proc/irq", "/proc/acpi", "/proc/scsi",
         "/proc/driver", "/proc/asound", "/proc/mtrr", "/proc/sysrq-trigger")
def wr(p):
    try:
        os.close(os.open(p, os.O_WRONLY | os.O_NONBLOCK))
        return True
    except OSError:
        return False
out = []
for root, dirs, files in os.walk("/proc"):
    if root == "/proc":
        dirs[:] = [d for d in dirs if not d.isdigit() and d not in ("self", "thread-self")]
    dirs[:] = [d for d in dirs if os.path.join(root, d) not in knobs]
    for f in files:
        p = os.path.join(root, f)
        if p not in knobs and not os.path.islink(p) and wr(p):
            out.append("%s(%o)" % (p, os.stat(p).st_mode & 0o777))
print("writable outside /proc/PID:", " ".join(out))
for pid in sorted(int(d) for d in os.listdir("/proc") if d.isdigit()):
    if pid == os.getpid():
        continue
    comm = open("/proc/%d/comm" % pid).read().strip()
    w = [f for f in sorted(os.listdir("/proc/%d" % pid))
         if os.path.isfile("/proc/%d/%s" % (pid, f)) and wr("/proc/%d/%s" % (pid, f))]
    print("pid %d %s opens O_WRONLY: %s" % (pid, comm, " ".join(w)))
PY
cat >"$tmp/nested.sh" <<'SH'
for pre in "unshare -Umn" "unshare -Umpf" "unshare -Umnpf"; do
	$pre sh -c 'for t in sysfs proc cgroup2 "cgroup -o none,name=ha75"; do
		if mount -t $t x /mnt 2>/dev/null; then echo "MOUNTED $t"; umount /mnt; else echo "refused $t"; fi
	done' 2>&1 | sed "s/^/$pre: /"
done
SH
for pre in "" "unshare -Ur"; do
	echo "=== ${pre:-host root}"
	# shellcheck disable=SC2086 # the prefix, split
	(cd "$tmp" && $pre "$sv" -- python3 "$tmp/enum.py" 2>&1) | sed 's/^/  /' || true
	# shellcheck disable=SC2086
	(cd "$tmp" && $pre "$sv" -- sh "$tmp/nested.sh" 2>&1) | sed 's/^/  /' || true
	sleep 1.1 # autogroup nice changes are rate-limited to one a second
	# shellcheck disable=SC2016,SC2086 # expanded by the inner shell
	setsid sh -c 'echo "  caller before: $(cat /proc/$$/autogroup)"
		(cd "$1" && shift && "$@" -- sh -c "echo 19 >/proc/1/autogroup && echo \"  agent wrote /proc/1/autogroup: \$(cat /proc/1/autogroup)\"" 2>&1) | sed "s/^/  /"
		echo "  caller after the run: $(cat /proc/$$/autogroup)"
		sleep 1.1; echo 0 >/proc/$$/autogroup' sh "$tmp" $pre "$sv" || true
done
