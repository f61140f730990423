#!/bin/bash
# review-lock.sh: sourced by the reproductions that make host-wide objects
# under fixed names (network namespaces such as ha17pr and review-net.sh's
# five, /tmp/haNN directories). Two runs of one such script at once (two
# helpers, or a helper and CI) destroyed each other's: the second's clean
# start deleted the first's namespaces, the first failed ("Cannot open
# network namespace") and its sink, held by a namespace no name reached any
# more, outlived both (helper h-hygiene). A lock is a file holding the
# holder's pid; checking and taking it are one step under a short flock of
# one file, so nothing the script starts inherits a locked descriptor.
#   review_lock NAME    waits (at most REVIEW_LOCK_WAIT s, default 600) while
#                       a live process other than $$ or its callers holds
#                       NAME, then holds it for $$; returns 1 (saying who
#                       holds it) when the wait ends. A lock needs no
#                       release: it is free once its pid has ended
#   review_unlock NAME  lets it go if $$ holds it (for the EXIT trap); a run
#                       killed without its trap leaves a dead pid, which the
#                       next review_lock takes over
REVIEW_LOCK_DIR=/run/lock

# review_ancestors: $$ and the pids above it (a reproduction run by another,
# ha36-nextrun.sh by ha34-redirect.sh say, shares its caller's locks).
review_ancestors() {
	local p=$$ out=
	while [ -n "$p" ] && [ "$p" -gt 1 ]; do
		out="$out $p"
		p=$(awk '{ print $4 }' "/proc/$p/stat" 2>/dev/null) || p=
	done
	echo "$out "
}

review_lock() {
	local f=$REVIEW_LOCK_DIR/egress-review-$1.pid got waited=0 mine
	mine=$(review_ancestors)
	while :; do
		# shellcheck disable=SC2016 # expanded by the inner shell
		got=$(flock "$REVIEW_LOCK_DIR/egress-review.lock" sh -c '
			pid=$(cat "$1" 2>/dev/null)
			case "$3" in *" $pid "*) [ -n "$pid" ] && { echo ok; exit; } ;; esac
			if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then
				echo "$2" >"$1" && echo ok
			else
				echo "$pid"
			fi' sh "$f" "$$" "$mine") || got=
		[ "$got" = ok ] && return 0
		if [ "$waited" -ge "${REVIEW_LOCK_WAIT:-600}" ]; then
			echo "review_lock: $1 still held by pid ${got:-?} after ${waited} s ($f)" >&2
			return 1
		fi
		[ "$waited" = 0 ] && echo "review_lock: pid ${got:-?} runs $1: waiting" >&2
		sleep 1
		waited=$((waited + 1))
	done
}

review_unlock() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	flock "$REVIEW_LOCK_DIR/egress-review.lock" sh -c \
		'[ "$(cat "$1" 2>/dev/null)" = "$2" ] && rm -f "$1"' sh \
		"$REVIEW_LOCK_DIR/egress-review-$1.pid" "$$" || true
}
