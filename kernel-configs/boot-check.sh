#!/bin/bash
# boot-check.sh NAME...: boot each kernel under QEMU (TCG) with a tiny busybox
# initramfs whose init mounts proc/sys, brings lo up with 127.0.0.1 and ::1,
# prints what the kernel offers, and powers off. One line per kernel:
#   NAME ok|FAIL machine=M wall=S uptime=S yama=... release=...
# Exits 1 when any kernel did not reach init and power off by itself.
# Not the scenario harness: only a check that a kernel of the matrix boots.
set -euo pipefail

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TIMEOUT=${KC_BOOT_TIMEOUT:-60}

# make_initrd DIR: write DIR/initrd.gz.
make_initrd() {
	local dir=$1 root=$1/root
	mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp"
	cp /bin/busybox "$root/bin/busybox"
	cat >"$root/init" <<'EOF'
#!/bin/busybox sh
b=/bin/busybox
$b mount -t proc proc /proc
$b mount -t sysfs sys /sys
$b mount -t tmpfs tmp /tmp
$b ip link set lo up
$b ip addr add 127.0.0.1/8 dev lo 2>/dev/null
$b ip -6 addr add ::1/128 dev lo 2>/dev/null
yama=$($b cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo none)
seccomp=$($b grep -c Seccomp_filters /proc/self/status 2>/dev/null || echo 0)
addrs=$($b ip addr show lo | $b grep -c inet)
echo "KC-BOOT release=$($b uname -r) uptime=$($b cut -d' ' -f1 /proc/uptime) yama=$yama seccomp_filters_field=$seccomp lo_addrs=$addrs"
$b poweroff -f
EOF
	chmod +x "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$dir/initrd.gz"
}

boot_one() {
	local name=$1 initrd=$2 kernel machine t0 t1 out rc line
	kernel=$("$KC_DIR/kernel-path.sh" "$name")
	machine=$("$KC_DIR/kernels.sh" machine "$name")
	t0=$(date +%s.%N)
	rc=0
	out=$(timeout "$TIMEOUT" qemu-system-x86_64 -M "$machine" -m 256 -nic none -no-reboot \
		-nographic -kernel "$kernel" -initrd "$initrd" \
		-append 'console=ttyS0 panic=-1 quiet' </dev/null 2>&1) || rc=$?
	t1=$(date +%s.%N)
	line=$(printf '%s\n' "$out" | tr -d '\r' | grep -a -o 'KC-BOOT .*' | head -n1 || true)
	if [[ $rc -eq 0 && -n "$line" ]]; then
		printf '%s ok machine=%s wall=%s %s\n' "$name" "$machine" \
			"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')" "${line#KC-BOOT }"
		return 0
	fi
	printf '%s FAIL machine=%s qemu_status=%s %s\n' "$name" "$machine" "$rc" "${line:-no init output}"
	printf '%s\n' "$out" | tr -d '\r' | tail -n 15 >&2
	return 1
}

main() {
	(($# >= 1)) || kc_die "usage: boot-check.sh NAME... (names: kernels.sh names)"
	kc_need_pkgs qemu-system-x86 busybox-static cpio
	local tmp name fails=0
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064 # expand now
	trap "rm -rf '$tmp'" EXIT
	make_initrd "$tmp"
	for name in "$@"; do
		boot_one "$name" "$tmp/initrd.gz" || fails=$((fails + 1))
	done
	((fails == 0))
}

main "$@"
