# Coverage-guided fuzzing of the pure decoders (libFuzzer, ASan, UBSan).
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS='sockaddr policy']
#        each target for that many seconds; new inputs go to build/fuzz/corpus/
#   make fuzz-smoke   every target for a fixed number of runs from a fixed seed
#                     (the `fuzz-smoke` suite of make test)
#   make fuzz-bin     only build them (build/fuzz/fuzz_<target>)
#   make fuzz-corpus  rewrite the seed corpus in the tree from make-corpus.py
# Included from tests/tests.mk after tests/unit/unit.mk: the modules and the
# flags are the unit tests' own (UNIT_MODULES, UNIT_HDRS, UNIT_CFLAGS), so
# the module the unit tests build is the module fuzzed.

FUZZ_DIR := $(TOP)/tests/fuzz
FUZZ_BUILD := $(BUILD)/fuzz
FUZZ_TARGETS ?= sockaddr msghdr cmsg policy
# The longest input worth trying per target: a sockaddr is at most 128 bytes
# (plus the mode byte); a mmsghdr and 64 iovecs; a control buffer with more
# than SCM_MAX_FD descriptors in two messages (1,072 bytes); a policy of a
# few dozen specs and destinations.
FUZZ_MAX_LEN_sockaddr := 129
FUZZ_MAX_LEN_msghdr := 1089
FUZZ_MAX_LEN_cmsg := 1100
FUZZ_MAX_LEN_policy := 1024
FUZZ_SECONDS ?= 60
# Smoke runs per target: 30 to 60 s for all four on this 2-core machine while
# it is shared (docs/design.md, Fuzzing); runs rather than seconds, so every
# run of make test tries the same inputs.
FUZZ_SMOKE_RUNS ?= 200000

# libFuzzer ships in Debian's compiler-rt package, not in clang itself.
FUZZ_DEPS := clang-14 libclang-rt-14-dev python3
FUZZ_CC ?= clang-14
# The unit tests' flags, sanitizers included (ASan, UBSan without recovery:
# a UBSan report ends the run as a crash, so libFuzzer saves the input). The
# modules are compiled once with coverage instrumentation (fuzzer-no-link)
# and linked into every target.
FUZZ_CFLAGS := $(UNIT_CFLAGS)
FUZZ_OBJS := $(patsubst $(TOP)/supervisor/%.c,$(FUZZ_BUILD)/obj/%.o,$(UNIT_MODULES))
FUZZ_BINS := $(patsubst %,$(FUZZ_BUILD)/fuzz_%,$(FUZZ_TARGETS))
FUZZ_RUN = $(FUZZ_DIR)/run-fuzz.sh
FUZZ_SPECS = $(foreach t,$(FUZZ_TARGETS),$(t):$(FUZZ_MAX_LEN_$(t)))

.PHONY: fuzz fuzz-smoke fuzz-bin fuzz-deps fuzz-corpus
# Keep the instrumented objects: make would delete them as intermediates.
.SECONDARY: $(FUZZ_OBJS)

fuzz-deps:
	@$(SV_DIR)/tools/host-deps.sh $(FUZZ_DEPS)

fuzz-bin: fuzz-deps
	@$(MAKE) --no-print-directory $(FUZZ_BINS)

$(FUZZ_BUILD)/obj/%.o: $(TOP)/supervisor/%.c $(UNIT_HDRS) $(TOP)/supervisor/bytes.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

# The target itself is compiled without coverage instrumentation: its
# property checks are not what the fuzzer should steer by, and they would
# cost time in every run. -fsanitize=fuzzer at the link adds libFuzzer.
$(FUZZ_BUILD)/fuzz_%: $(FUZZ_DIR)/fuzz_%.c $(FUZZ_DIR)/fuzz.h $(FUZZ_OBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@.o $<
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $@.o $(FUZZ_OBJS)

# FUZZ_DETECT_LEAKS=0 as UNIT_DETECT_LEAKS=0 in unit.mk: for sandboxes where
# LeakSanitizer cannot run.
fuzz: fuzz-bin
	FUZZ_DETECT_LEAKS=$${FUZZ_DETECT_LEAKS:-1} $(FUZZ_RUN) long $(FUZZ_SECONDS) \
		$(FUZZ_BUILD) $(FUZZ_DIR)/corpus $(FUZZ_BUILD)/corpus $(FUZZ_SPECS)

fuzz-smoke: fuzz-bin
	FUZZ_DETECT_LEAKS=$${FUZZ_DETECT_LEAKS:-1} $(FUZZ_RUN) smoke $(FUZZ_SMOKE_RUNS) \
		$(FUZZ_BUILD) $(FUZZ_DIR)/corpus $(FUZZ_BUILD)/smoke $(FUZZ_SPECS)

fuzz-corpus: fuzz-deps
	python3 $(FUZZ_DIR)/make-corpus.py $(FUZZ_DIR)/corpus
