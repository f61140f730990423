# tests/bench/: `make bench` prints connect and untrapped-syscall overhead
# against no supervision and against strace, and the supervisor's peak RSS.
# Not a test: targets are printed as met or not met, never asserted.
# Included from tests/tests.mk after supervisor/supervisor.mk and
# tests/agents/agents.mk (threads-load is the RSS load).

BENCH_DIR := $(TOP)/tests/bench
BENCH_BINS := $(BUILD)/bench/bench-connect $(BUILD)/bench/bench-getppid \
	$(BUILD)/bench/bench-allow-filter $(BUILD)/bench/bench-notify-floor

$(BUILD)/bench/%: $(BENCH_DIR)/%.c $(SV_DIR)/seccomp_compat.h | $(LIBSECCOMP)
	$(call musl_prog,$@,$<)

.PHONY: bench
bench: $(SV_RELEASE) $(BENCH_BINS) $(BUILD)/agents/threads-load
	@$(SV_DIR)/tools/host-deps.sh strace python3
	TOP=$(TOP) BUILD=$(BUILD) python3 $(BENCH_DIR)/bench.py
