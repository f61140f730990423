# shellcheck shell=sh
# The reset between the cells of a batch boot (issue 14; docs/guest.md
# "Batches"), sourced by /init as /lib/egress/reset.sh (busybox sh, POSIX).
#
# baseline_take (once, before the first cell) keeps the boot's state in
# shell variables of init itself, never in a file: the agent is hostile and
# root in some cells, and a baseline it could rewrite would prove nothing.
# reset_and_prove (before every later cell) puts the guest back and proves
# it, one line per check into $RESET_LOG ("pass|fail reset:NAME DETAIL");
# it returns 1 when any check fails, and the batch then ends: the remaining
# cells run in fresh boots (the host reruns them).

# Every process but init (pid 1) and the kernel's threads (PF_KTHREAD in
# /proc/PID/stat's flags), as "pid state comm" lines. Builtins only: no
# process of ours is alive while it runs, so any line is a leftover.
user_procs() {
	for d in /proc/[0-9]*; do
		p=${d#/proc/}
		[ "$p" != 1 ] || continue
		line=
		read -r line <"$d/stat" 2>/dev/null || continue
		rest=${line##*) }
		# shellcheck disable=SC2086 # the fields after the command name
		set -- $rest
		[ $# -ge 7 ] || continue
		[ $(($7 & 0x200000)) -eq 0 ] || continue
		comm=${line#* (}
		printf '%s %s %s\n' "$p" "$1" "${comm%) *}"
	done
}

# A file's lines with builtins only (under TCG every process is tens of
# milliseconds; the reset runs between every two cells).
lines_of() {
	out=
	while IFS= read -r l || [ -n "$l" ]; do
		out="$out$l
"
	done <"$1"
	printf '%s' "$out"
}

# Writable sysctls as "path:value" lines (read-only ones cannot be changed by
# any cell). Left out: values the kernel changes by itself (ns_last_pid,
# tainted, hung_task_warnings, perf_event_max_sample_rate); kernel.tainted is
# recorded as info instead.
# The list of paths is made once (baseline_take): no cell can add a sysctl
# but by loading a module, which the modules check refuses.
sysctl_snapshot() {
	xargs -0 grep -H '' <"$SYSCTL_LIST" 2>/dev/null || true
}

sysctl_list() {
	find /proc/sys -type f -perm -200 ! -path /proc/sys/kernel/ns_last_pid \
		! -path /proc/sys/kernel/tainted ! -path /proc/sys/kernel/hung_task_warnings \
		! -path /proc/sys/kernel/perf_event_max_sample_rate -print0 2>/dev/null >"$SYSCTL_LIST"
}

# Every name in the root filesystem (the initramfs: /init, the supervisor,
# the agents, the cells, the modules) with size, mode, owner and change time
# (ctime: no one can set it back, unlike the mtime), for the names listed at
# boot: a name added or removed changes its directory's ctime, and a name
# removed is missing from stat's output.
rootfs_snapshot() {
	xargs -0 stat -c '%n %s %a %u:%g %z' <"$ROOTFS_LIST" 2>/dev/null || true
}

rootfs_list() {
	find / -xdev ! -path /tmp ! -path /run ! -path /proc ! -path /sys ! -path /dev -print0 \
		2>/dev/null >"$ROOTFS_LIST"
}

net_snapshot() {
	ip -o link show 2>&1
	ip -o addr show 2>&1
	ip route show table all 2>&1
	ip -6 route show table all 2>&1
}

# Addresses on lo as "ADDR/PREFIX" (inet and inet6).
lo_addrs() {
	ip -o addr show dev lo 2>/dev/null | awk '{ print $4 }'
}

# cgroups below the root, three levels deep (globs: no process).
cgroup_dirs() {
	[ -n "$CELL_CG" ] || return 0
	for d in /sys/fs/cgroup/*/ /sys/fs/cgroup/*/*/ /sys/fs/cgroup/*/*/*/; do
		[ -d "$d" ] && echo "$d"
	done
}

# Module names, one a line (builtins).
module_names() {
	[ -r /proc/modules ] || return 0
	while read -r m _; do
		echo "$m"
	done </proc/modules
}

ipc_snapshot() {
	for f in /proc/sysvipc/shm /proc/sysvipc/msg /proc/sysvipc/sem; do
		[ -r "$f" ] || continue
		n=0
		while IFS= read -r l; do
			n=$((n + 1))
			[ $n -eq 1 ] || echo "$l"
		done <"$f"
	done
}

# The boot's state, once, before the first cell (lo is brought up first:
# every cell does so, and lo's own addresses and routes are then part of it).
SYSCTL_LIST=/run/egress-sysctl.list
ROOTFS_LIST=/run/egress-rootfs.list
baseline_take() {
	ip link set lo up
	sysctl_list
	rootfs_list
	BASE_SYSCTL=$(sysctl_snapshot)
	BASE_TAINT='?'
	read -r BASE_TAINT </proc/sys/kernel/tainted 2>/dev/null || true
	BASE_ROOTFS=$(rootfs_snapshot)
	BASE_NET=$(net_snapshot)
	BASE_LO=$(lo_addrs)
	BASE_MOUNTS=$(lines_of /proc/self/mounts)
	BASE_DEV=$(find /dev 2>/dev/null)
	BASE_MODULES=$(module_names)
	BASE_CGROUPS=$(cgroup_dirs)
	BASE_IPC=$(ipc_snapshot)
}

# One line of the proof; the uptime at its end says where the reset's time
# goes.
reset_line() {
	up=
	read -r up _ </proc/uptime
	printf '%s reset:%s %s (uptime %s)\n' "$1" "$2" "$3" "$up" >>"$RESET_LOG"
	[ "$1" != fail ] || RESET_FAILED=1
}

# Lines of $1 not in $2 (both newline-separated lists), sorted.
only_in() {
	printf '%s\n' "$2" >/run/egress-b
	printf '%s\n' "$1" | awk 'NR == FNR { seen[$0] = 1; next } $0 != "" && !($0 in seen)' \
		/run/egress-b - | LC_ALL=C sort
	rm -f /run/egress-b
}

reset_processes() {
	# user_procs runs in init itself (a $(...) would list its own subshell).
	user_procs >/run/egress-procs
	procs=$(lines_of /run/egress-procs)
	tries=0
	# Processes killed at the end of the cell may still be dying, and
	# zombies re-parented to init are reaped when init next waits for a
	# child (the sleep): up to 1 s.
	while [ -n "$procs" ] && [ $tries -lt 50 ]; do
		sleep 0.02
		tries=$((tries + 1))
		user_procs >/run/egress-procs
		procs=$(lines_of /run/egress-procs)
	done
	if [ -n "$procs" ]; then
		reset_line fail processes "left from the previous cell: $(printf '%s\n' "$procs" | tr '\n' ';')"
		for p in $(printf '%s\n' "$procs" | cut -d' ' -f1); do
			kill -KILL "$p" 2>/dev/null || true
		done
		return 0
	fi
	reset_line pass processes "none but init and kernel threads"
	if [ -n "$CELL_CG" ]; then
		left=$(lines_of "$CELL_CG/cgroup.procs" 2>/dev/null || echo '<unreadable>')
		if [ -n "$left" ]; then
			reset_line fail cgroup "$CELL_CG/cgroup.procs not empty: $(echo "$left" | tr '\n' ' ')"
		fi
		extra=
		if [ "$(cgroup_dirs)" != "$BASE_CGROUPS" ]; then
			for d in $(only_in "$(cgroup_dirs)" "$BASE_CGROUPS" | LC_ALL=C sort -r); do
				rmdir "$d" 2>/dev/null || true
			done
			extra=$(only_in "$(cgroup_dirs)" "$BASE_CGROUPS")
		fi
		if [ -n "$extra" ]; then
			reset_line fail cgroups "cannot remove: $(echo "$extra" | tr '\n' ' ')"
		else
			reset_line pass cgroup "$CELL_CG empty, no other cgroup"
		fi
	fi
}

reset_mounts() {
	now=$(lines_of /proc/self/mounts)
	if [ "$now" != "$BASE_MOUNTS" ]; then
		for m in $(only_in "$now" "$BASE_MOUNTS" | awk '{ print $2 }' | LC_ALL=C sort -r); do
			umount -l "$m" 2>/dev/null || true
		done
		now=$(lines_of /proc/self/mounts)
	fi
	if [ "$now" = "$BASE_MOUNTS" ]; then
		reset_line pass mounts "as at boot"
	else
		reset_line fail mounts "differ from boot: $(only_in "$now" "$BASE_MOUNTS" | tr '\n' ';')"
	fi
}

# /tmp holds every place a cell writes ($W, $SV, the sink's and services'
# files); /dev is devtmpfs, where a root agent may make nodes.
tmp_names() {
	for f in /tmp/* /tmp/.[!.]* /tmp/..?*; do
		[ -e "$f" ] || [ -L "$f" ] && echo "$f"
	done
}

# $PREV_UID is the previous cell's uid: only uid 0 can write the root
# filesystem and /dev (root-owned, 0755), so their inventories are compared
# only after a cell that ran as root.
reset_files() {
	rm -rf /tmp/* /tmp/.[!.]* /tmp/..?* 2>/dev/null || true
	left=$(tmp_names)
	if [ -n "$left" ]; then
		reset_line fail tmp "not empty: $(echo "$left" | tr '\n' ' ')"
	else
		reset_line pass tmp "empty"
	fi
	if [ "$PREV_UID" != 0 ]; then
		reset_line pass rootfs "not compared: the previous cell ran as uid $PREV_UID, which cannot write / or /dev"
		return 0
	fi
	now=$(find /dev 2>/dev/null)
	if [ "$now" != "$BASE_DEV" ]; then
		for f in $(only_in "$now" "$BASE_DEV" | LC_ALL=C sort -r); do
			rm -rf "$f" 2>/dev/null || true
		done
		now=$(find /dev 2>/dev/null)
	fi
	if [ "$now" = "$BASE_DEV" ]; then
		reset_line pass dev "as at boot"
	else
		reset_line fail dev "differs from boot: +$(only_in "$now" "$BASE_DEV" | tr '\n' ' ') -$(only_in "$BASE_DEV" "$now" | tr '\n' ' ')"
	fi
	now=$(rootfs_snapshot)
	if [ "$now" = "$BASE_ROOTFS" ]; then
		reset_line pass rootfs "every name, size, mode, owner and ctime as at boot"
	else
		reset_line fail rootfs "changed since boot: $(only_in "$now" "$BASE_ROOTFS" | head -n 3 | tr '\n' ';') gone: $(only_in "$BASE_ROOTFS" "$now" | head -n 3 | tr '\n' ';')"
	fi
}

reset_network() {
	now=$(net_snapshot)
	if [ "$now" != "$BASE_NET" ]; then
		for a in $(only_in "$(lo_addrs)" "$BASE_LO"); do
			ip addr del "$a" dev lo 2>/dev/null || true
		done
		now=$(net_snapshot)
	fi
	if [ "$now" != "$BASE_NET" ]; then
		# Links a cell made (a root agent may), then routes left over.
		for l in $(only_in "$(ip -o link show | awk -F': ' '{ print $2 }')" \
			"$(printf '%s\n' "$BASE_NET" | awk -F': ' '/^[0-9]+: / { print $2 }')"); do
			ip link del "${l%%@*}" 2>/dev/null || true
		done
		now=$(net_snapshot)
	fi
	if [ "$now" = "$BASE_NET" ]; then
		reset_line pass network "links, addresses and routes as at boot (lo: $(echo "$BASE_LO" | tr '\n' ' '))"
	else
		reset_line fail network "differs from boot: $(only_in "$now" "$BASE_NET" | head -n 3 | tr '\n' ';') gone: $(only_in "$BASE_NET" "$now" | head -n 3 | tr '\n' ';')"
	fi
}

# Modules a cell autoloaded (an unprivileged socket() of a protocol built as
# a module) are removed, newest first, twice over for those that others used;
# one that stays makes the next cell's kernel differ from a fresh boot's.
reset_modules() {
	[ -r /proc/modules ] || {
		reset_line pass modules "no module support"
		return 0
	}
	extra=
	[ "$(module_names)" = "$BASE_MODULES" ] || extra=$(only_in "$(module_names)" "$BASE_MODULES")
	[ -n "$extra" ] || {
		reset_line pass modules "none loaded since boot"
		return 0
	}
	for _ in 1 2 3; do
		# shellcheck disable=SC2013 # module names, one a line, no spaces
		for m in $(cut -d' ' -f1 /proc/modules); do
			case " $(echo "$extra" | tr '\n' ' ') " in
			*" $m "*) rmmod "$m" 2>/dev/null || true ;;
			esac
		done
	done
	left=$(only_in "$(module_names)" "$BASE_MODULES")
	if [ -n "$left" ]; then
		reset_line fail modules "loaded by the previous cell and not removable: $(echo "$left" | tr '\n' ' ')"
	else
		reset_line pass modules "removed what the previous cell loaded: $(echo "$extra" | tr '\n' ' ')"
	fi
}

# Every writable sysctl back to its boot value and read back: the ones the
# batch's cells set (sysctl=) and any a root agent changed.
reset_sysctls() {
	now=$(sysctl_snapshot)
	fixed=
	if [ "$now" != "$BASE_SYSCTL" ]; then
		for path in $(only_in "$now" "$BASE_SYSCTL" | cut -d: -f1 | uniq); do
			want=$(printf '%s\n' "$BASE_SYSCTL" | grep -F "$path:" | grep "^$path:" | cut -d: -f2-)
			printf '%s\n' "$want" >"$path" 2>/dev/null || true
			fixed="$fixed ${path#/proc/sys/}"
		done
		now=$(sysctl_snapshot)
	fi
	if [ "$now" = "$BASE_SYSCTL" ]; then
		reset_line pass sysctl "every writable value as at boot, read back; restored:${fixed:- none}"
	else
		reset_line fail sysctl "not restorable to the boot value: $(only_in "$now" "$BASE_SYSCTL" | head -n 3 | tr '\n' ';') (boot: $(only_in "$BASE_SYSCTL" "$now" | head -n 3 | tr '\n' ';'))"
	fi
	taint='?'
	read -r taint </proc/sys/kernel/tainted 2>/dev/null || true
	[ "$taint" = "$BASE_TAINT" ] || reset_line info taint "kernel.tainted $BASE_TAINT at boot, $taint now"
}

reset_init() {
	sc='?'
	nnp='?'
	while read -r k v _; do
		case $k in
		Seccomp:) sc=$v ;;
		NoNewPrivs:) nnp=$v ;;
		esac
	done </proc/1/status
	# No Seccomp: line at all is a kernel built without CONFIG_SECCOMP
	# (the no-seccomp-filter variant): no filter can exist, and no cell
	# could have installed one (/proc/sys/kernel/seccomp is absent too).
	if [ "$sc" = '?' ] && [ ! -e /proc/sys/kernel/seccomp ]; then
		sc="none (a kernel without CONFIG_SECCOMP)"
		reset_line pass init-seccomp "pid 1 Seccomp: $sc, NoNewPrivs: $nnp"
		return 0
	fi
	case "$sc" in
	0) reset_line pass init-seccomp "pid 1 Seccomp: $sc, NoNewPrivs: $nnp" ;;
	*) reset_line fail init-seccomp "pid 1 has a filter: Seccomp: $sc, NoNewPrivs: $nnp" ;;
	esac
	ipc=$(ipc_snapshot)
	if [ "$ipc" = "$BASE_IPC" ]; then
		reset_line pass ipc "System V shm, msg and sem as at boot"
	else
		reset_line fail ipc "left by the previous cell: $(echo "$ipc" | head -n 3 | tr '\n' ';')"
	fi
}

# Returns 0 when the guest is as at boot (every check passed), 1 otherwise.
reset_and_prove() {
	RESET_FAILED=0
	: >"$RESET_LOG"
	reset_processes
	reset_mounts
	reset_files
	reset_network
	reset_modules
	reset_sysctls
	reset_init
	[ "$RESET_FAILED" = 0 ]
}
