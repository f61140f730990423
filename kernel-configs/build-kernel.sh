#!/bin/bash
# build-kernel.sh VARIANT: build (or reuse) the custom kernel VARIANT and print
# its bzImage path.
# build-kernel.sh --cached VARIANT: print the path and exit 0 when it is
# already built, exit 1 (printing nothing) when it would have to be built.
# VARIANT is a file variants/VARIANT.config whose header says
#   # description: one line for reports
#   # source: linux-source-6.1          (locked in debian-kernels.lock)
#   # patch: patches/NAME.patch         (optional, applied with patch -p1)
#   # machine: q35                      (QEMU -M value)
#   # build-minutes: 12                 (a cold build's measured cost on 2 cores)
#
# Steps: tinyconfig (ARCH=x86_64), merge base.config + the variant, olddefconfig,
# check that every option the fragments ask for is in the final .config (a
# dropped or changed option stops the build, naming it), then
# `nice -n 19 make -j2 bzImage` through ccache.
#
# Cache: $CACHE/kernels/build-<key>/{bzImage,config,meta}, key = sha256 of the
# source package version and tarball sha256, the fragments, the patch, the gcc
# version and this script's BUILD_FORMAT. A cached kernel returns at once.
# Only one kernel build runs at a time on the machine (flock).
set -euo pipefail

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Bump when a change to this script changes what is built.
BUILD_FORMAT=1
JOBS=${KC_JOBS:-2}

# header FILE KEY: the value of "# KEY: value" in a variant file.
header() {
	sed -n "s/^# $2: *//p" "$1" | head -n1
}

# check_config CONFIG FRAGMENT...: stop naming every option that did not
# survive (kconfig.py, tested by the kconfig suite: an option whose
# dependency is missing is dropped by olddefconfig without a word).
check_config() {
	local report rc=0 line
	report=$(python3 "$KC_DIR/kconfig.py" check "$@") || rc=$?
	if [[ -n "$report" ]]; then
		while IFS= read -r line; do
			kc_log "$line"
		done <<<"$report"
	fi
	((rc == 0)) || kc_die "Kconfig dropped or changed the options above (missing dependency?); fix base.config or the variant (kconfig.py exit $rc)"
}

# build_key VARIANT_FILE PATCH SRC_LINE: print the cache key.
build_key() {
	local vfile=$1 patch=$2 src_line=$3
	{
		printf 'format=%s\nsource=%s\n' "$BUILD_FORMAT" "$src_line"
		gcc --version | head -n1
		printf -- '--- base.config\n'
		cat "$KC_DIR/base.config"
		printf -- '--- variant\n'
		# The cost estimate is not an input of the build.
		grep -v '^# build-minutes:' "$vfile"
		printf -- '--- patch\n'
		if [[ -n "$patch" ]]; then cat "$patch"; fi
	} | sha256sum | cut -c1-16
}

# ccache_hits: "HITS / CALLS (PCT%)" of this build, or why there are none.
# CCACHE_DISABLE=1 in the environment gives a truly cold build (how the cold
# times in README.md were measured).
ccache_hits() {
	# ccache's own reading of the setting (env, config file) decides.
	if [[ "$(ccache -k disable 2>/dev/null)" == true ]]; then
		echo "disabled (CCACHE_DISABLE): a cold build"
		return
	fi
	ccache -s 2>/dev/null | awk '/^ *Hits:/ { $1 = ""; sub(/^ +/, ""); print; exit }'
}

# build VARIANT VFILE PATCH PKG VER TARSHA KEY OUT: the cold path.
build() {
	local variant=$1 vfile=$2 patch=$3 pkg=$4 ver=$5 tarsha=$6 key=$7 out=$8
	local tarball work tree t0 t1 t2 bz

	tarball=$(kc_fetch_source "$pkg" "$ver" "$tarsha")
	work=$KC_CACHE/work-$key
	rm -rf "$work" "$out.tmp"
	mkdir -p "$work" "$out.tmp"
	t0=$(date +%s)
	kc_log "$variant: unpacking $tarball"
	tar -xJf "$tarball" -C "$work"
	tree=$(find "$work" -mindepth 1 -maxdepth 1 -type d -print -quit)
	if [[ -n "$patch" ]]; then
		kc_log "$variant: applying ${patch#"$KC_DIR"/}"
		patch -p1 -d "$tree" --no-backup-if-mismatch <"$patch" >&2
	fi

	# Reproducible version strings, and ccache hits across work dirs.
	export KBUILD_BUILD_TIMESTAMP="@0" KBUILD_BUILD_USER=egress KBUILD_BUILD_HOST=kernel-configs
	export CCACHE_DIR=$CACHE/ccache CCACHE_BASEDIR=$work CCACHE_MAXSIZE=5G
	local mk=(make -C "$tree" ARCH=x86_64 "CC=ccache gcc" HOSTCC=gcc)

	"${mk[@]}" -s tinyconfig >&2
	(cd "$tree" && ./scripts/kconfig/merge_config.sh -m .config "$KC_DIR/base.config" "$vfile" >&2)
	"${mk[@]}" -s olddefconfig >&2
	check_config "$tree/.config" "$KC_DIR/base.config" "$vfile"
	kc_log "$variant: configuration checked: every requested option is in .config"
	t1=$(date +%s)

	kc_log "$variant: building bzImage (nice -n 19, -j$JOBS, ccache in $CCACHE_DIR)"
	ccache -z >/dev/null
	if ! nice -n 19 "${mk[@]}" -j"$JOBS" bzImage >"$work/build.log" 2>&1; then
		tail -n 40 "$work/build.log" >&2
		kc_die "$variant: kernel build failed (log: $work/build.log)"
	fi
	t2=$(date +%s)
	# scripts/checksyscalls.sh: "#warning syscall NAME not implemented" for
	# i386 calls the x86_64 table lacks (no-pidfd-getfd's, on purpose).
	grep -E 'warning: (#warning )?syscall [a-z0-9_]+ not implemented' "$work/build.log" >&2 || true

	bz=$tree/arch/x86/boot/bzImage
	cp "$bz" "$out.tmp/bzImage"
	cp "$tree/.config" "$out.tmp/config"
	cat >"$out.tmp/meta" <<EOF
name=$variant
source=custom
description=$(header "$vfile" description)
package=$pkg
version=$ver
tarball_sha256=$tarsha
patch=${patch#"$KC_DIR"/}
release=$("${mk[@]}" -s kernelrelease)
key=$key
gcc=$(gcc --version | head -n1)
configure_seconds=$((t1 - t0))
build_seconds=$((t2 - t1))
ccache=$(ccache_hits)
bzimage_bytes=$(stat -c %s "$bz")
built=$(date -u +%Y-%m-%dT%H:%M:%SZ)
EOF
	mv "$out.tmp" "$out"
	rm -rf "$work"
	kc_log "$variant: configured in $((t1 - t0)) s, built in $((t2 - t1)) s -> $out/bzImage"
}

main() {
	local only_cached=0
	if [[ ${1:-} == --cached ]]; then
		only_cached=1
		shift
	fi
	(($# == 1)) || kc_die "usage: build-kernel.sh [--cached] VARIANT (variants: $(find "$KC_DIR/variants" -name '*.config' -printf '%f\n' | sed 's/\.config$//' | sort | paste -sd' '))"
	local variant=$1 vfile patch pkg line lname lpkg ver tarsha key out
	vfile=$KC_DIR/variants/$variant.config
	[[ -f "$vfile" ]] || kc_die "unknown variant $variant: no $vfile"
	pkg=$(header "$vfile" source)
	[[ -n "$pkg" ]] || kc_die "$vfile has no '# source:' line"
	patch=$(header "$vfile" patch)
	if [[ -n "$patch" ]]; then
		patch=$KC_DIR/$patch
		[[ -f "$patch" ]] || kc_die "$variant: patch $patch is missing"
	fi
	line=$(kc_lock_line "$pkg")
	[[ -n "$line" ]] || kc_die "$pkg is not in $KC_LOCK; run make kernels-lock-refresh"
	read -r lname lpkg ver tarsha <<<"$line"
	[[ "$lname" == "$pkg" && "$lpkg" == "$pkg" && -n "$tarsha" ]] || kc_die "malformed lock line: $line"

	key=$(build_key "$vfile" "$patch" "$pkg $ver $tarsha")
	out=$KC_CACHE/build-$key
	if [[ -f "$out/bzImage" ]]; then
		printf '%s\n' "$out/bzImage"
		return 0
	fi
	((only_cached == 0)) || return 1
	kc_log "building $variant: about $(header "$vfile" build-minutes) min on 2 cores, cached afterwards"

	kc_need_pkgs build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils ccache \
		dpkg-dev debian-archive-keyring patch util-linux
	mkdir -p "$KC_CACHE"
	exec 9>"$KC_CACHE/build.lock"
	if ! flock -n 9; then
		kc_log "$variant: another kernel build is running; waiting for it (one build at a time)"
		flock 9
	fi
	# Someone else may have built it while we waited.
	if [[ ! -f "$out/bzImage" ]]; then
		# Holding the lock, no other build runs: any work tree or half
		# output left is from a build that was killed (gigabytes each).
		local left
		for left in "$KC_CACHE"/work-* "$KC_CACHE"/build-*.tmp; do
			[[ -e "$left" ]] || continue
			kc_log "removing the leftover of a killed build: $left"
			rm -rf "$left"
		done
		build "$variant" "$vfile" "$patch" "$pkg" "$ver" "$tarsha" "$key" "$out"
	fi
	printf '%s\n' "$out/bzImage"
}

main "$@"
