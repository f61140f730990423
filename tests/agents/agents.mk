# tests/agents/: one tiny static musl program per behaviour, used by the
# integration tests on the host and by the scenarios inside the QEMU guests.
#   make agents -> build/agents/<name> for every tests/agents/<name>.c
# Included from tests/tests.mk, after supervisor/supervisor.mk (MUSL_CC,
# MUSL_CFLAGS, musl_prog, LIBSECCOMP).

AGENTS_DIR := $(TOP)/tests/agents
AGENTS_LIB := $(AGENTS_DIR)/agentlib.c
AGENTS_SRCS := $(filter-out $(AGENTS_LIB),$(wildcard $(AGENTS_DIR)/*.c))
AGENTS_BINS := $(patsubst $(AGENTS_DIR)/%.c,$(BUILD)/agents/%,$(AGENTS_SRCS))

.PHONY: agents
agents: $(AGENTS_BINS)

# Order-only on the toolchain: it provides build/kheaders (linux/io_uring.h)
# but rebuilding it must not relink every agent. -pthread for the threaded
# agents; harmless for the others.
$(BUILD)/agents/%: $(AGENTS_DIR)/%.c $(AGENTS_LIB) $(AGENTS_DIR)/agentlib.h | $(LIBSECCOMP)
	$(call musl_prog,$@,-pthread $< $(AGENTS_LIB))
