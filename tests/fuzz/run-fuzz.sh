#!/usr/bin/env bash
# Runs the libFuzzer targets one after the other and prints a line per target
# (executions, coverage, features, corpus) and, for the smoke, the closing
# `N passed, N failed` line run-suites.sh counts.
#   run-fuzz.sh smoke RUNS    BINDIR SEEDS SCRATCH NAME:MAXLEN...
#   run-fuzz.sh long  SECONDS BINDIR SEEDS SCRATCH NAME:MAXLEN...
# smoke: -runs=RUNS from -seed=1, starting from the tree's seeds only (SCRATCH
#   is emptied first), so every run tries the same inputs; also checks that
#   the tree's seeds are what make-corpus.py writes.
# long: -max_total_time=SECONDS each, a random seed, resuming from what
#   earlier long runs kept in SCRATCH.
# libFuzzer writes new inputs into its first corpus directory only: that is
# always SCRATCH/NAME/corpus, never SEEDS. Crash, leak, timeout and OOM inputs
# go to SCRATCH/NAME/ (-artifact_prefix). FUZZ_DETECT_LEAKS=0 turns off
# LeakSanitizer where it cannot run.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
passed=0
failed=0

# The last status line libFuzzer printed ("#N DONE cov: X ft: Y corp: A/Bb
# ..."), and its final stats; prints "execs cov ft corp new seconds".
summarize() {
	local log=$1 line execs cov ft corp new
	line=$(grep -E '^#[0-9]+' "$log" | grep -E ' cov: ' | tail -n 1 || true)
	execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -n 1)
	new=$(sed -nE 's/^stat::new_units_added: *([0-9]+).*/\1/p' "$log" | tail -n 1)
	cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$line")
	ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$line")
	corp=$(sed -nE 's/.* corp: ([0-9]+\/[0-9]+[a-zA-Z]*).*/\1/p' <<<"$line")
	echo "execs ${execs:-?}, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}, new ${new:-?}"
}

# What went wrong, from the log: the sanitizer's or the property's line, and
# the saved input.
explain() {
	local log=$1 dir=$2
	grep -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|property does not hold|SUMMARY:' \
		"$log" | head -n 5 | sed 's/^/#   /' || true
	find "$dir" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
		-o -name 'oom-*' \) -printf '#   input: %p\n' 2>/dev/null || true
}

run_target() {
	local mode=$1 amount=$2 bindir=$3 seeds=$4 scratch=$5 spec=$6
	local name=${spec%%:*} maxlen=${spec#*:} dir log start rc secs summary
	local -a opts wrap=()
	dir=$scratch/$name
	log=$dir/log
	if [[ $mode == smoke ]]; then
		rm -rf "$dir"
		# -reload=0: libFuzzer re-reads its corpus directory every
		# second by default, which shifts the run count by wall time.
		opts=(-runs="$amount" -seed=1 -reload=0)
		# Comparisons of pointers (heap and stack addresses) feed
		# libFuzzer's mutation tables: without ASLR they are the same on
		# every run, and so are the inputs tried. A seccomp profile may
		# refuse the personality (Docker's does): then say so and run.
		if setarch "$(uname -m)" -R true 2>/dev/null; then
			wrap=(setarch "$(uname -m)" -R)
		else
			echo "# $name: ASLR cannot be turned off here; the inputs tried may differ between runs"
		fi
	else
		opts=(-max_total_time="$amount")
	fi
	mkdir -p "$dir/corpus"
	opts+=(-max_len="$maxlen" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
		-detect_leaks="${FUZZ_DETECT_LEAKS:-1}" -artifact_prefix="$dir/")
	if [[ -f $HERE/dict/$name.dict ]]; then
		opts+=(-dict="$HERE/dict/$name.dict")
	fi
	start=$SECONDS
	set +e
	# libFuzzer's sanitizers read these; halt_on_error keeps a UBSan report
	# fatal even if a flag above is lost.
	ASAN_OPTIONS=abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"${wrap[@]}" "$bindir/fuzz_$name" "${opts[@]}" "$dir/corpus" "$seeds/$name" >"$log" 2>&1
	rc=$?
	set -e
	secs=$((SECONDS - start))
	summary=$(summarize "$log")
	if [[ $rc -eq 0 ]]; then
		echo "ok fuzz_${name}_finds_nothing ($summary, ${secs} s)"
		passed=$((passed + 1))
	else
		echo "not ok fuzz_${name}_finds_nothing (exit $rc; $summary, ${secs} s; log $log)"
		explain "$log" "$dir"
		failed=$((failed + 1))
	fi
}

check_seeds() {
	local seeds=$1 out
	if out=$(python3 "$HERE/make-corpus.py" --check "$seeds" 2>&1); then
		echo "ok fuzz_seed_corpus_is_what_make_corpus_writes ($(find "$seeds" -type f | wc -l) files)"
		passed=$((passed + 1))
	else
		echo "not ok fuzz_seed_corpus_is_what_make_corpus_writes (run make fuzz-corpus)"
		head -n 10 <<<"$out" | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
}

main() {
	if [[ $# -lt 6 || ($1 != smoke && $1 != long) ]]; then
		echo "usage: run-fuzz.sh smoke|long RUNS|SECONDS BINDIR SEEDS SCRATCH NAME:MAXLEN..." >&2
		exit 2
	fi
	local mode=$1 amount=$2 bindir=$3 seeds=$4 scratch=$5 spec
	shift 5
	if [[ $mode == smoke ]]; then
		check_seeds "$seeds"
	fi
	for spec in "$@"; do
		run_target "$mode" "$amount" "$bindir" "$seeds" "$scratch" "$spec"
	done
	echo "$passed passed, $failed failed"
	[[ $failed -eq 0 ]]
}

main "$@"
