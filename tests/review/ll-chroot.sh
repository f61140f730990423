#!/bin/bash
# ll-chroot.sh SV AGENT: a supervisor started in a chroot reads a mountinfo
# that leaves out every mount outside the chroot (the kernel skips mounts
# it cannot name from the reader's root), but Landlock walks up past the
# chroot to the real root. Here the chroot (/ll-chroot, a directory of the
# ext4 root) has /sys bound recursively (so its cgroup mounts are there)
# and the host's "/" bound non-recursively at /host, as chroot build or
# rescue environments do. The walk of a cgroup file goes up through the
# sysfs copy to its mount point in ext4 (/ll-chroot/sys), /ll-chroot and
# "/": the ext4 mount at "/" is not listed, so none of those is in the walk
# set, nothing exposes them, and /host (ext4's root inode) gets a
# WRITE_FILE rule: every cgroup file is writable. Runs AGENT
# (ll-cgroup-agent) in a cgroup delegated to uid 1000, with and without
# /host; "HOLE" lines show the freeze written. Run as root; no traffic.
set -euo pipefail
sv=$1 agent=$2
chr=/ll-chroot
root=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
dir=$root/ll-chroot.$$
cleanup() {
	umount "$chr/host" 2>/dev/null || true
	umount -R "$chr/sys" 2>/dev/null || true
	umount -R "$chr/dev" 2>/dev/null || true
	umount "$chr/proc" 2>/dev/null || true
	rm -rf "$chr"
	find "$dir" -depth -type d 2>/dev/null | while read -r c; do
		echo 0 >"$c/cgroup.freeze" 2>/dev/null || true
		echo 1 >"$c/cgroup.kill" 2>/dev/null || true
	done
	sleep 0.5
	find "$dir" -depth -type d -exec rmdir {} + 2>/dev/null || true
	[ ! -e "$dir" ] || echo "WARNING: $dir left"
}
trap cleanup EXIT
mkdir -p "$chr"/{sys,proc,dev,host,tmp}
chmod 1777 "$chr/tmp"
cp "$sv" "$chr/sv"
cp "$agent" "$chr/agent"
mount --rbind /sys "$chr/sys"
mount --make-rslave "$chr/sys"
mount --rbind /dev "$chr/dev"
mount --make-rslave "$chr/dev"
mount -t proc proc "$chr/proc"
run() {
	mkdir -p "$dir/sup"
	chown -R 1000:1000 "$dir"
	# shellcheck disable=SC2016
	timeout -s KILL 30 sh -c 'echo $$ > "$1/sup/cgroup.procs"; exec chroot --userspec=1000:1000 --groups=1000 "$2" /sv --no-loopback -- /agent "$1"' \
		sh "$dir" "$chr" 2>&1 | grep -E "open direct|relative to cwd" || true
}
mount --bind / "$chr/host"
echo "== chroot with /host (a bind of /):"
run
umount "$chr/host"
echo "== chroot without it:"
run
