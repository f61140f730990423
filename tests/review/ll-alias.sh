#!/bin/bash
# ll-alias.sh SV AGENT: the WRITE_FILE domain decides by path (a cgroup mount
# point and its ancestors, read from mountinfo, get no rule) but Landlock
# rules attach to inodes. A non-recursive bind mount of /sys at a direct
# child of "/" (here /ll-sys-alias; any second sysfs mount there does the
# same: sysfs mounts of one network namespace share the superblock) is not
# an ancestor of a cgroup mount, so it is granted, and its inode is the
# sysfs root that every cgroup file's walk passes through /sys: every cgroup
# file becomes writable by its normal path. Runs ll-cgroup.sh with AGENT
# (ll-cgroup-agent) with and without the alias; "HOLE" lines show the
# freeze written. Run as root; no network traffic.
set -euo pipefail
here=$(dirname "$0")
alias=/ll-sys-alias
mkdir -p "$alias"
mount --bind /sys "$alias"
trap 'umount "$alias"; rmdir "$alias"' EXIT
echo "== with $alias (bind of /sys):"
"$here/ll-cgroup.sh" "$1" "$2" | grep -E "open direct|relative to cwd|supervisor exit"
umount "$alias"
rmdir "$alias"
trap - EXIT
echo "== without it:"
"$here/ll-cgroup.sh" "$1" "$2" | grep -E "open direct|relative to cwd|supervisor exit"
