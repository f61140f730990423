#!/usr/bin/env bash
# initramfs reproducibility: two builds from the same inputs give identical
# bytes even when every input file has another mtime and the umask differs;
# a different SOURCE_DATE_EPOCH does change them (the mtimes come from it).
#   initramfs/tests/repro-test.sh BUILD.SH-ARGS...   (as given to build.sh)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly HERE
readonly BUILD_SH="$HERE/../build.sh"

# Copies a file or directory into $tmp/copies with fresh mtimes; prints the copy.
copy_input() {
	local src=$1 dst
	dst="$tmp/copies/$(printf '%s' "$src" | sha256sum | cut -c1-12)"
	mkdir -p "$dst"
	cp -r "$src" "$dst/"
	find "$dst" -exec touch -h -d '2001-02-03 04:05:06' {} +
	printf '%s/%s\n' "$dst" "$(basename "$src")"
}

main() {
	local -a args_a=() args_b=()
	local out_a out_b out_c
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	out_a=$tmp/a.cpio out_b=$tmp/b.cpio out_c=$tmp/c.cpio
	while [[ $# -gt 0 ]]; do
		case $1 in
		--out) shift 2 ;;
		--supervisor | --cells | --agents | --guest-bin)
			args_a+=("$1" "$2")
			args_b+=("$1" "$(copy_input "$2")")
			shift 2
			;;
		*) args_a+=("$1"); args_b+=("$1"); shift ;;
		esac
	done
	SOURCE_DATE_EPOCH=1704067200 "$BUILD_SH" --out "$out_a" "${args_a[@]}"
	(umask 077 && SOURCE_DATE_EPOCH=1704067200 "$BUILD_SH" --out "$out_b" "${args_b[@]}")
	SOURCE_DATE_EPOCH=1704067201 "$BUILD_SH" --out "$out_c" "${args_a[@]}"
	local fails=0
	if cmp -s "$out_a" "$out_b"; then
		echo "PASS initramfs_identical_bytes_across_mtimes_and_umask ($(sha256sum <"$out_a" | cut -c1-16))"
	else
		echo "FAIL initramfs_identical_bytes_across_mtimes_and_umask: $(cmp "$out_a" "$out_b" || true)"
		fails=$((fails + 1))
	fi
	if cmp -s "$out_a" "$out_c"; then
		echo "FAIL initramfs_mtime_follows_source_date_epoch: SOURCE_DATE_EPOCH had no effect"
		fails=$((fails + 1))
	else
		echo "PASS initramfs_mtime_follows_source_date_epoch"
	fi
	echo "$((2 - fails)) passed, $fails failed"
	[[ $fails -eq 0 ]]
}

main "$@"
