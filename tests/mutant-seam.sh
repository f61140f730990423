#!/usr/bin/env bash
# Checks the mutant switches (supervisor/mutant.h): each named mutant has its
# switch in the code, and the release binary is byte-identical to one built
# from sources with every SV_MUTANT_* block removed by unifdef, so the
# release build contains none of the mutants' code.
#   mutant-seam.sh TOP BUILD MUSL_CC "MUSL_CFLAGS" "MUSL_LDFLAGS" LIBSECCOMP RELEASE MUTANT...
set -euo pipefail

pass=0
fail=0

check() {
	local name=$1
	shift
	if "$@"; then
		echo "ok $name"
		pass=$((pass + 1))
	else
		echo "not ok $name"
		fail=$((fail + 1))
	fi
}

macro_of() {
	printf 'SV_MUTANT_%s' "$(tr 'a-z-' 'A-Z_' <<<"$1")"
}

switch_present() {
	grep -qE "ifn?def $(macro_of "$1")\$" "$top"/supervisor/*.c
}

release_identical_without_mutant_code() {
	local dir=$build/mutant-seam src out m
	local -a undefs=() srcs=()
	rm -rf "$dir" && mkdir -p "$dir/src"
	for m in "${mutants[@]}"; do
		undefs+=(-U"$(macro_of "$m")")
	done
	for src in "$top"/supervisor/*.c "$top"/supervisor/*.h; do
		# unifdef exits 1 when it changed the file: that is expected.
		unifdef "${undefs[@]}" "$src" >"$dir/src/$(basename "$src")" || [[ $? -eq 1 ]]
	done
	if grep -l SV_MUTANT_ "$dir"/src/*.c; then
		echo "  mutant code left after unifdef" >&2
		return 1
	fi
	for src in "$dir"/src/*.c; do
		[[ $(basename "$src") == fault.c ]] || srcs+=("$src")
	done
	out=$dir/egress-supervisor
	# shellcheck disable=SC2086 # flag lists are meant to split
	$cc $cflags $ldflags -o "$out" "${srcs[@]}" "$libseccomp"
	cmp "$out" "$release"
}

main() {
	top=$1 build=$2 cc=$3 cflags=$4 ldflags=$5 libseccomp=$6 release=$7
	shift 7
	mutants=("$@")
	local m
	for m in "${mutants[@]}"; do
		check "mutant_switch_present_${m//-/_}" switch_present "$m"
	done
	check release_binary_identical_without_mutant_code release_identical_without_mutant_code
	echo "$pass passed, $fail failed"
	[[ $fail -eq 0 ]]
}

main "$@"
