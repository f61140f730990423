#!/usr/bin/env bash
# Builds a static libseccomp with musl-gcc from Debian's source package into a
# sysroot: Debian's libseccomp-dev is built for glibc and cannot be linked
# into a static musl binary.
#   build-libseccomp.sh BUILD_DIR
# Result: BUILD_DIR/sysroot/{include,lib}/ with seccomp.h and libseccomp.a.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)

die() {
	echo "build-libseccomp: $*" >&2
	exit 1
}

fetch_source() {
	local dest=$1
	rm -rf "$dest" && mkdir -p "$dest"
	(cd "$dest" && "$top/kernel-configs/apt.sh" source-download libseccomp "$dest") ||
		die "could not fetch Debian's libseccomp source package (is Debian's registry reachable?)"
	local dsc
	dsc=$(find "$dest" -maxdepth 1 -name 'libseccomp_2.5.*.dsc' | head -n 1)
	[[ -n $dsc ]] || die "no libseccomp 2.5.x .dsc in $dest (Debian's bookworm source should be 2.5.4)"
	# dpkg-source applies Debian's patches (newer syscall tables).
	(cd "$dest" && dpkg-source --no-check -x "$dsc" src >/dev/null) || die "dpkg-source -x $dsc failed"
}

main() {
	local build=${1:?usage: build-libseccomp.sh BUILD_DIR}
	local sysroot="$build/sysroot" work="$build/libseccomp"
	[[ -f $sysroot/lib/libseccomp.a ]] && return 0
	"$here/host-deps.sh" musl-tools gperf dpkg-dev linux-libc-dev make
	"$here/kheaders.sh" "$build/kheaders"
	fetch_source "$work"
	cd "$work/src"
	# musl-gcc does not look in /usr/include: hand it the kernel UAPI headers only.
	CC=musl-gcc CFLAGS="-O2 -isystem $build/kheaders" \
		./configure --quiet --enable-static --disable-shared --prefix="$sysroot" >/dev/null ||
		die "configure failed (see $work/src/config.log)"
	make -s -j"$(nproc)" -C src >/dev/null || die "make failed in $work/src/src"
	make -s -C src install >/dev/null
	make -s -C include install >/dev/null
	[[ -f $sysroot/lib/libseccomp.a ]] || die "libseccomp.a was not installed into $sysroot"
}

main "$@"
