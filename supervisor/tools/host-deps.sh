#!/usr/bin/env bash
# Installs the Debian packages named on the command line when any is missing,
# so every make target works on a fresh Debian 12 machine (as root).
set -euo pipefail

missing_packages() {
	local pkg
	for pkg in "$@"; do
		if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
			printf '%s\n' "$pkg"
		fi
	done
}

main() {
	local -a missing
	mapfile -t missing < <(missing_packages "$@")
	[[ ${#missing[@]} -eq 0 ]] && return 0
	if [[ $(id -u) -ne 0 ]]; then
		echo "host-deps: missing Debian packages: ${missing[*]} (run as root, or apt-get install them)" >&2
		return 1
	fi
	echo "host-deps: installing ${missing[*]}" >&2
	# apt-get update only when the package lists are absent or the install fails:
	# a fresh machine may have no lists at all. Another make target installing
	# beside this one (a kernel build, a helper's run) holds the dpkg lock for
	# a while: wait for it rather than fail at once (apt's default).
	if ! DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}" >&2; then
		apt-get -o DPkg::Lock::Timeout=600 update -q >&2
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}" >&2
	fi
}

main "$@"
