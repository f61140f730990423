#!/bin/bash
# kernels.sh: the kernel matrix, for scenarios and reports.
#
#   kernels.sh list            NAME<TAB>DESCRIPTION for every kernel
#   kernels.sh names           NAME only, one a line
#   kernels.sh path NAME       the kernel image (vmlinuz/bzImage), fetched or
#                              built first when missing
#   kernels.sh config NAME     the kernel's .config next to that image (same)
#   kernels.sh modules NAME    the kernel's modules archive (newc cpio of
#                              lib/modules/<release>/: net/, crypto/ and
#                              their dependencies; empty for a kernel built without
#                              modules), made first when missing; the launcher
#                              appends it to the run's initramfs
#   kernels.sh machine NAME    the QEMU -machine type that boots and powers it off
#   kernels.sh describe NAME   the one-line description
#   kernels.sh plan NAME       what `path` would do: "cached", "fetch", or
#                              "build MINUTES" (a custom kernel's cold cost)
#
# Debian kernels come from debian-kernels.lock (fetch-kernels.sh); custom ones
# from variants/NAME.config (build-kernel.sh).
set -euo pipefail

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# variant_field NAME KEY: a "# KEY: value" header line of variants/NAME.config.
variant_field() {
	local file=$KC_DIR/variants/$1.config
	[[ -f "$file" ]] || return 0
	sed -n "s/^# $2: *//p" "$file" | head -n1
}

custom_names() {
	local f
	for f in "$KC_DIR"/variants/*.config; do
		[[ -e "$f" ]] || continue
		f=${f##*/}
		printf '%s\n' "${f%.config}"
	done
}

# kind NAME: "debian", "custom", or a stop naming the known kernels.
kind() {
	if [[ -n "$(kc_debian_field "$1" 2)" ]]; then
		echo debian
	elif [[ -f "$KC_DIR/variants/$1.config" ]]; then
		echo custom
	else
		kc_die "unknown kernel: $1 (known: $(all_names | paste -sd' '))"
	fi
}

all_names() {
	kc_debian_names
	custom_names
}

describe() {
	local k
	k=$(kind "$1")
	case "$k" in
	debian) kc_debian_field "$1" 4 ;;
	custom) variant_field "$1" description ;;
	esac
}

machine() {
	local k
	k=$(kind "$1")
	case "$k" in
	debian) kc_debian_field "$1" 3 ;;
	custom) variant_field "$1" machine ;;
	esac
}

# image NAME: the path of the kernel image, fetching or building it if needed.
image() {
	local name=$1 out path k
	k=$(kind "$name")
	case "$k" in
	debian)
		out=$("$KC_DIR/fetch-kernels.sh" "$name")
		path=${out#"$name "}
		;;
	custom)
		[[ -x "$KC_DIR/build-kernel.sh" ]] || kc_die "$name: build-kernel.sh is missing"
		path=$("$KC_DIR/build-kernel.sh" "$name")
		;;
	esac
	[[ -n "$path" && -f "$path" ]] || kc_die "$name: no kernel image at '${path:-}'"
	printf '%s\n' "$path"
}

# plan NAME: what image NAME would do now, without doing it.
plan() {
	local name=$1 k sha
	k=$(kind "$name")
	case "$k" in
	debian)
		sha=$(kc_lock_line "$name" | awk '{ print $4 }')
		if [[ -n "$sha" && -f "$KC_CACHE/$sha/vmlinuz" ]]; then echo cached; else echo fetch; fi
		;;
	custom)
		if "$KC_DIR/build-kernel.sh" --cached "$name" >/dev/null; then
			echo cached
		else
			echo "build $(variant_field "$name" build-minutes)"
		fi
		;;
	esac
}

# modules NAME: the path of NAME's modules archive, next to its image.
# fetch-kernels.sh makes it for a Debian kernel along with the image; a custom
# kernel is built without modules (CONFIG_MODULES off), so its archive is
# empty, and one whose config says otherwise is a stop, not a guest that
# silently lacks its modules.
modules() {
	local name=$1 path dir file k
	k=$(kind "$name")
	path=$(image "$name")
	dir=${path%/*}
	file=$dir/$(kc_modules_file)
	if [[ "$k" == custom && ! -f "$file" ]]; then
		if grep -q '^CONFIG_MODULES=y' "$dir/config"; then
			kc_die "$name: built with CONFIG_MODULES=y, but build-kernel.sh installs no modules; turn CONFIG_MODULES off in variants/$name.config or install them"
		fi
		"$TOP/initramfs/modules.sh" --empty --out "$file"
	fi
	[[ -f "$file" ]] || kc_die "$name: no modules archive at $file"
	printf '%s\n' "$file"
}

main() {
	local cmd=${1:-} name path
	case "$cmd" in
	list)
		for name in $(all_names); do
			printf '%s\t%s\n' "$name" "$(describe "$name")"
		done
		;;
	names)
		all_names
		;;
	path | config | modules | machine | describe | plan)
		(($# == 2)) || kc_die "usage: kernels.sh $cmd NAME"
		name=$2
		case "$cmd" in
		path) image "$name" ;;
		config)
			path=$(image "$name")
			path=${path%/*}/config
			[[ -f "$path" ]] || kc_die "$name: no config at $path"
			printf '%s\n' "$path"
			;;
		modules) modules "$name" ;;
		machine) machine "$name" ;;
		describe) describe "$name" ;;
		plan) plan "$name" ;;
		esac
		;;
	*)
		sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
		exit 2
		;;
	esac
}

main "$@"
