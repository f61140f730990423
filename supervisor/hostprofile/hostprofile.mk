# supervisor/hostprofile/: egress-hostprofile, the host profile writer
# (docs/hostprofile.md), a static musl binary shipped next to the supervisor.
#   make hostprofile -> build/egress-hostprofile
# Included by the top Makefile after supervisor/supervisor.mk (MUSL_CC, the
# flags, the kernel headers). It links no libseccomp: raw BPF is enough to
# install a listener, and a CI user's host needs no library.
HP_DIR := $(SV_DIR)/hostprofile
HP_SRCS := $(wildcard $(HP_DIR)/*.c) $(SV_DIR)/errnames.c $(SV_DIR)/fds.c
HP_BIN := $(BUILD)/egress-hostprofile

.PHONY: hostprofile
hostprofile: $(HP_BIN)
$(HP_BIN): $(HP_SRCS) $(wildcard $(HP_DIR)/*.h) $(SV_DIR)/errnames.h $(SV_DIR)/fds.h | sv-toolchain
	$(call musl_prog,$@,$(HP_SRCS))

# Part of make test: the profile on this machine, as root, as uid 1000 and
# under a container-style mask, each probe against the access rules.
.PHONY: hostprofile-test
hostprofile-test: $(HP_BIN)
	@HP_BIN=$(HP_BIN) python3 $(TOP)/tests/hostprofile/test_hostprofile.py

# Part of make test: the profiles captured here (root, uid 1000, container
# mask) replayed in the appliance, every probe answer compared per target.
.PHONY: hostprofile-replay-test
hostprofile-replay-test: $(HP_BIN) matrix-host-deps supervisor agents initramfs-guest
	@HP_BIN=$(HP_BIN) python3 $(TOP)/tests/hostprofile/replay_captured.py
