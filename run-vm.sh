#!/usr/bin/env bash
# Boots appliance cells under QEMU (docs/guest.md).
#
#   run-vm.sh cell --kernel VMLINUZ --initrd CPIO --cell-file FILE --out DIR
#                  [--timeout S] [--machine q35|pc|microvm] [--append ARGS]
#                  [--qemu-extra ARG]... [--accel kvm|tcg --accel-reason TEXT]
#   run-vm.sh batch --kernel VMLINUZ --initrd CPIO --plan PLAN.json --out DIR
#                  [--machine M] [--append ARGS] [--accel kvm|tcg --accel-reason TEXT]
#   run-vm.sh matrix ...     (the matrix runner: scenarios/, see below)
#
# `cell` boots one cell, enforces its timeout and writes DIR/console.log,
# DIR/result.raw, DIR/report.json (when the supervisor wrote one),
# DIR/cell.json and DIR/guest/*. Exit status 0 whenever the cell ran, whatever
# its outcome (read DIR/cell.json); 2 for a bad invocation or when no
# accelerator boots. The accelerator is proven by a canary boot unless
# --accel names one already proven (ACCEL=auto|kvm|tcg, default auto); QEMU
# is $QEMU (default qemu-system-x86_64). initramfs/host/cell_run.py does the
# work; the QEMU command line lives in initramfs/host/launcher.py.
set -euo pipefail

TOP="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly TOP
readonly CELL_RUN="$TOP/initramfs/host/cell_run.py"
# `batch` boots many cells of one kernel in one guest (docs/guest.md "Batches").
readonly BATCH_RUN="$TOP/initramfs/host/batch_run.py"
# The matrix runner belongs to scenarios/; `run-vm.sh matrix` hands over to it.
readonly MATRIX_RUNNER="$TOP/scenarios/matrix.sh"

usage() {
	sed -n '4,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

bad_invocation() {
	echo "run-vm.sh: $*" >&2
	exit 2
}

cmd_cell() {
	command -v python3 >/dev/null || bad_invocation "python3 not found (apt-get install python3)"
	exec python3 "$CELL_RUN" "$@"
}

cmd_batch() {
	command -v python3 >/dev/null || bad_invocation "python3 not found (apt-get install python3)"
	exec python3 "$BATCH_RUN" "$@"
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
	batch) cmd_batch "$@" ;;
	matrix) cmd_matrix "$@" ;;
	-h | --help | help) usage ;;
	*) bad_invocation "unknown subcommand '$sub' (cell, batch or matrix)" ;;
	esac
}

main "$@"
