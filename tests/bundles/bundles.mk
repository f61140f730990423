# tests/bundles/: supervisor bundles that are not our supervisor as it is
# (issue 13, docs/supervisor-contract.md), and the cells that qualify them.
#   make bundles        -> build/bundles/{refusing,hang-blind,leaky,passthrough}/
#   make bundle-smoke   -> a few cells per bundle on debian-6.1-cloud (VM; part of make test)
BUNDLES_SRC := $(TOP)/tests/bundles
BUNDLES_OUT := $(BUILD)/bundles

.PHONY: bundles bundle-smoke
# Each double is its committed manifest and adapter plus a copy of the
# release supervisor (the mediation they wrap). leaky is the negative
# control, written here: it runs the agent unsupervised and says fail.
bundles: $(SV_RELEASE)
	@rm -rf $(BUNDLES_OUT)/passthrough && mkdir -p $(BUNDLES_OUT)/passthrough && \
		cp -p $(BUNDLES_SRC)/passthrough/bundle.conf $(BUNDLES_SRC)/passthrough/adapter.sh \
			$(BUNDLES_OUT)/passthrough/
	@for b in refusing hang-blind; do \
		rm -rf $(BUNDLES_OUT)/$$b && mkdir -p $(BUNDLES_OUT)/$$b && \
		cp -p $(BUNDLES_SRC)/$$b/bundle.conf $(BUNDLES_SRC)/$$b/adapter.sh $(BUNDLES_OUT)/$$b/ && \
		install -m 0755 $(SV_RELEASE) $(BUNDLES_OUT)/$$b/egress-supervisor; \
	done
	@rm -rf $(BUNDLES_OUT)/leaky && mkdir -p $(BUNDLES_OUT)/leaky
	@printf '%s\n' 'name = leaky' 'entry = adapter.sh' 'file = adapter.sh' 'exit.pass = 0' \
		'exit.fail = 10' 'exit.capability-error = 20' 'report = none' >$(BUNDLES_OUT)/leaky/bundle.conf
	@printf '%s\n' '#!/bin/sh' '# Negative control: no mediation at all, and it says fail.' \
		'while [ $$# -gt 0 ] && [ "$$1" != -- ]; do shift; done' 'shift' '"$$@"' 'exit 10' \
		>$(BUNDLES_OUT)/leaky/adapter.sh
	@chmod 0755 $(BUNDLES_OUT)/leaky/adapter.sh
	@for b in refusing hang-blind leaky passthrough; do python3 $(TOP)/initramfs/host/bundle.py check $(BUNDLES_OUT)/$$b; done

bundle-smoke: bundles matrix-host-deps agents initramfs-guest
	TOP=$(TOP) BUILD=$(BUILD) CACHE=$(CACHE) $(if $(ACCEL),ACCEL='$(ACCEL)') \
		python3 $(BUNDLES_SRC)/smoke.py
