#!/usr/bin/env bash
# Boots appliance cells under QEMU (docs/guest.md).
#
#   run-vm.sh cell --kernel VMLINUZ --initrd CPIO --cell-file FILE --out DIR
#                  [--timeout S] [--machine q35|pc|microvm] [--append ARGS]
#                  [--qemu-extra ARG]...
#   run-vm.sh matrix ...     (the matrix runner: scenarios/, see below)
#
# `cell` boots one cell, enforces its timeout and writes DIR/console.log,
# DIR/result.raw, DIR/report.json (when the supervisor wrote one),
# DIR/cell.json and DIR/guest/*. Exit status 0 whenever the cell ran, whatever
# its outcome (read DIR/cell.json); 2 for a bad invocation.
set -euo pipefail

TOP="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly TOP
readonly CELL_RESULT="$TOP/initramfs/host/cell_result.py"
readonly QEMU=${QEMU:-qemu-system-x86_64}
# The matrix runner belongs to scenarios/; `run-vm.sh matrix` hands over to it.
readonly MATRIX_RUNNER="$TOP/scenarios/matrix.sh"

usage() {
	sed -n '4,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

bad_invocation() {
	echo "run-vm.sh: $*" >&2
	exit 2
}

# KVM only when /dev/kvm can really be opened; TCG otherwise (this CI).
pick_accel() {
	if [[ ${ACCEL:-auto} == tcg ]]; then
		echo tcg
	elif [[ -r /dev/kvm && -w /dev/kvm ]] && { : </dev/kvm; } 2>/dev/null; then
		echo kvm
	else
		echo tcg
	fi
}

# QEMU's option parser splits on commas; a comma in a path is written twice.
qemu_path() {
	printf '%s' "${1//,/,,}"
}

now() {
	date +%s.%N
}

cmd_cell() {
	local kernel="" initrd="" cell_file="" out="" timeout="" machine=q35 append=""
	local -a extra=()
	while [[ $# -gt 0 ]]; do
		case $1 in
		--kernel) kernel=${2:?--kernel needs a path}; shift 2 ;;
		--initrd) initrd=${2:?--initrd needs a path}; shift 2 ;;
		--cell-file) cell_file=${2:?--cell-file needs a path}; shift 2 ;;
		--out) out=${2:?--out needs a directory}; shift 2 ;;
		--timeout) timeout=${2:?--timeout needs seconds}; shift 2 ;;
		--machine) machine=${2:?--machine needs a name}; shift 2 ;;
		--append) append=${2?--append needs kernel arguments}; shift 2 ;;
		--qemu-extra) extra+=("${2:?--qemu-extra needs an argument}"); shift 2 ;;
		-h | --help) usage ;;
		*) bad_invocation "cell: unknown argument '$1'" ;;
		esac
	done
	[[ -n $kernel && -n $initrd && -n $cell_file && -n $out ]] ||
		bad_invocation "cell: --kernel, --initrd, --cell-file and --out are required"
	local f
	for f in "$kernel" "$initrd" "$cell_file"; do
		[[ -f $f && -r $f ]] || bad_invocation "cell: $f: not a readable file"
	done
	[[ -z $timeout || $timeout =~ ^[1-9][0-9]*$ ]] || bad_invocation "cell: --timeout $timeout: want whole seconds"
	command -v "$QEMU" >/dev/null || bad_invocation "$QEMU not found (apt-get install qemu-system-x86)"

	local info cell_id cell_timeout key val
	info=$(python3 "$CELL_RESULT" info "$cell_file") || bad_invocation "cell: $cell_file: not a usable cell file"
	while IFS='=' read -r key val; do
		case $key in
		cell) cell_id=$val ;;
		timeout) cell_timeout=$val ;;
		esac
	done <<<"$info"
	timeout=${timeout:-$cell_timeout}

	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	kernel=$(realpath "$kernel")
	initrd=$(realpath "$initrd")
	cell_file=$(realpath "$cell_file")
	rm -f "$out/console.log" "$out/result.raw" "$out/report.json" "$out/cell.json" "$out/qemu.stderr"
	rm -rf "$out/guest"

	local nonce accel qemu_version
	nonce=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
	accel=$(pick_accel)
	qemu_version=$("$QEMU" --version | head -n 1)

	# Kernel arguments: panic=-1 with -no-reboot turns a panic into a QEMU exit;
	# oops=panic makes every oops one. quiet: the guest's dmesg travels in the
	# result anyway, and a console at full log level slows a TCG boot.
	# syscall.x32=y: Debian builds x32 disabled by default (X86_X32_DISABLED);
	# enabling it where the kernel has it lets x32 cells run (kernels without
	# the option ignore it).
	# no_timer_check: on a loaded host a TCG guest can fail the IO-APIC timer
	# check and panic ("IO-APIC + timer doesn't work!", seen on 6.12 here).
	local cmdline="console=ttyS0 panic=-1 oops=panic quiet no_timer_check syscall.x32=y"
	# egress.deadline: the guest kills a supervisor still running then and
	# still reports (outcome timeout, with logs); the margin covers boot and
	# the result's transfer on a loaded host.
	local deadline=$((timeout > 40 ? timeout - 20 : timeout / 2))
	cmdline+=" egress.cell=$cell_id egress.nonce=$nonce egress.deadline=$deadline${append:+ $append}"
	local -a accel_args=(-accel tcg)
	[[ $accel == kvm ]] && accel_args=(-accel kvm -cpu host)
	local -a serial_args
	if [[ $machine == microvm ]]; then
		# microvm has one built-in 8250; the result port is an ISA serial at COM2.
		# shellcheck disable=SC2054 # commas are QEMU's option syntax
		serial_args=(-serial "file:$(qemu_path "$out/console.log")"
			-chardev "file,id=result,path=$(qemu_path "$out/result.raw")"
			-device isa-serial,chardev=result,iobase=0x2f8,irq=3,index=1)
	else
		# -nodefaults: no VGA, no default NIC or ROMs; ttyS0 console, ttyS1 result.
		serial_args=(-nodefaults
			-chardev "file,id=console,path=$(qemu_path "$out/console.log")" -serial chardev:console
			-chardev "file,id=result,path=$(qemu_path "$out/result.raw")" -serial chardev:result)
	fi
	local -a qemu_cmd=("$QEMU" -machine "$machine" "${accel_args[@]}" -m 256 -smp 1
		-nic none -no-reboot -display none -monitor none "${serial_args[@]}"
		-kernel "$kernel" -initrd "$initrd" -append "$cmdline" "${extra[@]}")

	local start end qemu_rc=0 timed_out=0
	start=$(now)
	# --kill-after: a QEMU that ignores SIGTERM still ends.
	timeout --kill-after=5 "$timeout" "${qemu_cmd[@]}" </dev/null >"$out/qemu.stderr" 2>&1 || qemu_rc=$?
	end=$(now)
	[[ $qemu_rc -eq 124 || $qemu_rc -eq 137 ]] && timed_out=1
	: >>"$out/console.log"
	: >>"$out/result.raw"

	local rerun qemu_cmdline
	rerun=$(printf '%q ' "$TOP/run-vm.sh" cell --kernel "$kernel" --initrd "$initrd" \
		--cell-file "$cell_file" --out "$out" --timeout "$timeout" --machine "$machine")
	[[ -n $append ]] && rerun+=$(printf '%q ' --append "$append")
	for f in "${extra[@]}"; do
		rerun+=$(printf '%q ' --qemu-extra "$f")
	done
	qemu_cmdline=$(printf '%q ' "${qemu_cmd[@]}")
	python3 "$CELL_RESULT" evaluate --out "$out" --cell-file "$cell_file" --nonce "$nonce" \
		--kernel "$kernel" --initrd "$initrd" --qemu-version "$qemu_version" --accel "$accel" \
		--qemu-cmdline "${qemu_cmdline% }" --rerun "${rerun% }" --qemu-rc "$qemu_rc" \
		--timed-out "$timed_out" --timeout "$timeout" --run-s "$(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }')"
}

cmd_matrix() {
	[[ -x $MATRIX_RUNNER ]] || bad_invocation "matrix: $MATRIX_RUNNER does not exist yet (scenarios/ provides it)"
	exec "$MATRIX_RUNNER" "$@"
}

main() {
	[[ $# -ge 1 ]] || usage
	local sub=$1
	shift
	case $sub in
	cell) cmd_cell "$@" ;;
	matrix) cmd_matrix "$@" ;;
	-h | --help | help) usage ;;
	*) bad_invocation "unknown subcommand '$sub' (cell or matrix)" ;;
	esac
}

main "$@"
