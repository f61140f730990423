# tests/agents/: one tiny static musl program per behaviour, used by the
# integration tests on the host and by the scenarios inside the QEMU guests.
#   make agents -> build/agents/<name> for every tests/agents/<name>.c
# Included from tests/tests.mk, after supervisor/supervisor.mk (MUSL_CC,
# MUSL_CFLAGS, musl_prog, LIBSECCOMP).

AGENTS_DIR := $(TOP)/tests/agents
AGENTS_LIB := $(AGENTS_DIR)/agentlib.c
# The errnos' names are the supervisor's: logs and reports spell them alike.
AGENTS_ERRNAMES := $(SV_DIR)/errnames.c
AGENTS_SRCS := $(filter-out $(AGENTS_LIB),$(wildcard $(AGENTS_DIR)/*.c))
AGENTS_BINS := $(patsubst $(AGENTS_DIR)/%.c,$(BUILD)/agents/%,$(AGENTS_SRCS))
# Copies nobody but root can read (mode 0111, execute only): exec of a binary
# the caller cannot read makes the process non-dumpable (the kernel's
# would_dump), which takes ptrace-level access away from a supervisor without
# CAP_SYS_PTRACE. The initramfs builder keeps the mode.
AGENTS_NOREAD := $(BUILD)/agents/connect-tcp-noread

.PHONY: agents
agents: $(AGENTS_BINS) $(AGENTS_NOREAD)

$(BUILD)/agents/%-noread: $(BUILD)/agents/%
	install -m 0111 $< $@

# Order-only on the toolchain: it provides build/kheaders (linux/io_uring.h)
# but rebuilding it must not relink every agent. -pthread for the threaded
# agents; harmless for the others. AGENTLIB_WRAP_MAIN: agentlib's main logs
# the agent's exit status (agentlib.h).
$(BUILD)/agents/%: $(AGENTS_DIR)/%.c $(AGENTS_LIB) $(AGENTS_DIR)/agentlib.h $(AGENTS_ERRNAMES) \
		$(SV_DIR)/errnames.h | $(LIBSECCOMP)
	$(call musl_prog,$@,-pthread -DAGENTLIB_WRAP_MAIN $< $(AGENTS_LIB) $(AGENTS_ERRNAMES))
