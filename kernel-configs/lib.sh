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
	# The machine's lists may be missing or stale on a fresh machine.
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >&2; then
		apt-get update -q >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
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
debian-6.12 ^linux-image-6\.12\.[0-9]+\+deb13-amd64-unsigned$ q35 Debian 13 trixie 6.12 generic amd64 kernel (newest)
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
