# egress-supervisor and its kernel-matrix appliance.
# Every target installs what it needs on a fresh Debian 12 machine (as root).
# The README's two commands: `make matrix` (main job) and `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := all

TOP := $(abspath .)
BUILD := $(TOP)/build
# Downloads and kernel builds live outside the clone so CI runs and later
# sessions on the same machine reuse them.
CACHE ?= $(or $(EGRESS_CACHE),/var/cache/egress-appliance)
export CACHE

.PHONY: all test matrix bench mutants check-format format clean deps

all: supervisor

include supervisor/supervisor.mk
include supervisor/hostprofile/hostprofile.mk
include tests/tests.mk
include kernel-configs/kernels.mk
-include initramfs/initramfs.mk
-include scenarios/scenarios.mk

clean:
	rm -rf build results
