# initramfs/: the guest image (docs/guest.md).
#   make initramfs-guest      -> build/initramfs/bin/egress-{envexec,features,sink,tty,reset,frame}
#   make initramfs            -> build/initramfs/initramfs.cpio
#       INITRAMFS_CELLS=DIR   cell files to include (repeat with spaces)
#       INITRAMFS_AGENTS=DIR  static agents to include (default build/agents if present)
#       SUPERVISOR=FILE|DIR  another supervisor: a file or a bundle directory (default
#                             build/egress-supervisor; docs/supervisor-contract.md)
#   make initramfs-repro-test -> two builds, byte-identical, or fail (and the
#                                modules archive's host tests)
#   make initramfs-test       -> outcome decisions from synthetic guest output, and the
#                                launcher's accelerator choice against fake QEMUs (no VM)
#   make initramfs-modules-test [MODULES_KERNELS='debian-6.1-cloud debian-5.10']
#                             -> boots each kernel with and without its modules
#                                archive; sctp must autoload with it (VM)

IRFS_DIR := $(TOP)/initramfs
IRFS_OUT := $(BUILD)/initramfs
IRFS_GUEST_BIN := $(IRFS_OUT)/bin
IRFS_GUEST_PROGS := $(IRFS_GUEST_BIN)/egress-envexec $(IRFS_GUEST_BIN)/egress-features \
	$(IRFS_GUEST_BIN)/egress-sink $(IRFS_GUEST_BIN)/egress-hostprofile $(IRFS_GUEST_BIN)/egress-tty \
	$(IRFS_GUEST_BIN)/egress-reset $(IRFS_GUEST_BIN)/egress-frame
INITRAMFS := $(IRFS_OUT)/initramfs.cpio
SUPERVISOR ?= $(SV_RELEASE)
INITRAMFS_CELLS ?=
INITRAMFS_AGENTS ?= $(wildcard $(BUILD)/agents)

# Build the default supervisor when it is the one asked for; a SUPERVISOR=PATH
# from elsewhere is taken as it is.
IRFS_SV_DEP := $(filter $(SV_RELEASE),$(SUPERVISOR))

IRFS_ARGS = --out $(INITRAMFS) --guest-bin $(IRFS_GUEST_BIN) --supervisor $(SUPERVISOR) \
	$(foreach d,$(INITRAMFS_CELLS),--cells $(d)) $(foreach d,$(INITRAMFS_AGENTS),--agents $(d))

.PHONY: initramfs initramfs-guest initramfs-repro-test initramfs-test initramfs-modules-test

# envexec links libseccomp only for syscall name -> number resolution.
ENVEXEC_SRCS := $(IRFS_DIR)/guest/envexec.c $(IRFS_DIR)/guest/cellfile.c $(IRFS_DIR)/guest/hide.c $(IRFS_DIR)/guest/caller.c \
	$(IRFS_DIR)/guest/names.c $(SV_DIR)/errnames.c
ENVEXEC_DEPS := $(ENVEXEC_SRCS) $(IRFS_DIR)/guest/cellfile.h $(IRFS_DIR)/guest/hide.h $(IRFS_DIR)/guest/caller.h \
	$(IRFS_DIR)/guest/names.h $(SV_DIR)/errnames.h
$(IRFS_GUEST_BIN)/egress-envexec: $(ENVEXEC_DEPS) | sv-toolchain
	$(call musl_prog,$@,$(ENVEXEC_SRCS) $(LIBSECCOMP))
$(IRFS_GUEST_BIN)/egress-features: $(IRFS_DIR)/guest/features.c | sv-toolchain
	$(call musl_prog,$@,$<)
# The host profile writer, as shipped (make repro compares the guest's
# profile with the host's: docs/hostprofile.md).
$(IRFS_GUEST_BIN)/egress-hostprofile: $(HP_BIN)
	install -D -m 0755 $< $@
# The caller's terminal (stdio=N pty): holds the master, reads what was typed.
$(IRFS_GUEST_BIN)/egress-tty: $(IRFS_DIR)/guest/tty.c | sv-toolchain
	$(call musl_prog,$@,$<)
# The sink: the ground truth of what arrived (issue 4's oracle reads its log).
$(IRFS_GUEST_BIN)/egress-sink: $(IRFS_DIR)/guest/sink.c | sv-toolchain
	$(call musl_prog,$@,$<)

# The reset between the cells of a batch and its proof (docs/guest.md
# "Batches"): one process where reset.sh forked dozens.
IRFS_RESET_SRCS := $(IRFS_DIR)/guest/reset.c $(IRFS_DIR)/guest/reset_util.c \
	$(IRFS_DIR)/guest/reset_net.c $(IRFS_DIR)/guest/reset_snap.c $(IRFS_DIR)/guest/reset_kern.c
$(IRFS_GUEST_BIN)/egress-reset: $(IRFS_RESET_SRCS) $(IRFS_DIR)/guest/reset.h | sv-toolchain
	$(call musl_prog,$@,$(IRFS_RESET_SRCS))

# A cell's result frame, every section in one process (docs/guest.md).
$(IRFS_GUEST_BIN)/egress-frame: $(IRFS_DIR)/guest/frame.c | sv-toolchain
	$(call musl_prog,$@,$<)

initramfs-guest: $(IRFS_GUEST_PROGS)

# Guest mutants (scenarios/tools/mutants.py): the guest's programs with one
# known defect of the guest put back, in build/guest-mutants/NAME/bin (the
# matrix's GUEST_BIN). Only envexec has any today; the rest are copies.
# (The sink's GUEST_MUTANT_SINK_NO_MARKER, GUEST_MUTANT_SINK_IGNORES_LOST and
# GUEST_MUTANT_SINK_UDP_REUSEADDR are built and killed by the host tests
# initramfs/tests/test_sink_stop.py, test_sink_lost.py and
# test_sink_steal.py, not here: no cell of the matrix kills them.)
#   make guest-mutant-bin GUEST_MUTANT=NAME
GUEST_MUTANTS := shared-dev
guest_mutant_macro = GUEST_MUTANT_$(shell echo '$(1)' | tr 'a-z-' 'A-Z_')
.PHONY: guest-mutant-bin
guest-mutant-bin: $(BUILD)/guest-mutants/$(GUEST_MUTANT)/bin/egress-envexec
$(BUILD)/guest-mutants/%/bin/egress-envexec: $(ENVEXEC_DEPS) $(IRFS_GUEST_PROGS) | sv-toolchain
	@case " $(GUEST_MUTANTS) " in *" $* "*) ;; \
		*) echo "unknown guest mutant '$*' (known: $(GUEST_MUTANTS))" >&2; exit 2;; esac
	@mkdir -p $(@D)
	cp $(filter-out %/egress-envexec,$(IRFS_GUEST_PROGS)) $(@D)/
	$(MUSL_CC) $(MUSL_CFLAGS) -D$(call guest_mutant_macro,$*) $(MUSL_LDFLAGS) -o $@ \
		$(ENVEXEC_SRCS) $(LIBSECCOMP)

# Always re-run: build.sh is cheap and the inputs (cell and agent dirs) are
# directories make cannot track.
initramfs: $(IRFS_GUEST_PROGS) $(IRFS_SV_DEP)
	$(IRFS_DIR)/build.sh $(IRFS_ARGS)

# Two builds from the same inputs, the second with every input's mtime moved
# and another umask: the bytes must not differ.
# The modules archive (initramfs/modules.sh) first, on a synthetic tree: a
# failure there stops before the image test and its count line is the last.
# modules-test.sh unpacks the archives with cpio(1), which a fresh Debian 12
# machine does not have (only the kernel build installed it before).
initramfs-repro-test: $(IRFS_GUEST_PROGS) $(IRFS_SV_DEP)
	@$(SV_DIR)/tools/host-deps.sh cpio
	$(IRFS_DIR)/tests/modules-test.sh
	$(IRFS_DIR)/tests/repro-test.sh $(IRFS_ARGS)

initramfs-test: $(SV_RELEASE)
	python3 $(IRFS_DIR)/tests/run.py

# The modules archive in a guest (docs/guest.md, "Modules"). The probe is
# test-only: it is never part of the matrix's initramfs.
MODULES_KERNELS ?= debian-6.1-cloud debian-5.10
IRFS_PROBE := $(IRFS_OUT)/test/modules-probe
$(IRFS_PROBE): $(IRFS_DIR)/tests/modules-probe.c | sv-toolchain
	$(call musl_prog,$@,$<)

initramfs-modules-test: $(IRFS_GUEST_PROGS) $(IRFS_SV_DEP) $(IRFS_PROBE) agents
	$(IRFS_DIR)/tests/modules-boot.sh --probe $(IRFS_PROBE) --guest-bin $(IRFS_GUEST_BIN) \
		--agents $(BUILD)/agents --out $(IRFS_OUT)/modules-test $(MODULES_KERNELS)
