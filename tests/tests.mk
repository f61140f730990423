# tests/: every suite `make test` runs (the README's test command).
#   make test                  -> tests/run-suites.sh: each suite, then the total
#   make test SUITES="unit integration"  -> only those suites
include tests/unit/unit.mk
include tests/fuzz/fuzz.mk
include tests/agents/agents.mk
include tests/integration/integration.mk
-include tests/bench/bench.mk
include tests/filter/filter.mk
include tests/bundles/bundles.mk

SUITES ?= format shellcheck pyflakes unit kconfig fuzz-smoke filter-table seam-absent mutant-seam integration hostprofile hostprofile-replay scenario matrix-selftest initramfs-test initramfs-repro vm-smoke batch-reset bundle-smoke mutants-repro report report-browser workflow

.PHONY: test release-has-no-seam shellcheck pyflakes
test:
	@$(SV_DIR)/tools/host-deps.sh python3 shellcheck
	TOP=$(TOP) $(TOP)/tests/run-suites.sh $(SUITES)

# The release binary contains no fault seam: not its code, not its variable.
release-has-no-seam: $(SV_RELEASE)
	@if grep -q EGRESS_SV_FAULT $(SV_RELEASE); then \
		echo "FAIL release_binary_has_no_fault_seam: EGRESS_SV_FAULT found in $(SV_RELEASE)"; \
		echo "0 passed, 1 failed"; exit 1; \
	else echo "ok release_binary_has_no_fault_seam"; echo "1 passed, 0 failed"; fi

SHELL_SCRIPTS = $(shell git -C $(TOP) ls-files '*.sh' 'run-vm.sh' '.ci/run' | sed 's|^|$(TOP)/|')
shellcheck:
	@$(SV_DIR)/tools/host-deps.sh shellcheck
	@shellcheck -x $(SHELL_SCRIPTS) && shellcheck -s sh $(TOP)/initramfs/guest/init && \
		echo "ok shellcheck_clean ($(words $(SHELL_SCRIPTS)) scripts and initramfs/guest/init as POSIX sh)" && \
		echo "1 passed, 0 failed"

# Every Python file through pyflakes (flake8's F codes only: names used but
# never defined, imports and locals never used, redefinitions), which finds
# what a run reaches late or never; style is left to review. Debian's flake8
# runs on Debian's python3, whatever python3 the PATH finds.
PY_FILES = $(shell git -C $(TOP) ls-files '*.py' | sed 's|^|$(TOP)/|')
pyflakes:
	@$(SV_DIR)/tools/host-deps.sh flake8
	@flake8 --select=F $(PY_FILES) && \
		echo "ok pyflakes_clean ($(words $(PY_FILES)) Python files)" && \
		echo "1 passed, 0 failed"

# The mutant switches exist, each builds (a switch only make mutants uses is
# compiled nowhere else: foreign-abi-silent stopped building unseen), and
# none of their code reaches the release build.
.PHONY: mutant-seam-test
# The switches are built by a sub-make with a job per core (as the integration
# suite's binaries are): about 200 links, nothing else running in make test then.
mutant-seam-test: $(SV_RELEASE)
	@$(MAKE) --no-print-directory -j$(IT_JOBS) \
		$(foreach m,$(SV_MUTANTS),$(BUILD)/mutants/$(m)/egress-supervisor)
	@echo "ok every_mutant_switch_builds ($(words $(SV_MUTANTS)) switches)"
	@$(SV_DIR)/tools/host-deps.sh unifdef
	@$(TOP)/tests/mutant-seam.sh $(TOP) $(BUILD) $(MUSL_CC) "$(MUSL_CFLAGS)" "$(MUSL_LDFLAGS)" \
		$(LIBSECCOMP) $(SV_RELEASE) $(SV_MUTANTS)
