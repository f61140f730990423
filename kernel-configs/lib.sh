# shellcheck shell=bash
# Shared helpers for the kernel-configs/ scripts. Sourced, never run.
#
# Sets (unless the caller's environment already does):
#   KC_DIR  this directory          TOP    the clone
#   BUILD   $TOP/build              CACHE  /var/cache/egress-appliance
#   KC_CACHE $CACHE/kernels         (every kernel, Debian or built, lives here)

KC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=${TOP:-$(cd "$KC_DIR/.." && pwd)}
BUILD=${BUILD:-$TOP/build}
CACHE=${CACHE:-${EGRESS_CACHE:-/var/cache/egress-appliance}}
# shellcheck disable=SC2034 # used by the scripts that source this file
KC_CACHE=$CACHE/kernels
KC_LOCK=${KC_LOCK:-$KC_DIR/debian-kernels.lock}
# shellcheck disable=SC2034
KC_APT=$KC_DIR/apt.sh
export TOP BUILD CACHE

# Command substitutions stop on errors too (set -e alone does not reach them).
shopt -s inherit_errexit

kc_prog=$(basename "$0")

# kc_log MSG...: progress on stderr, so stdout stays machine-readable.
kc_log() {
	printf '%s: %s\n' "$kc_prog" "$*" >&2
}

# kc_die MSG...: the one way these scripts stop on an error.
kc_die() {
	printf '%s: error: %s\n' "$kc_prog" "$*" >&2
	exit 1
}

# kc_need_pkgs PKG...: install the Debian packages that are not installed yet
# (from the machine's own apt sources: these are host tools, not test inputs).
kc_need_pkgs() {
	local missing=() pkg status
	for pkg in "$@"; do
		status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
		if [[ "$status" != installed ]]; then
			missing+=("$pkg")
		fi
	done
	if ((${#missing[@]} == 0)); then
		return 0
	fi
	kc_log "installing host packages: ${missing[*]}"
	if [[ $(id -u) -ne 0 ]]; then
		kc_die "need root to apt-get install ${missing[*]}"
	fi
	# The machine's lists may be missing or stale on a fresh machine; another
	# install beside this one holds the dpkg lock for a while (waited for).
	if ! DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
		"${missing[@]}" >&2; then
		apt-get -o DPkg::Lock::Timeout=600 update -q >&2
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
			"${missing[@]}" >&2
	fi
}

# kc_sha256 FILE: print the file's sha256.
kc_sha256() {
	local sum
	sum=$(sha256sum "$1")
	printf '%s\n' "${sum%% *}"
}

# kc_lock_line NAME: print the lock line for a Debian kernel NAME, or nothing.
kc_lock_line() {
	local name=$1
	[[ -f "$KC_LOCK" ]] || return 0
	awk -v n="$name" '!/^[[:space:]]*(#|$)/ && $1 == n { print; exit }' "$KC_LOCK"
}

# The Debian kernels of the matrix: NAME PACKAGE-REGEX MACHINE DESCRIPTION.
# The lock (debian-kernels.lock) pins which package and version each NAME is;
# --refresh-lock picks the newest package name matching the regex.
kc_debian_table() {
	cat <<'TABLE'
debian-5.10 ^linux-image-5\.10\.0-[0-9]+-amd64-unsigned$ q35 Debian 11 bullseye 5.10 generic amd64 kernel (CONFIG_X86_X32=y; oldest in the matrix, no WAIT_KILLABLE_RECV)
debian-6.1 ^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$ q35 Debian 12 bookworm 6.1 generic amd64 kernel (CONFIG_X86_X32_ABI=y)
debian-6.1-cloud ^linux-image-6\.1\.0-[0-9]+-cloud-amd64-unsigned$ q35 Debian 12 bookworm 6.1 cloud-amd64 kernel (no x32 ABI)
debian-6.12 ^linux-image-6\.12\.[0-9]+\+deb13-amd64-unsigned$ q35 Debian 13 trixie 6.12 generic amd64 kernel
debian-7.2 ^linux-image-7\.2\.[0-9]+\+deb14-amd64$ q35 Debian sid 7.2 generic amd64 kernel (CONFIG_X86_X32_ABI=y)
debian-7.3 ^linux-image-7\.3\.[0-9]+\+deb13-amd64$ q35 Debian 13 trixie-backports 7.3 generic amd64 kernel (CONFIG_X86_X32_ABI=y; newest)
debian-7.3-cloud ^linux-image-7\.3\.[0-9]+\+deb13-cloud-amd64$ q35 Debian 13 trixie-backports 7.3 cloud-amd64 kernel (no x32 ABI)
TABLE
}

# kc_debian_field NAME FIELD: FIELD 2 = regex, 3 = machine, 4 = description.
kc_debian_field() {
	kc_debian_table | awk -v n="$1" -v f="$2" '$1 == n {
		if (f == 4) { $1 = $2 = $3 = ""; sub(/^ +/, ""); print } else print $f; exit }'
}

kc_debian_names() {
	kc_debian_table | awk '{ print $1 }'
}

# kc_modules_file: the name of a kernel's modules archive in its cache
# directory. It is keyed by what makes its bytes (the builder, the cpio writer
# and the busybox whose depmod writes the indexes), so a change to any of them
# builds a new archive instead of reusing a stale one.
kc_modules_file() {
	local key
	key=$(cat "$TOP/initramfs/modules.sh" "$TOP/initramfs/host/modtree.py" "$TOP/initramfs/host/mkcpio.py" \
		/bin/busybox | sha256sum)
	printf 'modules-%s.cpio\n' "${key:0:12}"
}

# Source packages the custom kernels are built from (their versions and
# tarball sha256 are locked in debian-kernels.lock like the Debian kernels).
kc_source_packages() {
	printf '%s\n' linux-source-6.1 linux-source-5.10
}

# kc_fetch_source PKG VER WANT_SHA: put the kernel tarball that PKG=VER ships
# (/usr/src/linux-source-*.tar.xz) into $KC_CACHE/src-<sha256>/ and print the
# tarball's path. WANT_SHA "-" accepts what the mirror has (lock refresh).
kc_fetch_source() {
	local pkg=$1 ver=$2 want=$3 tmp deb tarball sha hint
	hint="make kernels-lock-refresh (or kernel-configs/fetch-kernels.sh --refresh-lock), then commit kernel-configs/debian-kernels.lock"
	if [[ "$want" != - ]]; then
		tarball=$(find "$KC_CACHE/src-$want" -maxdepth 1 -name '*.tar.xz' -print -quit 2>/dev/null || true)
		if [[ -n "$tarball" ]]; then
			printf '%s\n' "$tarball"
			return 0
		fi
	fi
	if ! "$KC_APT" madison "$pkg" | awk -v p="$pkg" -v v="$ver" '$1 == p && $2 == v { f = 1 } END { exit !f }'; then
		kc_die "$pkg version $ver (from the lock) is no longer on the mirror; refresh the lock: $hint"
	fi
	mkdir -p "$KC_CACHE"
	tmp=$(mktemp -d "$KC_CACHE/tmp.XXXXXX")
	kc_log "downloading $pkg=$ver"
	deb=$("$KC_APT" download "$pkg=$ver" "$tmp")
	kc_log "$pkg: $(($(stat -c %s "$deb") / 1048576)) MiB .deb"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --wildcards './usr/src/linux-source-*.tar.xz'
	tarball=$(find "$tmp/usr/src" -name 'linux-source-*.tar.xz' -print -quit)
	[[ -n "$tarball" ]] || kc_die "$deb has no /usr/src/linux-source-*.tar.xz"
	sha=$(kc_sha256 "$tarball")
	if [[ "$want" != - && "$sha" != "$want" ]]; then
		rm -rf "$tmp"
		kc_die "$pkg $ver tarball sha256 is $sha but the lock says $want; refresh deliberately: $hint"
	fi
	rm -rf "${KC_CACHE:?}/src-$sha"
	mkdir -p "$KC_CACHE/src-$sha"
	mv "$tarball" "$KC_CACHE/src-$sha/"
	printf 'package=%s\nversion=%s\ntarball_sha256=%s\n' "$pkg" "$ver" "$sha" >"$KC_CACHE/src-$sha/meta"
	rm -rf "$tmp"
	printf '%s\n' "$KC_CACHE/src-$sha/${tarball##*/}"
}
