#!/bin/bash
# ll-late-mount.sh SV: the WRITE_FILE domain is built once, from the mount
# table at the start, and its rules sit on inodes. A mount the host makes
# during the run is judged by nobody: here, 1 s into the run, root makes a
# recursive bind of /sys at /tmp/ll-late (/tmp is granted whole). A cgroup
# file's walk by the new path passes /tmp's inode, which has the rule: the
# uid-1000 agent writes cgroup.freeze of a cgroup delegated to its uid
# (DIR/sup/probe, a child of its supervisor's cgroup, empty). The control
# run writes the same file by its normal path. The agent cannot make the
# mount itself (Landlock refuses mount to a domain that handles file
# access): this needs the host (an automount, a container runtime or an
# admin's bind in the same mount namespace). Run as root; no traffic.
set -euo pipefail
sv=$1
root=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
name=ll-late.$$
dir=$root/$name
late=/tmp/ll-late
cleanup() {
	umount -R "$late" 2>/dev/null || true
	rmdir "$late" 2>/dev/null || true
	echo 0 >"$dir/sup/probe/cgroup.freeze" 2>/dev/null || true
	find "$dir" -depth -type d -exec rmdir {} + 2>/dev/null || true
	[ ! -e "$dir" ] || echo "WARNING: $dir left"
}
trap cleanup EXIT
mkdir -p "$dir/sup/probe" "$late"
chown -R 1000:1000 "$dir"
run() { # PATH-PREFIX-FOR-THE-AGENT MOUNT?
	# shellcheck disable=SC2016
	sh -c 'echo $$ > "$1/sup/cgroup.procs"; cd /; exec setpriv --reuid 1000 --regid 1000 --clear-groups "$2" --no-loopback -- sh -c "sleep 2; echo 1 > $3/sup/probe/cgroup.freeze && echo HOLE: wrote freeze, \$(grep frozen $3/sup/probe/cgroup.events)"' \
		sh "$dir" "$sv" "$1" 2>&1 | grep -v "^egress-supervisor" &
	sleep 1
	[ "$2" = no ] || mount --rbind /sys "$late"
	wait
	echo 0 >"$dir/sup/probe/cgroup.freeze"
	umount -R "$late" 2>/dev/null || true
}
echo "== /sys bound at $late 1 s into the run, agent writes through it:"
run "$late${root#/sys}/$name" yes
echo "== control: no late mount, agent writes by the normal path:"
run "$dir" no
