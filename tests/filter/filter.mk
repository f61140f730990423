# tests/filter/: the filter table tests, no VM and no privileges. The
# supervisor's own filter.c and filtertab.c are linked into filter-export,
# which writes the filter as raw BPF; libseccomp's BPF simulator
# (scmp_bpf_sim, from the source tree the toolchain step already unpacked)
# runs each row of tests/filter/*.tests against it. Then each filter mutant's export must
# fail at least one row: a table that cannot tell them apart checks nothing.
# Last, dispatch-numbers.py ties the receiver's dispatch tables (mediate.c)
# to the kernel's numbers and to every call the rows say is trapped.
#   make filter-table-test
# Included from tests/tests.mk after supervisor/supervisor.mk.

FILTER_DIR := $(TOP)/tests/filter
FILTER_BUILD := $(BUILD)/filter
FILTER_EXPORT := $(FILTER_BUILD)/filter-export
FILTER_SIM := $(FILTER_BUILD)/scmp_bpf_sim
FILTER_TABLES := $(wildcard $(FILTER_DIR)/*.tests)
LIBSECCOMP_TOOLS := $(BUILD)/libseccomp/src/tools
# The filter's rules and the tables of options and ioctls they trap.
FILTER_SRCS := $(SV_DIR)/filter.c $(SV_DIR)/filtertab.c
# The mutants that live in filter.c and filtertab.c: each reopens a class the table covers.
FILTER_MUTANTS := path-options-open unmasked-compares socket-deny-list no-listen-mediation cross-process-open \
	io-uring-enter-open io-uring-open prlimit-open passrights-open clone3-open \
	output-interface-open key-upcall-open module-name-open root-setuid-open snapshot-open \
	setns-open nonblock-clear-open file-flags-by-uid dontroute-option-open \
	cgroup-namespace-open multicast-join-open tun-attach-open tty-inject-open \
	lease-open fchroot-open socketpair-open ldisc-autoload-open \
	fixed-autoload-open key-payload-open rthdr2292-denied x32-pointer-low-word

# Same compiler and flags as the supervisor, so the filter is the same code.
$(FILTER_EXPORT): $(FILTER_DIR)/filter-export.c $(FILTER_SRCS) $(SV_DIR)/filter.h $(SV_DIR)/filtertab.h \
		$(LIBSECCOMP)
	$(call musl_prog,$@,-I$(SV_DIR) $(FILTER_DIR)/filter-export.c $(FILTER_SRCS) $(LIBSECCOMP))
$(FILTER_BUILD)/mutants/%/filter-export: $(FILTER_DIR)/filter-export.c $(FILTER_SRCS) \
		$(SV_DIR)/filter.h $(SV_DIR)/filtertab.h $(LIBSECCOMP)
	$(call musl_prog,$@,$(call mutant_flags,$*) -I$(SV_DIR) $(FILTER_DIR)/filter-export.c \
		$(FILTER_SRCS) $(LIBSECCOMP))
# The simulator is a plain host program (it only reads a file): host gcc.
$(FILTER_SIM): $(LIBSECCOMP)
	@mkdir -p $(@D)
	gcc -O1 -o $@ $(LIBSECCOMP_TOOLS)/scmp_bpf_sim.c $(LIBSECCOMP_TOOLS)/util.c \
		-I$(LIBSECCOMP_TOOLS)/../include -I$(LIBSECCOMP_TOOLS)/..

.PHONY: filter-table-test
filter-table-test: $(FILTER_EXPORT) $(FILTER_SIM) \
		$(foreach m,$(FILTER_MUTANTS),$(FILTER_BUILD)/mutants/$(m)/filter-export)
	@python3 $(FILTER_DIR)/run-filter-tests.py --export $(FILTER_EXPORT) --sim $(FILTER_SIM) \
		$(if $(FILTER_MUTANTS),$(foreach m,$(FILTER_MUTANTS),--mutant $(m)=$(FILTER_BUILD)/mutants/$(m)/filter-export)) \
		$(FILTER_TABLES)
	@python3 $(FILTER_DIR)/dispatch-numbers.py --kheaders $(KHEADERS) \
		--mediate $(SV_DIR)/mediate.c $(FILTER_TABLES)
