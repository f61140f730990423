#!/usr/bin/env bash
# initramfs/modules.sh on a synthetic module tree (no kernel package, no VM):
# what it selects, the indexes busybox depmod writes, determinism, and its
# stops. The fake modules carry only a .modinfo-like string table, which is
# all depmod and the selection read.
#   initramfs/tests/modules-test.sh
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly HERE
readonly MODULES_SH="$HERE/../modules.sh"
readonly REL=7.0.0-test

pass=0
fails=0

check() {
	local name=$1
	shift
	if "$@"; then
		echo "PASS $name"
		pass=$((pass + 1))
	else
		echo "FAIL $name"
		fails=$((fails + 1))
	fi
}

# fake_ko FILE NAME DEPENDS [ALIAS]: a module whose modinfo says so.
fake_ko() {
	local file=$1 name=$2 deps=$3 alias=${4:-}
	mkdir -p "${file%/*}"
	{
		printf 'ELF-not-really\0name=%s\0depends=%s\0' "$name" "$deps"
		[[ -z $alias ]] || printf 'alias=%s\0' "$alias"
	} >"${file%.xz}"
	if [[ $file == *.xz ]]; then
		xz -f "${file%.xz}"
	fi
}

make_tree() {
	local t=$1
	fake_ko "$t/kernel/net/proto/proto-a.ko" proto_a helper net-pf-99
	fake_ko "$t/kernel/lib/helper.ko.xz" helper ""
	fake_ko "$t/kernel/drivers/other.ko" other ""
	printf 'kernel/net/proto/proto-a.ko\n' >"$t/modules.order"
}

# Negated or composite checks, as functions so check() can run them.
not_listed() {
	! grep -q -- "$1" <<<"$2"
}

build_fails() {
	! "$MODULES_SH" --tree "$1" --release "$REL" --out "$2" 2>/dev/null
}

no_entries() {
	[[ -z "$(cpio -t --quiet <"$1")" ]]
}

unpack() {
	mkdir -p "$2"
	(cd "$2" && cpio -id --quiet <"$1")
}

main() {
	local tmp list
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064 # expand now: the path is fixed
	trap "rm -rf '$tmp'" EXIT
	make_tree "$tmp/tree"
	"$MODULES_SH" --tree "$tmp/tree" --release "$REL" --out "$tmp/a.cpio" 2>/dev/null
	unpack "$tmp/a.cpio" "$tmp/a"
	local d=$tmp/a/lib/modules/$REL
	list=$(cpio -t --quiet <"$tmp/a.cpio")

	check modules_archive_holds_net_modules [ -f "$d/kernel/net/proto/proto-a.ko" ]
	check modules_archive_holds_their_dependencies_decompressed \
		cmp -s "$d/kernel/lib/helper.ko" <(xz -dc "$tmp/tree/kernel/lib/helper.ko.xz")
	check modules_archive_leaves_out_modules_net_does_not_need not_listed other.ko "$list"
	check modules_dep_lists_the_dependency_by_its_decompressed_path \
		grep -qxF 'kernel/net/proto/proto-a.ko: kernel/lib/helper.ko' "$d/modules.dep"
	check modules_alias_maps_the_protocol_alias_to_its_module \
		grep -qxF 'alias net-pf-99 proto_a' "$d/modules.alias"
	check modules_archive_keeps_the_package_modules_order [ -f "$d/modules.order" ]

	# Same inputs with other mtimes, another umask and another staging
	# directory: the same bytes.
	cp -r "$tmp/tree" "$tmp/tree2"
	find "$tmp/tree2" -exec touch -h -d '2001-02-03 04:05:06' {} +
	(umask 077 && "$MODULES_SH" --tree "$tmp/tree2" --release "$REL" --out "$tmp/b.cpio" 2>/dev/null)
	check modules_archive_identical_bytes_across_mtimes_and_umask cmp -s "$tmp/a.cpio" "$tmp/b.cpio"

	fake_ko "$tmp/bad/kernel/net/p/p.ko" p missing_helper
	check modules_archive_stops_when_a_dependency_is_missing build_fails "$tmp/bad" "$tmp/bad.cpio"

	"$MODULES_SH" --empty --out "$tmp/empty.cpio"
	check modules_archive_empty_is_a_valid_archive_without_entries no_entries "$tmp/empty.cpio"

	echo "modules-archive: $pass passed, $fails failed"
	[[ $fails -eq 0 ]]
}

main "$@"
