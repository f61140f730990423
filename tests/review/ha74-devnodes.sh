#!/bin/bash
# ha74-devnodes.sh: hostile review h-attack74, part 1 (8a39568: a rootless
# container's root agent, /dev's nodes bound from the caller's). As root on
# the host, from the worktree, after make supervisor. Runs a root agent in
# unshare -Ur, -Urm, -Urmpf --mount-proc, as uid 1000's unshare -Ur, and in
# a podman-like caller whose /dev is a tmpfs of binds; prints what the agent
# reached. Everything it makes lives in namespaces that end with it; it
# opens /proc/sys files for writing but never writes them.
#   tests/review/ha74-devnodes.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
sv=$top/build/egress-supervisor
tmp=$(mktemp -d /tmp/ha74.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"

# The agent: capabilities, writable mounts, /dev, /proc/sys, mount calls,
# and a nested user+mount namespace's umount/remount.
cat >"$tmp/agent.sh" <<'AG'
echo "caps $(grep CapEff /proc/self/status | tr -d '\t')"
awk '$6 !~ /^ro/ {print "rw-mount", $5, $6, $9}' /proc/self/mountinfo
for n in /dev/*; do [ -c "$n" ] && echo "node $n $(stat -c '%t:%T' "$n")"; done
for f in core_pattern modprobe hostname; do
	if (: >>"/proc/sys/kernel/$f") 2>/dev/null; then echo "WRITABLE /proc/sys/kernel/$f"; else echo "refused /proc/sys/kernel/$f"; fi
done
# Finding 5: host-wide state in the agent's own /proc (opened, never written).
n=0; for f in /proc/bus/pci/*/* /proc/irq/default_smp_affinity /proc/irq/*/smp_affinity; do
	[ -f "$f" ] && (exec 3>>"$f") 2>/dev/null && n=$((n + 1))
done
echo "OPENED FOR WRITING: $n of /proc/bus/pci/*/* and /proc/irq/*smp_affinity"
mount -t tmpfs x /mnt 2>/dev/null && echo "MOUNTED tmpfs" || echo "refused mount"
umount /dev/null 2>/dev/null && echo "UNMOUNTED /dev/null" || echo "refused umount /dev/null"
mknod "$HOME/../ha74n" c 1 3 2>/dev/null && echo "MKNOD" || echo "refused mknod"
unshare -Um sh -c 'umount /dev/null 2>/dev/null && echo NESTED-UMOUNT || echo "nested: umount refused";
	umount -l /dev 2>/dev/null && echo NESTED-UMOUNT-DEV || echo "nested: umount /dev refused"' 2>&1
AG
# The podman-like caller: /dev a tmpfs of binds (UFD: what is bound as
# userfaultfd; /dev/fuse shows the misc minor is not checked).
cat >"$tmp/podman.sh" <<'PD'
set -e
d=$(mktemp -d /tmp/ha74pd.XXXXXX)
mount -t tmpfs -o nosuid,mode=755 tmpfs "$d"
for n in null zero full random urandom tty; do touch "$d/$n"; mount --bind "/dev/$n" "$d/$n"; done
touch "$d/userfaultfd"; mount --bind "${UFD:-/dev/userfaultfd}" "$d/userfaultfd"
mkdir "$d/pts" "$d/shm"; mount -t devpts -o newinstance,ptmxmode=0666 devpts "$d/pts"; ln -s pts/ptmx "$d/ptmx"
mount -t tmpfs -o nosuid,nodev shm "$d/shm"
mount --move "$d" /dev
rmdir "$d" 2>/dev/null || true
exec "$@"
PD

run() {
	echo "=== $*"
	(cd "$tmp" && "$@" "$sv" -- /bin/sh "$tmp/agent.sh" 2>&1) | sed 's/^/  /' || true
}
run unshare -Ur
run unshare -Urm
run unshare -Urmpf --mount-proc
run setpriv --reuid 1000 --regid 1000 --clear-groups unshare -Ur
run unshare -Urm sh "$tmp/podman.sh"
if [ -c /dev/fuse ]; then UFD=/dev/fuse run unshare -Urm sh "$tmp/podman.sh"; fi
