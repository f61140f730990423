#!/bin/bash
# fetch-kernels.sh: put the Debian kernels named in debian-kernels.lock into the
# cache, verified against the lock.
#
#   fetch-kernels.sh [NAME...]          fetch (all when no NAME), verify, print paths
#   fetch-kernels.sh --refresh-lock     pick the newest version of each kernel on
#                                       the mirror, fetch it, rewrite the lock
#
# Cache: $CACHE/kernels/<vmlinuz-sha256>/{vmlinuz,config,meta}. A kernel already
# there is verified (sha256) and not downloaded again. The .deb is not kept.
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

# fetch_one NAME PACKAGE VERSION WANT_SHA: download, extract, verify and cache.
# WANT_SHA may be "-" (refresh: accept what the mirror has). Prints the sha256.
fetch_one() {
	local name=$1 pkg=$2 ver=$3 want=$4
	local tmp deb sha size t0 t1 vmlinuz config release

	if [[ "$want" != - && -f "$KC_CACHE/$want/vmlinuz" ]]; then
		sha=$(kc_sha256 "$KC_CACHE/$want/vmlinuz")
		if [[ "$sha" == "$want" ]]; then
			kc_log "$name: cached $KC_CACHE/$want/vmlinuz"
			printf '%s\n' "$sha"
			return 0
		fi
		kc_log "$name: cached copy is corrupt (sha256 $sha), fetching again"
		rm -rf "${KC_CACHE:?}/$want"
	fi

	if ! "$KC_APT" madison "$pkg" | awk -v p="$pkg" -v v="$ver" '$1 == p && $2 == v { f = 1 } END { exit !f }'; then
		kc_die "$name: $pkg version $ver (from the lock) is no longer on the mirror; refresh the lock: $REFRESH_HINT"
	fi

	mkdir -p "$KC_CACHE"
	tmp=$(mktemp -d "$KC_CACHE/tmp.XXXXXX")
	# shellcheck disable=SC2064 # expand now: the trap must remove this run's dir
	trap "rm -rf '$tmp'" EXIT
	kc_log "$name: downloading $pkg=$ver"
	t0=$(date +%s.%N)
	deb=$("$KC_APT" download "$pkg=$ver" "$tmp/deb")
	t1=$(date +%s.%N)
	size=$(stat -c %s "$deb")
	kc_log "$name: $((size / 1048576)) MiB in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"

	mkdir -p "$tmp/x"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp/x" --wildcards './boot/vmlinuz-*' './boot/config-*'
	vmlinuz=$(find "$tmp/x/boot" -name 'vmlinuz-*' | head -n1)
	config=$(find "$tmp/x/boot" -name 'config-*' | head -n1)
	[[ -n "$vmlinuz" && -n "$config" ]] || kc_die "$name: $deb has no /boot/vmlinuz-* or /boot/config-*"
	release=${vmlinuz##*/vmlinuz-}
	sha=$(kc_sha256 "$vmlinuz")
	if [[ "$want" != - && "$sha" != "$want" ]]; then
		kc_die "$name: $pkg $ver vmlinuz sha256 is $sha but the lock says $want; the mirror's package changed under the same version. Refresh deliberately: $REFRESH_HINT"
	fi

	mkdir -p "$tmp/k"
	mv "$vmlinuz" "$tmp/k/vmlinuz"
	mv "$config" "$tmp/k/config"
	cat >"$tmp/k/meta" <<EOF
name=$name
source=debian
package=$pkg
version=$ver
release=$release
vmlinuz_sha256=$sha
config_file=config-$release
deb_bytes=$size
download_seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
fetched=$(date -u +%Y-%m-%dT%H:%M:%SZ)
EOF
	if [[ -d "$KC_CACHE/$sha" ]]; then
		rm -rf "${KC_CACHE:?}/$sha"
	fi
	mv "$tmp/k" "$KC_CACHE/$sha"
	rm -rf "$tmp"
	trap - EXIT
	kc_log "$name: $release -> $KC_CACHE/$sha/vmlinuz"
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

refresh_lock() {
	local name pkg ver sha newest names path lines=()
	"$KC_APT" update
	mapfile -t names < <(kc_debian_names)
	for name in "${names[@]}"; do
		newest=$(newest_package "$name")
		read -r pkg ver <<<"$newest"
		kc_log "$name: newest is $pkg $ver"
		sha=$(fetch_one "$name" "$pkg" "$ver" -)
		lines+=("$name $pkg $ver $sha")
	done
	# Source packages for the custom kernels: NAME is the package name and the
	# sha256 is that of the kernel tarball inside it.
	mapfile -t names < <(kc_source_packages)
	for name in "${names[@]}"; do
		ver=$("$KC_APT" candidate "$name")
		[[ -n "$ver" ]] || kc_die "$name is not on the mirror"
		kc_log "$name: newest is $ver"
		path=$(kc_fetch_source "$name" "$ver" -)
		sha=$(kc_sha256 "$path")
		lines+=("$name $name $ver $sha")
	done
	{
		cat <<'EOF'
# Debian kernels of the matrix, one a line:
#   NAME PACKAGE VERSION VMLINUZ-SHA256
# NAME is what scenarios and reports use; PACKAGE=VERSION is fetched from the
# Debian mirror through kernel-configs/apt.sh; VMLINUZ-SHA256 is the sha256 of
# /boot/vmlinuz-* inside that package and keys the cache
# ($CACHE/kernels/<sha256>/). Lines whose NAME is a linux-source-* package
# pin the source of the custom kernels; their sha256 is that of the kernel
# tarball in the package ($CACHE/kernels/src-<sha256>/). Fetching stops when the sha256 differs or the
# version is gone from the mirror. Rewritten by:
#   make kernels-lock-refresh   (kernel-configs/fetch-kernels.sh --refresh-lock)
EOF
		printf '%s\n' "${lines[@]}"
	} >"$KC_LOCK.new"
	mv "$KC_LOCK.new" "$KC_LOCK"
	kc_log "wrote $KC_LOCK"
	cat "$KC_LOCK"
}

main() {
	kc_need_pkgs dpkg-dev debian-archive-keyring xz-utils
	if [[ "${1:-}" == --refresh-lock ]]; then
		(($# == 1)) || kc_die "--refresh-lock takes no names"
		refresh_lock
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
