#!/bin/bash
# Finding 1 of review h-realprog2: a send the supervisor performs carries its
# credentials, so an SO_PASSCRED receiver in the run sees pid 0 (the
# supervisor is outside the run's pid namespace). Chromium's zygote aborts on
# it in every mode (hr2-run.py --only chromium-nosandbox,chromium-sandbox).
#   tests/review/hr2-cred.sh build/egress-supervisor [N]
set -euo pipefail
sv=$(realpath "$1")
n=${2:-3}
here=$(dirname "$(realpath "$0")")
tmp=$(mktemp -d /tmp/hr2-cred.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cp "$here/hr2-cred.py" "$tmp/"
chmod 1777 "$tmp"
chmod 644 "$tmp/hr2-cred.py"
for mode in sendmsg rights send peercred; do
	for who in unsupervised root uid1000; do
		bad=0
		for _ in $(seq "$n"); do
			case $who in
			unsupervised) cmd=(python3 "$tmp/hr2-cred.py" "$mode") ;;
			root) cmd=("$sv" --writable "$tmp" -- python3 "$tmp/hr2-cred.py" "$mode") ;;
			uid1000) cmd=(setpriv --reuid=1000 --regid=1000 --clear-groups "$sv" --writable "$tmp" -- python3 "$tmp/hr2-cred.py" "$mode") ;;
			esac
			out=$(cd "$tmp" && "${cmd[@]}" 2>&1) || true
			grep -q ': OK' <<<"$out" || bad=$((bad + 1))
		done
		printf '%-9s %-13s mismatch %d of %d   %s\n' "$mode" "$who" "$bad" "$n" "$(grep -m1 'receiver sees' <<<"$out" || true)"
	done
done
