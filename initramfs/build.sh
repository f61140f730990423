#!/usr/bin/env bash
# Builds the guest initramfs: static busybox, the supervisor, the guest-side
# programs, agents and cell files, as a deterministic newc cpio (docs/guest.md).
#
#   initramfs/build.sh --out FILE --guest-bin DIR [--supervisor FILE|DIR]
#                      [--cells DIR]... [--agents DIR]... [--gzip]
#
# SUPERVISOR=PATH overrides the default supervisor (build/egress-supervisor):
# a file or a bundle directory with a bundle.conf, staged under /opt/supervisor
# by initramfs/host/bundle.py (docs/supervisor-contract.md);
# SOURCE_DATE_EPOCH sets every mtime (default: a fixed value). Two builds from
# the same inputs give identical bytes (make initramfs-repro-test).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly HERE
TOP="$(dirname "$HERE")"
readonly TOP
# 2024-01-01T00:00:00Z: any fixed value works; this one is recognisable.
readonly DEFAULT_EPOCH=1704067200

die() {
	echo "initramfs/build.sh: $*" >&2
	exit 1
}

usage() {
	sed -n '5,7p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

ensure_busybox() {
	if [[ ! -x /bin/busybox ]] || ! dpkg-query -W -f='${Status}' busybox-static 2>/dev/null |
		grep -q 'install ok installed'; then
		"$TOP/supervisor/tools/host-deps.sh" busybox-static
	fi
	# busybox-static installs /bin/busybox; check it really is static.
	if ! file -b /bin/busybox 2>/dev/null | grep -q 'statically linked'; then
		command -v file >/dev/null || return 0
		die "/bin/busybox is not statically linked (install busybox-static)"
	fi
}

main() {
	local out="" guest_bin="" gzip=() stage
	local supervisor=${SUPERVISOR:-$TOP/build/egress-supervisor}
	local -a cells=() agents=()
	while [[ $# -gt 0 ]]; do
		case $1 in
		--out) out=${2:?}; shift 2 ;;
		--guest-bin) guest_bin=${2:?}; shift 2 ;;
		--supervisor) supervisor=${2:?}; shift 2 ;;
		--cells) cells+=("${2:?}"); shift 2 ;;
		--agents) agents+=("${2:?}"); shift 2 ;;
		--gzip) gzip=(--gzip); shift ;;
		-h | --help) usage ;;
		*) echo "initramfs/build.sh: unknown argument $1" >&2; usage ;;
		esac
	done
	[[ -n $out && -n $guest_bin ]] || usage
	[[ -e $supervisor ]] || die "supervisor $supervisor: missing (make supervisor, or SUPERVISOR=FILE|DIR)"
	# Validated before anything is staged: a bad manifest stops here with
	# its FILE:LINE errors.
	python3 "$HERE/host/bundle.py" check "$supervisor" || die "supervisor $supervisor: not a usable bundle"
	local prog
	for prog in egress-envexec egress-features egress-sink egress-hostprofile egress-tty egress-reset egress-frame; do
		[[ -x $guest_bin/$prog ]] || die "$guest_bin/$prog missing (make initramfs-guest)"
	done
	ensure_busybox

	stage=$(mktemp -d)
	# shellcheck disable=SC2064 # expand now: the path is fixed
	trap "rm -rf '$stage'" EXIT
	chmod 0755 "$stage"
	(cd "$stage" && mkdir -p bin sbin agents cells dev proc sys tmp run etc opt)
	chmod 0755 "$stage"/{bin,sbin,agents,cells,dev,proc,sys,run,etc,opt}
	chmod 1777 "$stage/tmp"
	install -m 0755 /bin/busybox "$stage/bin/busybox"
	install -m 0755 "$HERE/guest/init" "$stage/init"
	# install -d: the directory 0755 whatever the umask (mkdir -p would pass it on).
	install -d -m 0755 "$stage/lib"
	python3 "$HERE/host/bundle.py" stage "$supervisor" "$stage" >/dev/null
	install -m 0755 "$guest_bin/egress-envexec" "$stage/sbin/egress-envexec"
	install -m 0755 "$guest_bin/egress-features" "$stage/sbin/egress-features"
	install -m 0755 "$guest_bin/egress-sink" "$stage/sbin/egress-sink"
	install -m 0755 "$guest_bin/egress-hostprofile" "$stage/sbin/egress-hostprofile"
	install -m 0755 "$guest_bin/egress-tty" "$stage/sbin/egress-tty"
	install -m 0755 "$guest_bin/egress-reset" "$stage/sbin/egress-reset"
	install -m 0755 "$guest_bin/egress-frame" "$stage/sbin/egress-frame"
	# The feature names a cell's requires= may use: contract.FEATURES, the
	# one list (egress-features probes them), read by the guest's init.
	install -d -m 0755 "$stage/etc/egress"
	python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import contract; print(" ".join(contract.FEATURES))' \
		"$HERE/host" >"$stage/etc/egress/features"
	chmod 0644 "$stage/etc/egress/features"
	printf 'root:x:0:0:root:/:/bin/sh\nagent:x:1000:1000:agent:/tmp:/bin/sh\n' >"$stage/etc/passwd"
	printf 'root:x:0:\nagent:x:1000:\n' >"$stage/etc/group"
	chmod 0644 "$stage/etc/passwd" "$stage/etc/group"
	# Busybox's applet links, the cells and the agents: a fork or three per
	# file here cost seconds a run (initramfs/host/stage.py has the rules).
	local -a stage_args=(--busybox "$stage/bin/busybox")
	local d
	for d in "${cells[@]}"; do stage_args+=(--cells "$d"); done
	for d in "${agents[@]}"; do stage_args+=(--agents "$d"); done
	python3 "$HERE/host/stage.py" "$stage" "${stage_args[@]}" || exit 1

	mkdir -p "$(dirname "$out")"
	python3 "$HERE/host/mkcpio.py" --root "$stage" --mtime "${SOURCE_DATE_EPOCH:-$DEFAULT_EPOCH}" \
		--node /dev/console:c:5:1:600 --node /dev/null:c:1:3:666 "${gzip[@]}" "$out"
	echo "initramfs: $out ($(stat -c %s "$out") bytes, $(find "$stage/cells" -name '*.cell' | wc -l) cells," \
		"$(find "$stage/agents" -type f | wc -l) agents, supervisor $supervisor:" \
		"$(grep -E '^BUNDLE_(NAME|DIGEST)=' "$stage/etc/egress/bundle.env" | cut -d= -f2 | tr '\n' ' '))" >&2
}

main "$@"
