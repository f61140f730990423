# Kernel matrix targets (kernel-configs/README.md). Included by the top Makefile,
# which provides SHELL, TOP, BUILD and CACHE.
KC := $(TOP)/kernel-configs

.PHONY: kernels kernels-debian kernels-custom kernels-lock-refresh kernels-list

# Both halves of the matrix.
kernels: kernels-debian kernels-custom

# Fetch and verify every Debian kernel pinned in debian-kernels.lock.
kernels-debian:
	BUILD=$(BUILD) CACHE=$(CACHE) $(KC)/fetch-kernels.sh

# Pick the newest version of each Debian kernel and rewrite the lock (commit it).
# LOCK_NAMES='debian-7.3 ...' refreshes only those lines.
LOCK_NAMES ?=
kernels-lock-refresh:
	BUILD=$(BUILD) CACHE=$(CACHE) $(KC)/fetch-kernels.sh --refresh-lock $(LOCK_NAMES)

# Build (or reuse from the cache) every custom variant, one build at a time.
kernels-custom:
	for v in $$($(KC)/kernels.sh names | grep -v '^debian-'); do \
		BUILD=$(BUILD) CACHE=$(CACHE) $(KC)/build-kernel.sh "$$v"; \
	done

kernels-list:
	@$(KC)/kernels.sh list

# The suite kconfig (make test): kconfig.py, the check build-kernel.sh runs
# after olddefconfig, on text the tests build.
.PHONY: kconfig-test
kconfig-test:
	@python3 $(KC)/test_kconfig.py 2>&1
