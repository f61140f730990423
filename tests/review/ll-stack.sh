#!/bin/bash
# ll-stack.sh SV AGENT [beneath]: landlock.c's containing() takes the LAST LISTED of
# the mounts at a mount point as the top of its stack, but mountinfo lists
# mounts in creation order (mount id), not stack order. Here a cgroup2
# mount made first (at a staging dir) is moved (mount --move) on top of a
# tmpfs made after it at /ll-stack/top: the cgroup2 mount is the top (what
# a path lookup reaches), the tmpfs beneath it is listed last. The grant
# then judges /ll-stack/top by the tmpfs (no cgroup, nothing of the walk)
# and puts a WRITE_FILE rule on the inode openat() reaches: the cgroup2
# root, shared by every mount of that hierarchy, so every cgroup2 file is
# writable by its normal path too. With "beneath" the cgroup2 mount is made
# at /ll-stack/top first and a tmpfs then put under it with MOVE_MOUNT_BENEATH
# (ll-beneath.py; 6.5+): the same listing order, no move of the cgroup. Runs ll-cgroup.sh with AGENT
# (ll-cgroup-agent) with and without the stack; "HOLE" lines show the freeze
# written. The same order arises from MOVE_MOUNT_BENEATH (a newer mount
# under an older one) and from propagation tucking a mount under another.
# Run as root; no network traffic.
set -euo pipefail
here=$(dirname "$0")
base=/ll-stack
cleanup() {
	umount "$base/top" 2>/dev/null || true
	umount "$base/top" 2>/dev/null || true
	umount "$base/stage" 2>/dev/null || true
	rmdir "$base/top" "$base/stage" "$base" 2>/dev/null || true
}
trap cleanup EXIT
mkdir -p "$base/top" "$base/stage"
if [ "${3:-}" = beneath ]; then
	mount -t cgroup2 none "$base/top"
	/usr/bin/python3 "$here/ll-beneath.py" "$base/top"
else
	mount -t cgroup2 none "$base/stage"
	mount -t tmpfs ll-stack-tmpfs "$base/top"
	mount --move "$base/stage" "$base/top"
fi
grep " $base/" /proc/self/mountinfo
echo "top of $base/top: $(stat -f -c %T "$base/top")"
echo "== with the stack:"
"$here/ll-cgroup.sh" "$1" "$2" | grep -E "open direct|relative to cwd|supervisor exit"
cleanup
trap - EXIT
echo "== without it:"
"$here/ll-cgroup.sh" "$1" "$2" | grep -E "open direct|relative to cwd|supervisor exit"
