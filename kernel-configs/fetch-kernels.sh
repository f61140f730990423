#!/bin/bash
# fetch-kernels.sh: put the Debian kernels named in debian-kernels.lock into the
# cache, verified against the lock.
#
#   fetch-kernels.sh [NAME...]          fetch (all when no NAME), verify, print paths
#   fetch-kernels.sh --refresh-lock [NAME...]
#                                       pick the newest version of each kernel
#                                       (or of the NAMEs) on the mirror, fetch
#                                       it, rewrite the lock
#
# Cache: $CACHE/kernels/<vmlinuz-sha256>/{vmlinuz,config,meta,modules-*.cpio}.
# A kernel already there is verified (sha256) and not downloaded again (a
# cached kernel without its modules archive is downloaded once more for it).
# The .debs are not kept.
set -euo pipefail

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

REFRESH_HINT="make kernels-lock-refresh (or kernel-configs/fetch-kernels.sh --refresh-lock), then commit kernel-configs/debian-kernels.lock"

# newest_package NAME: print "PACKAGE VERSION" for the newest package matching
# NAME's regex on the mirror.
newest_package() {
	local name=$1 regex pkg ver best_pkg="" best_ver=""
	regex=$(kc_debian_field "$name" 2)
	[[ -n "$regex" ]] || kc_die "unknown Debian kernel name: $name"
	while read -r pkg; do
		ver=$("$KC_APT" candidate "$pkg")
		[[ -n "$ver" ]] || continue
		if [[ -z "$best_ver" ]] || dpkg --compare-versions "$ver" gt "$best_ver"; then
			best_pkg=$pkg
			best_ver=$ver
		fi
	done < <("$KC_APT" pkgnames linux-image- | grep -E "$regex")
	[[ -n "$best_pkg" ]] || kc_die "no package matching $regex on the mirror for $name"
	printf '%s %s\n' "$best_pkg" "$best_ver"
}

# parts PACKAGE VERSION: the packages that together hold one kernel, one a
# line. Up to 6.12 that is PACKAGE itself (/boot/vmlinuz-*, /boot/config-*,
# /lib/modules/); from 7.0 Debian's linux-image-* is an empty package whose
# Depends name linux-binary-* (vmlinuz), linux-base-* (config, modules.order)
# and linux-modules-* (the .ko files) of the same version, all under
# /usr/lib/modules/<release>/.
parts() {
	local pkg=$1 ver=$2 deps
	printf '%s\n' "$pkg"
	deps=$("$KC_APT" apt-cache show "$pkg=$ver")
	deps=$(awk '/^Depends:/ { sub(/^Depends: */, ""); print; exit }' <<<"$deps")
	tr ',' '\n' <<<"$deps" | sed -nE "s/^ *(linux-(binary|base|modules)-[^ ]+) \\(= ([^)]+)\\) *\$/\\1 \\3/p" |
		while read -r dep dver; do
			[[ "$dver" == "$ver" ]] || kc_die "$pkg=$ver depends on $dep=$dver, another version"
			printf '%s\n' "$dep"
		done
}

# unpack_kernel NAME PACKAGE VERSION DIR: download every part of PACKAGE=VERSION
# into DIR/deb and unpack them all into DIR/x; sets K_VMLINUZ, K_CONFIG,
# K_RELEASE, K_MODDIR (lib/modules/<release>) and K_BYTES (all .debs).
unpack_kernel() {
	local name=$1 pkg=$2 ver=$3 dir=$4 part deb n list
	local -a found
	K_BYTES=0
	mkdir -p "$dir/deb" "$dir/x"
	# A command substitution, not a process substitution: a failed apt query
	# must stop here, not leave a list without the kernel's parts.
	list=$(parts "$pkg" "$ver")
	for part in $list; do
		kc_log "$name: downloading $part=$ver"
		deb=$("$KC_APT" download "$part=$ver" "$dir/deb")
		K_BYTES=$((K_BYTES + $(stat -c %s "$deb")))
		dpkg-deb -x "$deb" "$dir/x"
		rm -f "$deb"
	done
	# Either layout may be absent: a missing directory is no match.
	mapfile -t found < <(find "$dir/x/boot" -maxdepth 1 -name 'vmlinuz-*' 2>/dev/null || true
		find "$dir/x/usr/lib/modules" -mindepth 2 -maxdepth 2 -name vmlinuz 2>/dev/null || true)
	n=${#found[@]}
	((n == 1)) || kc_die "$name: $pkg=$ver holds $n kernel images (want one): ${found[*]}"
	K_VMLINUZ=${found[0]}
	case $K_VMLINUZ in
	*/boot/vmlinuz-*)
		K_RELEASE=${K_VMLINUZ##*/vmlinuz-}
		K_CONFIG=$dir/x/boot/config-$K_RELEASE
		K_MODDIR=$dir/x/lib/modules/$K_RELEASE
		;;
	*)
		K_RELEASE=${K_VMLINUZ%/vmlinuz}
		K_RELEASE=${K_RELEASE##*/}
		K_CONFIG=$dir/x/usr/lib/modules/$K_RELEASE/config
		K_MODDIR=$dir/x/usr/lib/modules/$K_RELEASE
		;;
	esac
	# trixie's 6.12 keeps /boot but ships its modules under /usr (merged /usr).
	if [[ ! -d "$K_MODDIR/kernel" && -d "$dir/x/usr/lib/modules/$K_RELEASE/kernel" ]]; then
		K_MODDIR=$dir/x/usr/lib/modules/$K_RELEASE
	fi
	[[ -f "$K_CONFIG" ]] || kc_die "$name: $pkg=$ver has no config for $K_RELEASE"
	[[ -d "$K_MODDIR/kernel" ]] || kc_die "$name: $pkg=$ver has no modules in ${K_MODDIR#"$dir/x"}"
}

# modules_build NAME DIR FILE: the modules archive of the kernel unpack_kernel
# left in DIR, written to DIR/k/FILE (FILE is kc_modules_file's name, taken
# once by the caller so the name it moves is the name written).
modules_build() {
	local name=$1 dir=$2 file=$3 t0 t1
	t0=$(date +%s.%N)
	mkdir -p "$dir/k"
	"$TOP/initramfs/modules.sh" --tree "$K_MODDIR" --release "$K_RELEASE" --out "$dir/k/$file"
	t1=$(date +%s.%N)
	kc_log "$name: modules archive $(($(stat -c %s "$dir/k/$file") / 1024)) KiB in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
}

# cached_sha NAME PACKAGE VERSION: the sha256 of a cached kernel fetched from
# exactly PACKAGE=VERSION for NAME (a lock refresh that finds the version it
# would pick already cached verifies that copy instead of downloading it).
cached_sha() {
	local meta dir
	for meta in "$KC_CACHE"/*/meta; do
		[[ -f "$meta" ]] || continue
		if ! grep -qxF "name=$1" "$meta" || ! grep -qxF "package=$2" "$meta" ||
			! grep -qxF "version=$3" "$meta"; then
			continue
		fi
		dir=${meta%/meta}
		printf '%s\n' "${dir##*/}"
		return 0
	done
}

# fetch_one NAME PACKAGE VERSION WANT_SHA: download, extract, verify and cache
# the kernel and its modules archive. WANT_SHA may be "-" (refresh: accept
# what the mirror has). Prints the sha256.
fetch_one() {
	local name=$1 pkg=$2 ver=$3 want=$4
	local tmp sha t0 t1 dest modules

	modules=$(kc_modules_file)
	if [[ "$want" == - ]]; then
		want=$(cached_sha "$name" "$pkg" "$ver")
		[[ -n "$want" ]] || want=-
	fi
	if [[ "$want" != - && -f "$KC_CACHE/$want/vmlinuz" ]]; then
		sha=$(kc_sha256 "$KC_CACHE/$want/vmlinuz")
		if [[ "$sha" == "$want" && -f "$KC_CACHE/$want/$modules" ]]; then
			kc_log "$name: cached $KC_CACHE/$want/vmlinuz"
			printf '%s\n' "$sha"
			return 0
		fi
		if [[ "$sha" != "$want" ]]; then
			kc_log "$name: cached copy is corrupt (sha256 $sha), fetching again"
			rm -rf "${KC_CACHE:?}/$want"
		else
			kc_log "$name: cached kernel has no $modules yet, fetching the package for its modules"
		fi
	fi

	if ! "$KC_APT" madison "$pkg" | awk -v p="$pkg" -v v="$ver" '$1 == p && $2 == v { f = 1 } END { exit !f }'; then
		kc_die "$name: $pkg version $ver (from the lock) is no longer on the mirror; refresh the lock: $REFRESH_HINT"
	fi

	mkdir -p "$KC_CACHE"
	tmp=$(mktemp -d "$KC_CACHE/tmp.XXXXXX")
	# shellcheck disable=SC2064 # expand now: the trap must remove this run's dir
	trap "rm -rf '$tmp'" EXIT
	t0=$(date +%s.%N)
	unpack_kernel "$name" "$pkg" "$ver" "$tmp"
	t1=$(date +%s.%N)
	kc_log "$name: $((K_BYTES / 1048576)) MiB in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
	sha=$(kc_sha256 "$K_VMLINUZ")
	if [[ "$want" != - && "$sha" != "$want" ]]; then
		kc_die "$name: $pkg $ver vmlinuz sha256 is $sha but the lock says $want; the mirror's package changed under the same version. Refresh deliberately: $REFRESH_HINT"
	fi
	modules_build "$name" "$tmp" "$modules"
	dest=$KC_CACHE/$sha
	if [[ -f "$dest/vmlinuz" && -f "$dest/meta" ]]; then
		# Only the modules archive was missing: add it, keep the rest.
		mv "$tmp/k/$modules" "$dest/$modules"
	else
		mv "$K_VMLINUZ" "$tmp/k/vmlinuz"
		mv "$K_CONFIG" "$tmp/k/config"
		cat >"$tmp/k/meta" <<EOF
name=$name
source=debian
package=$pkg
version=$ver
release=$K_RELEASE
vmlinuz_sha256=$sha
config_file=config-$K_RELEASE
deb_bytes=$K_BYTES
download_seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
fetched=$(date -u +%Y-%m-%dT%H:%M:%SZ)
EOF
		rm -rf "${dest:?}"
		mv "$tmp/k" "$dest"
	fi
	rm -rf "$tmp"
	trap - EXIT
	kc_log "$name: $K_RELEASE -> $dest/vmlinuz, $dest/$modules"
	printf '%s\n' "$sha"
}

# fetch_locked NAME: fetch the kernel the lock names; print its vmlinuz path.
fetch_locked() {
	local name=$1 line lname pkg ver sha
	line=$(kc_lock_line "$name")
	if [[ -z "$line" ]]; then
		if [[ -z "$(kc_debian_field "$name" 2)" ]]; then
			kc_die "unknown Debian kernel name: $name (known: $(kc_debian_names | tr '\n' ' '))"
		fi
		kc_die "$name is not in $KC_LOCK; $REFRESH_HINT"
	fi
	read -r lname pkg ver sha <<<"$line"
	[[ "$lname" == "$name" && -n "$sha" ]] || kc_die "malformed lock line: $line"
	fetch_one "$name" "$pkg" "$ver" "$sha" >/dev/null
	printf '%s\n' "$KC_CACHE/$sha/vmlinuz"
}

# refresh_line NAME: the lock line for NAME with the newest version on the
# mirror (fetched and verified on the way).
refresh_line() {
	local name=$1 pkg ver sha newest path
	if [[ -n "$(kc_debian_field "$name" 2)" ]]; then
		newest=$(newest_package "$name")
		read -r pkg ver <<<"$newest"
		kc_log "$name: newest is $pkg $ver"
		sha=$(fetch_one "$name" "$pkg" "$ver" -)
		printf '%s %s %s %s\n' "$name" "$pkg" "$ver" "$sha"
		return 0
	fi
	# Source packages for the custom kernels: NAME is the package name and the
	# sha256 is that of the kernel tarball inside it.
	kc_source_packages | grep -qxF -- "$name" || kc_die "unknown lock name: $name"
	ver=$("$KC_APT" candidate "$name")
	[[ -n "$ver" ]] || kc_die "$name is not on the mirror"
	kc_log "$name: newest is $ver"
	path=$(kc_fetch_source "$name" "$ver" -)
	sha=$(kc_sha256 "$path")
	printf '%s %s %s %s\n' "$name" "$name" "$ver" "$sha"
}

# refresh_lock [NAME...]: rewrite the lock with the newest version of every
# kernel and source package, or only of the NAMEs given (the other lines are
# kept as they are).
refresh_lock() {
	local name names line lines=()
	local -A only=()
	for name in "$@"; do
		only[$name]=1
	done
	"$KC_APT" update
	mapfile -t names < <(kc_debian_names; kc_source_packages)
	for name in "${names[@]}"; do
		if ((${#only[@]} == 0)) || [[ -n "${only[$name]:-}" ]]; then
			line=$(refresh_line "$name")
			unset "only[$name]"
		else
			line=$(kc_lock_line "$name")
			[[ -n "$line" ]] || kc_die "$name is not in $KC_LOCK: refresh it too (--refresh-lock $name)"
		fi
		lines+=("$line")
	done
	((${#only[@]} == 0)) || kc_die "unknown lock names: ${!only[*]}"
	{
		cat <<'EOF'
# Debian kernels of the matrix, one a line:
#   NAME PACKAGE VERSION VMLINUZ-SHA256
# NAME is what scenarios and reports use; PACKAGE=VERSION is fetched from the
# Debian mirror through kernel-configs/apt.sh (from 7.0 with the
# linux-binary-*, linux-base-* and linux-modules-* packages it depends on);
# VMLINUZ-SHA256 is the sha256 of the vmlinuz inside and keys the cache
# ($CACHE/kernels/<sha256>/). Lines whose NAME is a linux-source-* package
# pin the source of the custom kernels; their sha256 is that of the kernel
# tarball in the package ($CACHE/kernels/src-<sha256>/). Fetching stops when the sha256 differs or the
# version is gone from the mirror. Rewritten by:
#   make kernels-lock-refresh   (kernel-configs/fetch-kernels.sh --refresh-lock [NAME...])
EOF
		printf '%s\n' "${lines[@]}"
	} >"$KC_LOCK.new"
	mv "$KC_LOCK.new" "$KC_LOCK"
	kc_log "wrote $KC_LOCK"
	cat "$KC_LOCK"
}

main() {
	kc_need_pkgs dpkg-dev debian-archive-keyring xz-utils zstd busybox-static
	if [[ "${1:-}" == --refresh-lock ]]; then
		shift
		refresh_lock "$@"
		return 0
	fi
	if [[ "${1:-}" == -* ]]; then
		sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
		exit 2
	fi
	local names=("$@") name path
	if ((${#names[@]} == 0)); then
		mapfile -t names < <(kc_debian_names)
	fi
	for name in "${names[@]}"; do
		path=$(fetch_locked "$name")
		printf '%s %s\n' "$name" "$path"
	done
}

main "$@"
