# scenarios/: scenario files, the matrix runner and their tests
# (docs/scenarios.md). Included by the top Makefile, which provides SHELL,
# .SHELLFLAGS, TOP, BUILD and CACHE.
#   make matrix [KERNELS=GLOBS] [SCENARIOS=GLOBS] [JOBS=N] [SUPERVISOR=FILE|DIR]
#               [EXTRA_SCENARIOS=DIR] [RUN_ID=ID] [FLOOR=measure|SECONDS]
#               [ACCEL=auto|kvm|tcg] [ISOLATION=batch|boot] [COSTS=auto|none|DIR]
#                        every kernel x scenario cell -> results/<run-id>/
#   make bench-matrix [KERNELS=ONE] [SCENARIOS=GLOBS] [JOBS=N]
#                        the same cells with ISOLATION=boot, then =batch (sized by
#                        the boot half's times): wall per cell, ratio, boots,
#                        shares; exit 1 when an outcome differs
#   make batch-panic-test  a cell that panics mid-batch costs one reboot
#   make batch-reset-test  the reset repairs what it can and fails every check
#                        on what it cannot (scenarios/tests/reset-plant-*)
#   make batch-reset-mutant-test  the same test against a checker whose every
#                        comparison with the boot passes: it must fail, on each
#                        check that compares with the boot
#   make vm-smoke        a few cells on each Debian kernel (part of make test)
#   make scenario-test   the scenario parser's unit tests and the shipped files
#   make scenario-list   every cell and its expected verdict, booting nothing
#   make matrix-selftest matrix.py's judging and reports, with a fake runner
#   make matrix SHARD=I/N           shard I of N of the selected cells
#   make matrix BASE=results/<run>  compare with that run (text and index.html)
#   make matrix-diff BASE=results/<a> NEW=results/<b>   exit 1 when NEW regressed
#   make matrix-merge RUNS='results/<s1> ...' OUT=DIR [BASE=results/<run>]
#                        N shards -> one summary.json, junit.xml, index.html
#   make report-test     shards, diff, report and their make hooks (fake runner)
#   make report-browser-test  index.html in headless Chromium (fake and real runs)

SC_DIR := $(TOP)/scenarios
SC_TOOLS := $(SC_DIR)/tools

# Cells that catch the original false green (a supervisor whose probe only
# tried itself, which the kernel always allows, and so said pass or fail
# where it could not read the agent at all), on each Debian kernel:
#   undeclared, scope 2, root without CAP_SYS_PTRACE -> capability-error
#   undeclared, scope 1, uid 1000                    -> fail (descendant rule)
#   declared,   scope 2, root                        -> pass (CAP_SYS_PTRACE)
# 5 kernels x 3 cells = 15 boots, about 2-3 minutes on 2 cores under TCG.
VM_SMOKE_KERNELS := debian-5.10 debian-6.1 debian-6.1-cloud debian-6.12 debian-7.3
VM_SMOKE_SCENARIOS := starter-undeclared.ptrace_scope=2,user=nocap \
	starter-undeclared.ptrace_scope=1,user=uid1000 \
	starter-declared.ptrace_scope=2,user=root

# The matrix's host tools: QEMU, static busybox (initramfs and the boot floor),
# Python 3 (the runner). Installed only when missing.
.PHONY: matrix vm-smoke scenario-test scenario-list matrix-host-deps matrix-selftest
matrix-host-deps:
	@$(SV_DIR)/tools/host-deps.sh qemu-system-x86 busybox-static python3

# The variables reach matrix.py through the environment (run-vm.sh matrix
# execs it); only what was given on the command line is set.
SC_MATRIX_ENV = $(if $(KERNELS),KERNELS='$(KERNELS)') \
	$(if $(SCENARIOS),SCENARIOS='$(SCENARIOS)') $(if $(JOBS),JOBS='$(JOBS)') \
	$(if $(filter command line environment,$(origin SUPERVISOR)),SUPERVISOR='$(SUPERVISOR)') \
	$(if $(EXTRA_SCENARIOS),EXTRA_SCENARIOS='$(EXTRA_SCENARIOS)') \
	$(if $(RUN_ID),RUN_ID='$(RUN_ID)') $(if $(FLOOR),FLOOR='$(FLOOR)') \
	$(if $(ACCEL),ACCEL='$(ACCEL)') $(if $(SHARD),SHARD='$(SHARD)') \
	$(if $(BASE),BASE='$(BASE)') $(if $(ISOLATION),ISOLATION='$(ISOLATION)') \
	$(if $(COSTS),COSTS='$(COSTS)') \
	BUILD='$(BUILD)' CACHE='$(CACHE)'

# The README's main job. matrix.py fetches or builds only the kernels KERNELS
# selects (all of them without a filter), announcing each build and its cost
# first, cached outside the clone; `supervisor`, `agents` and
# `initramfs-guest` build what goes into the one initramfs of the run.
matrix: matrix-host-deps supervisor agents initramfs-guest
	$(SC_MATRIX_ENV) $(TOP)/run-vm.sh matrix

# Issue 14's benchmark: one kernel (debian-6.1-cloud unless KERNELS names
# one), every scenario unless SCENARIOS narrows it (>= 64 cells wanted).
.PHONY: bench-matrix batch-panic-test batch-reset-test batch-reset-mutant-test
bench-matrix: matrix-host-deps supervisor agents initramfs-guest
	$(SC_MATRIX_ENV) python3 $(SC_TOOLS)/bench_matrix.py bench

# scenarios/tests/panic-mid-batch between other cells of one boot (JOBS=1).
batch-panic-test: matrix-host-deps supervisor agents initramfs-guest
	$(SC_MATRIX_ENV) python3 $(SC_TOOLS)/bench_matrix.py panic

# scenarios/tests/reset-plant-* in one batch (JOBS=1): every reset check
# still fails on what a cell leaves behind, and repairs what it can.
batch-reset-test: matrix-host-deps supervisor agents initramfs-guest
	$(SC_MATRIX_ENV) python3 $(SC_TOOLS)/bench_matrix.py reset

# The test can fail: egress-reset built with GUEST_MUTANT_RESET_BLIND (every
# comparison with the boot passes) in a copy of the guest's programs, as
# GUEST_BIN; exit 0 only when the test fails naming every check that compares
# with the boot.
SC_RESET_BLIND := $(BUILD)/guest-mutants/reset-blind/bin
batch-reset-mutant-test: matrix-host-deps supervisor agents initramfs-guest
	mkdir -p $(SC_RESET_BLIND)
	cp $(IRFS_GUEST_PROGS) $(SC_RESET_BLIND)/
	$(MUSL_CC) $(MUSL_CFLAGS) -DGUEST_MUTANT_RESET_BLIND $(MUSL_LDFLAGS) \
		-o $(SC_RESET_BLIND)/egress-reset $(IRFS_RESET_SRCS)
	$(SC_MATRIX_ENV) GUEST_BIN='$(SC_RESET_BLIND)' python3 $(SC_TOOLS)/bench_matrix.py reset \
		--expect-blind

# Part of `make test` (suite batch-reset): both reset tests, counted. Until
# stop 44 they ran in no suite, and stop 43's survivors walk had made the
# first fail unseen (review h-docaudit).
.PHONY: batch-reset-suite
batch-reset-suite:
	@p=0; f=0; \
	for t in batch-reset-test batch-reset-mutant-test; do \
		if $(MAKE) --no-print-directory $$t; then echo "ok $$t"; p=$$((p + 1)); \
		else echo "not ok $$t"; f=$$((f + 1)); fi; \
	done; echo "$$p passed, $$f failed"; [ $$f -eq 0 ]

# Part of `make test`: boots QEMU for real, no kernel builds (Debian kernels
# only, fetched and cached).
vm-smoke: matrix-host-deps supervisor agents initramfs-guest
	$(SC_MATRIX_ENV) KERNELS='$(VM_SMOKE_KERNELS)' SCENARIOS='$(VM_SMOKE_SCENARIOS)' \
		RUN_ID="vm-smoke-$$(date -u +%Y%m%dT%H%M%SZ)" $(TOP)/run-vm.sh matrix

# Ends with the runner's `N passed, N failed` line (tests/run-suites.sh reads it).
scenario-test:
	@python3 $(SC_TOOLS)/scenario.py check $(SC_DIR) >/dev/null
	@python3 $(SC_TOOLS)/test_scenario.py

scenario-list:
	@$(SC_MATRIX_ENV) python3 $(SC_TOOLS)/matrix.py --list

# matrix.py against a fake run-vm.sh that lies (ok for a pass that should be a
# capability-error) or writes no result: no VM boots, the initramfs is built.
matrix-selftest: matrix-host-deps supervisor agents initramfs-guest
	@BUILD='$(BUILD)' CACHE='$(CACHE)' python3 $(SC_TOOLS)/test_matrix.py

# Replay a host (docs/hostprofile.md): the profile egress-hostprofile wrote
# there, as guest settings on the kernel that stands for the host's.
#   make repro PROFILE=FILE [SUPERVISOR=PATH] [SCENARIOS=GLOBS] [KERNEL=NAME]
.PHONY: repro
repro: matrix-host-deps supervisor agents initramfs-guest
	$(SC_MATRIX_ENV) $(if $(KERNEL),KERNEL='$(KERNEL)') PROFILE='$(PROFILE)' \
		python3 $(SC_TOOLS)/repro.py

# Falsifiability (scenarios/tools/mutants.py): every known defect, put back one
# at a time (supervisor/mutant.h), must turn at least one cell red; the real
# supervisor must pass the same cells first.
#   make mutants [MUTANTS='name ...'] [JOBS=N]   kill table, `killed N of M`
#   make mutants-repro                            the original false green
.PHONY: mutants mutants-repro
mutants: matrix-host-deps supervisor agents initramfs-guest
	BUILD='$(BUILD)' CACHE='$(CACHE)' python3 $(SC_TOOLS)/mutants.py \
		$(if $(MUTANTS),--mutants '$(MUTANTS)') $(if $(JOBS),--jobs $(JOBS))
mutants-repro: matrix-host-deps supervisor agents initramfs-guest
	BUILD='$(BUILD)' CACHE='$(CACHE)' python3 $(SC_TOOLS)/mutants.py --repro $(if $(JOBS),--jobs $(JOBS))

# Issue 15: run-to-run comparison, shards and their merge, the HTML report
# (scenarios/tools/matrix_diff.py, shards.py, report_html.py; docs/scenarios.md).
.PHONY: matrix-diff matrix-merge report-test report-browser-test workflow-test
# Through make a regression is make's own exit 2 ("Error 1" in its message):
# matrix_diff.py itself exits 1 when something regressed, 2 for a bad run.
matrix-diff:
	@$(SV_DIR)/tools/host-deps.sh python3
	@[[ -n '$(BASE)' && -n '$(NEW)' ]] || { echo "usage: make matrix-diff BASE=results/<a> NEW=results/<b>" >&2; exit 2; }
	@python3 $(SC_TOOLS)/matrix_diff.py '$(BASE)' '$(NEW)'

# Exit 2 (with the reason) for shards that are not of one run, 1 when a merged
# cell is not ok or skipped, 0 otherwise.
matrix-merge:
	@$(SV_DIR)/tools/host-deps.sh python3
	@[[ -n '$(RUNS)' && -n '$(OUT)' ]] || { echo "usage: make matrix-merge RUNS='dir...' OUT=dir [BASE=dir]" >&2; exit 2; }
	@python3 $(SC_TOOLS)/shards.py merge --out '$(OUT)' $(if $(BASE),--base '$(BASE)') $(foreach r,$(RUNS),'$(r)')

# No VM boots: a fake per-cell runner (the initramfs is really built).
report-test: matrix-host-deps supervisor agents initramfs-guest
	@BUILD='$(BUILD)' CACHE='$(CACHE)' python3 $(SC_TOOLS)/test_report.py

# Debian's chromium, driven over the DevTools protocol (scenarios/tools/cdp.py):
# the fake run, hostile values, 1,000 cells and the newest results/vm-smoke-*
# run (make test runs vm-smoke first; skipped with the reason when absent).
# Screenshots: index.png beside each index.html.
report-browser-test: matrix-host-deps supervisor agents initramfs-guest
	@$(SV_DIR)/tools/host-deps.sh chromium
	@BUILD='$(BUILD)' CACHE='$(CACHE)' python3 $(SC_TOOLS)/test_report_browser.py \
		$(if $(RUN),--run '$(RUN)')

# .github/workflows/matrix.yml cannot run here: yamllint, its structure, and
# every command in it a make target that make test runs.
# GitHub's workflow schema is checked by @action-validator/cli from the npm
# registry, installed under build/ (never globally), pinned.
SC_ACTION_VALIDATOR := $(BUILD)/npm/node_modules/.bin/action-validator
workflow-test:
	@$(SV_DIR)/tools/host-deps.sh python3 yamllint python3-yaml
	@# Debian's npm package, unless an npm is there (a nodejs that bundles it
	@# conflicts with Debian's npm).
	@command -v npm >/dev/null || $(SV_DIR)/tools/host-deps.sh npm
	@[[ -x $(SC_ACTION_VALIDATOR) ]] || npm install --prefix $(BUILD)/npm --no-audit --no-fund \
		@action-validator/cli@0.6.0 @action-validator/core@0.6.0 >&2
	@ACTION_VALIDATOR='$(SC_ACTION_VALIDATOR)' python3 $(SC_TOOLS)/test_workflow.py
