#!/usr/bin/env bash
# The modules archive, proven in a guest (docs/guest.md, "Modules"): per
# kernel, one cell whose service (modules-probe, outside the supervisor,
# switched to uid 1000) makes unprivileged sctp/dccp/tipc/rds/l2tp sockets,
# booted twice through run-vm.sh cell: with the kernel's modules archive
# concatenated after the initramfs, and without it. Prints the probe's lines
# and each boot's boot_s; fails unless sctp autoloads with the archive and
# says EPROTONOSUPPORT without it.
#   initramfs/tests/modules-boot.sh --probe FILE --guest-bin DIR --agents DIR --out DIR KERNEL...
# (make initramfs-modules-test MODULES_KERNELS='debian-6.1-cloud debian-5.10'; VM: ACCEL=tcg here)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly HERE
TOP="$(cd "$HERE/../.." && pwd)"
readonly TOP

die() {
	echo "modules-boot.sh: $*" >&2
	exit 1
}

write_cell() {
	local dir=$1 id=$2
	mkdir -p "$dir"
	cat >"$dir/$id.cell" <<EOF
scenario=modules-probe
cell=$id
agent_arg=/agents/no-network
service=/agents/modules-probe
expect=pass
expect_why=no-network makes no call as root; the cell exists for its service's probe lines
timeout=180
EOF
}

# boot KERNEL INITRD CELLDIR ID OUT: one run-vm.sh cell; prints "boot_s outcome".
boot() {
	local kernel=$1 initrd=$2 celldir=$3 id=$4 out=$5
	"$TOP/run-vm.sh" cell --kernel "$(kernel-configs/kernels.sh path "$kernel")" --initrd "$initrd" \
		--cell-file "$celldir/$id.cell" --out "$out" --timeout 180 \
		--machine "$(kernel-configs/kernels.sh machine "$kernel")" >&2
	python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); print(c["boot_s"], c["outcome"])' "$out/cell.json"
}

main() {
	local probe="" guest_bin="" agents="" out="" kernel id celldir mods with fails=0 line
	while [[ $# -gt 0 ]]; do
		case $1 in
		--probe) probe=${2:?}; shift 2 ;;
		--guest-bin) guest_bin=${2:?}; shift 2 ;;
		--agents) agents=${2:?}; shift 2 ;;
		--out) out=${2:?}; shift 2 ;;
		-*) die "unknown option $1" ;;
		*) break ;;
		esac
	done
	[[ -x $probe && -d $guest_bin && -d $agents && -n $out && $# -gt 0 ]] ||
		die "usage: modules-boot.sh --probe FILE --guest-bin DIR --agents DIR --out DIR KERNEL..."
	cd "$TOP"
	mkdir -p "$out/probe-agent"
	cp "$probe" "$out/probe-agent/modules-probe"
	for kernel in "$@"; do
		id=modules-probe+$kernel
		celldir=$out/cells-$kernel
		write_cell "$celldir" "$id"
		"$TOP/initramfs/build.sh" --out "$out/$kernel.cpio" --guest-bin "$guest_bin" \
			--cells "$celldir" --agents "$agents" --agents "$out/probe-agent"
		mods=$(kernel-configs/kernels.sh modules "$kernel")
		with=$out/$kernel+modules.cpio
		cat "$out/$kernel.cpio" "$mods" >"$with"
		echo "$kernel: modules archive $mods ($(stat -c %s "$mods") bytes)"
		line=$(boot "$kernel" "$with" "$celldir" "$id" "$out/$kernel-with")
		echo "$kernel: with modules: boot_s outcome = $line"
		cat "$out/$kernel-with"/guest/service.* 2>/dev/null | sed "s/^/$kernel: with: /"
		grep -q 'sctp socket=ok module=loaded' "$out/$kernel-with"/guest/service.* 2>/dev/null || {
			echo "$kernel: FAIL: sctp did not autoload with the modules archive"
			fails=$((fails + 1))
		}
		line=$(boot "$kernel" "$out/$kernel.cpio" "$celldir" "$id" "$out/$kernel-without")
		echo "$kernel: without modules: boot_s outcome = $line"
		cat "$out/$kernel-without"/guest/service.* 2>/dev/null | sed "s/^/$kernel: without: /"
		grep -q 'sctp socket=EPROTONOSUPPORT' "$out/$kernel-without"/guest/service.* 2>/dev/null || {
			echo "$kernel: FAIL: sctp without the modules archive is not EPROTONOSUPPORT"
			fails=$((fails + 1))
		}
	done
	((fails == 0)) || die "$fails check(s) failed"
	echo "modules-boot.sh: all checks passed"
}

main "$@"
