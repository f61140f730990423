#!/usr/bin/env bash
# Runs each named test suite (a make target), reads the suite's own closing
# `N passed, N failed` line, and prints the totals last. A suite that exits
# non-zero without such a line counts as one failure, so nothing is lost.
#   TOP=DIR run-suites.sh SUITE...
set -euo pipefail
# A root agent refuses a caller's stdin it could write the host's files
# through (supervisor/rootfs.h): whatever .ci/run or a terminal left on 0,
# every suite reads /dev/null.
exec </dev/null

declare -A TARGET=(
	[format]=check-format
	[shellcheck]=shellcheck
	[pyflakes]=pyflakes
	[unit]=unit-test
	[kconfig]=kconfig-test
	[seam-absent]=release-has-no-seam
	[mutant-seam]=mutant-seam-test
	[integration]=integration-test
	[scenario]=scenario-test
	[matrix-selftest]=matrix-selftest
	[initramfs-repro]=initramfs-repro-test
	[initramfs-test]=initramfs-test
	[vm-smoke]=vm-smoke
	[batch-reset]=batch-reset-suite
	[mutants-repro]=mutants-repro
	[hostprofile]=hostprofile-test
	[hostprofile-replay]=hostprofile-replay-test
	[fuzz-smoke]=fuzz-smoke
	[filter-table]=filter-table-test
	[report]=report-test
	[report-browser]=report-browser-test
	[workflow]=workflow-test
	[bundle-smoke]=bundle-smoke
)

timings=()
total_pass=0
total_fail=0
total_skip=0
failed_suites=()

run_suite() {
	local name=$1 target=${TARGET[$1]:-} log rc line p f s start
	if [[ -z $target ]]; then
		echo "run-suites: unknown suite '$name' (known: ${!TARGET[*]})" >&2
		total_fail=$((total_fail + 1))
		failed_suites+=("$name")
		return
	fi
	log=$(mktemp)
	echo "=== suite $name (make $target)"
	start=$SECONDS
	set +e
	make -C "$TOP" --no-print-directory "$target" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	set -e
	timings+=("$name $((SECONDS - start))s")
	line=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1 || true)
	rm -f "$log"
	if [[ -n $line ]]; then
		p=$(sed -E 's/^([A-Za-z-]+: )?([0-9]+) passed.*/\2/' <<<"$line")
		f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
		s=$(sed -nE 's/.* ([0-9]+) skipped.*/\1/p' <<<"$line")
		total_pass=$((total_pass + p))
		total_fail=$((total_fail + f))
		total_skip=$((total_skip + ${s:-0}))
		if [[ $rc -ne 0 && $f -eq 0 ]]; then
			total_fail=$((total_fail + 1))
		fi
	elif [[ $rc -ne 0 ]]; then
		total_fail=$((total_fail + 1))
	else
		echo "run-suites: suite $name printed no count line" >&2
		total_fail=$((total_fail + 1))
	fi
	if [[ $rc -ne 0 ]]; then
		failed_suites+=("$name")
	fi
}

main() {
	: "${TOP:?TOP must name the repository}"
	local s run_start=$SECONDS
	for s in "$@"; do
		run_suite "$s"
	done
	# Wall per suite: where a slow run (a fresh machine's installs and kernel
	# downloads, a loaded host) spent its time.
	echo "suite wall: ${timings[*]} (total $((SECONDS - run_start))s, load $(cut -d' ' -f1-3 /proc/loadavg))"
	if [[ ${#failed_suites[@]} -gt 0 ]]; then
		echo "failed suites: ${failed_suites[*]}"
	fi
	if [[ $total_skip -gt 0 ]]; then
		echo "$total_pass passed, $total_fail failed, $total_skip skipped"
	else
		echo "$total_pass passed, $total_fail failed"
	fi
	[[ $total_fail -eq 0 ]]
}

main "$@"
