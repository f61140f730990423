#!/usr/bin/env bash
# Builds the modules archive of one kernel: a deterministic newc cpio holding
# lib/modules/<release>/ with the kernel's networking and crypto modules
# (SUBTREES) and every module they depend on, decompressed, with busybox depmod's
# modules.dep, modules.alias and modules.symbols (docs/guest.md, "Modules").
# The launcher concatenates it after the run's initramfs.
#
#   initramfs/modules.sh --tree DIR --release REL --out FILE
#   initramfs/modules.sh --empty --out FILE
#
# DIR is lib/modules/REL of an unpacked kernel package (the .ko files and the
# package's modules.builtin*/modules.order). --empty writes a valid archive
# with no entries (a kernel built without modules). SOURCE_DATE_EPOCH sets
# every mtime (default: the initramfs's fixed value). Same inputs, same bytes.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly HERE
# Same fixed value as build.sh: both archives end up in one guest.
readonly DEFAULT_EPOCH=1704067200
# The subtrees whose modules a guest carries; their dependencies come along.
# The crypto algorithms too: modules load them at run time by alias, not by
# depends= (libcrc32c, which sctp needs, asks for "crypto-crc32c" in its init,
# and fails where CRYPTO_CRC32C=m and crc32c_generic is missing: seen on the
# 5.10 and 6.1 generic kernels), and AF_ALG autoloads them on a host as well.
readonly SUBTREES=(kernel/net kernel/crypto kernel/arch/x86/crypto)

die() {
	echo "initramfs/modules.sh: $*" >&2
	exit 1
}

usage() {
	sed -n '8,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

# build_tree TREE RELEASE STAGE: STAGE/lib/modules/RELEASE with the SUBTREES'
# modules and their dependencies, decompressed, and depmod's indexes.
build_tree() {
	local tree=$1 release=$2 stage=$3 dst f n
	dst=$stage/lib/modules/$release
	mkdir -p "$dst"
	# The selection and the decompression in one process (host/modtree.py
	# says why).
	n=$(python3 "$HERE/host/modtree.py" --tree "$tree" --dest "$dst" "${SUBTREES[@]}")
	for f in modules.builtin modules.builtin.modinfo modules.order; do
		if [[ -f $tree/$f ]]; then
			install -m 0644 "$tree/$f" "$dst/$f"
		fi
	done
	# busybox depmod, the same binary the guest's modprobe is, writes the
	# indexes that modprobe reads. Its line order follows readdir order, so the
	# files are sorted (order within a line, the load order, is kept).
	busybox depmod -b "$stage" "$release"
	for f in modules.dep modules.alias modules.symbols; do
		[[ -f $dst/$f ]] || die "busybox depmod wrote no $f"
		LC_ALL=C sort -o "$dst/$f" "$dst/$f"
		chmod 0644 "$dst/$f"
	done
	find "$stage" -type d -exec chmod 0755 {} +
	echo "initramfs/modules.sh: $release: $n modules ($(du -sk "$dst" | cut -f1) KiB)" >&2
}

main() {
	local tree="" release="" out="" empty=0 stage
	while [[ $# -gt 0 ]]; do
		case $1 in
		--tree) tree=${2:?}; shift 2 ;;
		--release) release=${2:?}; shift 2 ;;
		--out) out=${2:?}; shift 2 ;;
		--empty) empty=1; shift ;;
		-h | --help) usage ;;
		*) echo "initramfs/modules.sh: unknown argument $1" >&2; usage ;;
		esac
	done
	[[ -n $out ]] || usage
	if ((empty == 0)); then
		[[ -n $tree && -n $release ]] || usage
		[[ -d $tree/kernel ]] || die "--tree $tree: no kernel/ directory"
		[[ $release =~ ^[A-Za-z0-9._+-]+$ ]] || die "--release '$release': unexpected characters"
	fi
	stage=$(mktemp -d)
	# shellcheck disable=SC2064 # expand now: the path is fixed
	trap "rm -rf '$stage'" EXIT
	chmod 0755 "$stage"
	if ((empty == 0)); then
		build_tree "$tree" "$release" "$stage"
	fi
	mkdir -p "$(dirname "$out")"
	python3 "$HERE/host/mkcpio.py" --root "$stage" --mtime "${SOURCE_DATE_EPOCH:-$DEFAULT_EPOCH}" "$out"
}

main "$@"
