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

# modname PATH: a module's name as depends= and modules.dep spell it
# (basename without .ko[.xz|.zst|.gz], '-' read as '_' like the kernel does).
modname() {
	local b=${1##*/}
	b=${b%.xz}
	b=${b%.zst}
	b=${b%.gz}
	b=${b%.ko}
	printf '%s\n' "${b//-/_}"
}

# unpack SRC DST: DST is SRC decompressed (the guest's busybox and the older
# kernels cannot load .ko.xz themselves: no MODULE_DECOMPRESS before 6.x).
unpack() {
	local src=$1 dst=$2
	case $src in
	*.ko.xz) xz -dc -- "$src" >"$dst" ;;
	*.ko.zst) zstd -q -dc -- "$src" >"$dst" ;;
	*.ko.gz) gzip -dc -- "$src" >"$dst" ;;
	*.ko) cp -- "$src" "$dst" ;;
	*) die "$src: not a kernel module" ;;
	esac
	chmod 0644 "$dst"
}

# depends_of KO: the module names in its .modinfo depends= entry, one a line.
depends_of() {
	tr '\0' '\n' <"$1" | sed -n 's/^depends=//p' | tr ',' '\n' | sed '/^$/d' | tr '-' '_'
}

build_tree() {
	local tree=$1 release=$2 stage=$3 dst rel name f dep
	local -A path_of=() taken=()
	local -a queue=()
	dst=$stage/lib/modules/$release
	mkdir -p "$dst"
	while IFS= read -r rel; do
		name=$(modname "$rel")
		[[ -z ${path_of[$name]:-} ]] || die "$tree: module $name twice (${path_of[$name]}, $rel)"
		path_of[$name]=$rel
	done < <(cd "$tree" && find kernel -type f -name '*.ko*' | LC_ALL=C sort)
	((${#path_of[@]} > 0)) || die "$tree: no kernel/**/*.ko*"
	for rel in "${path_of[@]}"; do
		for f in "${SUBTREES[@]}"; do
			[[ $rel == "$f"/* ]] && queue+=("$(modname "$rel")")
		done
	done
	while ((${#queue[@]} > 0)); do
		name=${queue[0]}
		queue=("${queue[@]:1}")
		[[ -z ${taken[$name]:-} ]] || continue
		taken[$name]=1
		rel=${path_of[$name]:-}
		[[ -n $rel ]] || die "$tree: a module depends on $name, which the package lacks"
		f=$dst/${rel%.ko*}.ko
		mkdir -p "${f%/*}"
		unpack "$tree/$rel" "$f"
		while IFS= read -r dep; do
			[[ -n ${taken[$dep]:-} ]] || queue+=("$dep")
		done < <(depends_of "$f")
	done
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
	echo "initramfs/modules.sh: $release: ${#taken[@]} modules ($(du -sk "$dst" | cut -f1) KiB)" >&2
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
