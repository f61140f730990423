# Host unit tests for the pure supervisor modules (policy, sockaddr, msghdr,
# sockrule, addrspace).
# Included from the top-level Makefile, which sets TOP and BUILD; both default
# sensibly so `make -f tests/unit/unit.mk unit-test` also works on its own.
#
# These build with the host gcc against glibc, not with the release toolchain:
# sanitizers need a dynamic glibc runtime and do not work in a static musl
# binary. Everything is namespaced UNIT_ so this fragment never changes the
# supervisor's own CC/CFLAGS.

UNIT_MK_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
TOP ?= $(abspath $(UNIT_MK_DIR)/../..)
BUILD ?= $(TOP)/build

UNIT_DIR := $(TOP)/tests/unit
UNIT_BUILD := $(BUILD)/unit

UNIT_MODULES := $(TOP)/supervisor/policy.c $(TOP)/supervisor/sockaddr.c $(TOP)/supervisor/msghdr.c \
	$(TOP)/supervisor/sockrule.c $(TOP)/supervisor/addrspace.c
UNIT_TESTS := $(UNIT_DIR)/test_policy.c $(UNIT_DIR)/test_sockaddr.c $(UNIT_DIR)/test_msghdr.c \
	$(UNIT_DIR)/test_fuzz.c $(UNIT_DIR)/test_sockrule.c $(UNIT_DIR)/test_addrspace.c
UNIT_SRCS := $(UNIT_MODULES) $(UNIT_DIR)/harness.c $(UNIT_TESTS)
UNIT_HDRS := $(TOP)/supervisor/policy.h $(TOP)/supervisor/sockaddr.h $(TOP)/supervisor/msghdr.h \
	$(TOP)/supervisor/sockrule.h $(TOP)/supervisor/addrspace.h $(UNIT_DIR)/harness.h

UNIT_CC ?= gcc
# The same warnings the supervisor is held to; -Werror so a warning cannot
# scroll past in a test log.
UNIT_WARN := -std=c11 -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Werror
# ASan catches any read past the copied bytes (the fuzz smoke allocates every
# input at its exact size for this); UBSan catches misaligned and overflowing
# arithmetic. -fno-sanitize-recover turns a UBSan report into a failed test
# rather than a line in the log. Frame pointers keep the reports readable.
UNIT_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# _GNU_SOURCE: the test code uses strsignal and other POSIX/GNU calls; the
# modules themselves build without it.
UNIT_CFLAGS := $(UNIT_WARN) $(UNIT_SAN) -D_GNU_SOURCE -O1 -g -I$(TOP)/supervisor
UNIT_BIN := $(UNIT_BUILD)/unit-tests

.PHONY: unit-test

# abort_on_error: an ASan report kills the forked test, which then fails.
# UNIT_DETECT_LEAKS=0 turns off the per-test leak check for sandboxes where
# LeakSanitizer cannot run (it needs to ptrace-stop the process).
unit-test: $(UNIT_BIN)
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=$${UNIT_DETECT_LEAKS:-1} \
	UBSAN_OPTIONS=print_stacktrace=1 $(UNIT_BIN)

$(UNIT_BIN): $(UNIT_SRCS) $(UNIT_HDRS)
	mkdir -p $(UNIT_BUILD)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $(UNIT_SRCS)
