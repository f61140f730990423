# supervisor/: the static musl egress-supervisor.
#   make supervisor          -> build/egress-supervisor (release: no fault seam)
#   make FAULTS=1 supervisor -> build/faults/egress-supervisor (test build)
#   make supervisor-faults   -> the same test build, whatever FAULTS says

SV_DIR := $(TOP)/supervisor
SYSROOT := $(BUILD)/sysroot
KHEADERS := $(BUILD)/kheaders
LIBSECCOMP := $(SYSROOT)/lib/libseccomp.a
MUSL_CC := musl-gcc

# Warnings are errors: the house flags. -D_GNU_SOURCE for clone/pidfd/SCM
# definitions in musl's headers.
WARN_CFLAGS := -std=c11 -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Werror
# -isystem: musl-gcc does not search /usr/include; give it the kernel UAPI
# headers and the musl-built libseccomp only.
MUSL_CFLAGS := $(WARN_CFLAGS) -D_GNU_SOURCE -O2 -g0 -isystem $(KHEADERS) -isystem $(SYSROOT)/include
# -static: the binary must run inside a bare initramfs and on any host.
MUSL_LDFLAGS := -static

SV_SRCS := $(filter-out $(SV_DIR)/fault.c,$(wildcard $(SV_DIR)/*.c))
SV_HDRS := $(wildcard $(SV_DIR)/*.h)

SV_RELEASE := $(BUILD)/egress-supervisor
SV_FAULTS_BIN := $(BUILD)/faults/egress-supervisor

ifeq ($(FAULTS),1)
supervisor: $(SV_FAULTS_BIN)
else
supervisor: $(SV_RELEASE)
endif
supervisor-faults: $(SV_FAULTS_BIN)
.PHONY: supervisor supervisor-faults sv-toolchain

# The toolchain stamp: musl-tools, kernel headers and the musl libseccomp.
$(LIBSECCOMP):
	$(SV_DIR)/tools/build-libseccomp.sh $(BUILD)
sv-toolchain: $(LIBSECCOMP)

$(SV_RELEASE): $(SV_SRCS) $(SV_HDRS) $(LIBSECCOMP)
	@mkdir -p $(@D)
	$(MUSL_CC) $(MUSL_CFLAGS) $(MUSL_LDFLAGS) -o $@ $(SV_SRCS) $(LIBSECCOMP)

# The test build adds the fault seam (fault.c and -DSV_FAULTS); the release
# build never compiles fault.c at all.
$(SV_FAULTS_BIN): $(SV_SRCS) $(SV_HDRS) $(SV_DIR)/fault.c $(LIBSECCOMP)
	@mkdir -p $(@D)
	$(MUSL_CC) $(MUSL_CFLAGS) -DSV_FAULTS $(MUSL_LDFLAGS) -o $@ $(SV_SRCS) $(SV_DIR)/fault.c $(LIBSECCOMP)

# Static musl programs for tests and the guest (agents, guest helpers) use the
# same compiler and flags: $(call musl_prog,OUT,SRCS)
define musl_prog
@mkdir -p $(dir $(1))
$(MUSL_CC) $(MUSL_CFLAGS) $(MUSL_LDFLAGS) -o $(1) $(2)
endef

FORMAT_FILES = $(shell git -C $(TOP) ls-files '*.c' '*.h')
# Also the style's "no cycles between modules" (tools/include-cycles.py).
check-format:
	@$(SV_DIR)/tools/host-deps.sh clang-format
	@cd $(TOP) && pass=0; fail=0; \
	if clang-format --dry-run --Werror $(FORMAT_FILES); then \
		echo "ok clang_format_clean ($(words $(FORMAT_FILES)) files)"; pass=$$((pass + 1)); \
	else echo "not ok clang_format_clean: run make format"; fail=$$((fail + 1)); fi; \
	if python3 $(SV_DIR)/tools/include-cycles.py $(SV_DIR); then pass=$$((pass + 1)); \
	else fail=$$((fail + 1)); fi; \
	echo "$$pass passed, $$fail failed"; [ $$fail -eq 0 ]
format:
	@cd $(TOP) && clang-format -i $(FORMAT_FILES)

# Mutants (issue: falsifiability): one binary per known defect, each built
# with exactly one -DSV_MUTANT_<NAME> (supervisor/mutant.h lists them).
#   make mutant-bin MUTANT=silent-eperm -> build/mutants/silent-eperm/egress-supervisor
SV_MUTANTS := silent-eperm enosys-probe self-probe sendmsg-forward no-id-valid \
	continue-connect foreign-abi-silent io-uring-open no-subreaper failure-as-denial \
	single-threaded report-on-crash report-fd-leak leader-table denial-as-abandoned \
	unmasked-compares socket-deny-list no-listen-mediation cross-process-open \
	io-uring-enter-open no-close-range checkpoint-restore-kept \
	old-descendant-kill root-agent-open no-landlock shared-session stdio-socket-open \
	proc-by-path broken-promise listen-name-unchecked reaper-holds-fds \
	leader-ebadf-trusted netlink-deputy id-valid-eintr path-options-open \
	rights-mech-unlabelled stdio-unix-queue-open no-signal-scope prlimit-open passrights-open passrights-any-value agent-status-at-end interrupt-before-reap unspecified-probe-denied timing-cmsg-denied \
	cgroup-writable no-event-floor clone3-open no-cgroup-proof efault-trusted \
	maps-decide named-fifo-silent mmsg-fault-whole \
	control-cap-invalid bad-control-first rights-any-family mmsg-stop-at-bad-control \
	mmsg-late-invalid mmsg-len-unsent no-userns userns-keeps-ptrace \
	fallback-keeps-admin userns-untried trial-exit-code trial-holds-slot \
	sigchld-inherited mmsg-denial-undone unspecified-as-written \
	stdio-state-unchecked stdio-route-kept stdio-priority-lost \
	output-interface-open pktinfo-ifindex-kept key-upcall-open \
	device-unchecked module-name-open handover-shared-only device-first \
	port-failure-quiet fastopen-in-syn disconnect-unlocked handle-open \
	root-files-writable host-dev writable-dev mknod-kept ipc-retry-blind \
	root-stdio-open root-stack-covered cwd-unnamed-kept stream-connect-portless \
	root-chroot-kept root-file-caps-kept root-setuid-open unix-peer-open \
	unix-abstract-open unix-path-reresolved unix-diag-own-netns \
	holder-unpinned root-setid-writable snapshot-open \
	setid-walk-narrow setns-open setns-owner-past-ours \
	setns-table-unchecked unix-abstract-waits \
	run-ns-by-reaper setns-threads-late unix-abstract-unpinned \
	nonblock-clear-open unix-closed-is-peer file-flags-by-uid pinned-unchecked \
	dump-trusted bind-probe unix-long-name-looked-up \
	cached-holder-unproven thread-gone-fails pins-after-answer \
	setns-checked-after-scan proof-unwaited run-named-late \
	dontroute-option-open dontroute-flag-open stdio-dontroute-kept report-fd-first \
	report-path-resolved cgroup-namespace-open kill-by-pid report-link-followed \
	declared-link-followed receivers-capped-counted nofile-kept host-caps-kept pty-master-kept lease-open cgroup-refused-any-uid \
	held-unmarked report-dir-moved-trusted multicast-join-open tun-attach-open \
	stdio-chardev-open tty-inject-open hung-up-terminal-refused withdrawn-uncounted \
	sentinels-absent sentinel-copies-counted sort-probe-denied fchroot-open cwd-name-trusted cwd-depth-trusted \
	cwd-walk-by-name cwd-escape-errno-trusted scoped-eagain-answered procfs-errno-answered \
	chroot-prefix-kept performed-creds-own caps-stuck-ignored \
	protected-link-refused walk-complete-trusted creds-appended sendto-creds-own \
	creds-eperm-retry root-overmount-ignored mount-change-trusted creds-read-error-ours \
	socketpair-open ldisc-autoload-open lookup-emfile-walked overmount-asked-once \
	fixed-autoload-open creds-raise-failed-ours key-payload-open walk-dir-change-ignored \
	foreign-root-trusted inotify-refusal-denied gone-walk-denied listener-errno-mapped \
	rthdr2292-denied closed-sockets-silent fallback-any-errno map-taken-trusted \
	fsize-export-trusted cwd-refusal-hosts own-userns-hosts userns-absent-ours \
	userns-absent-unproven sort-probe-performed x32-pointer-low-word ns-dir-through-mounts \
	localnet-loopback-trusted mknod-only localnet-first-byte localnet-dot-skipped \
	proc-hardware-writable misc-minor-any reaper-shares-session
mutant_macro = SV_MUTANT_$(shell echo '$(1)' | tr 'a-z-' 'A-Z_')
# MUTANT may name several, joined by '+' (silent-eperm+enosys-probe): the
# original report needed both defects at once.
mutant_flags = $(foreach m,$(subst +, ,$(1)),-D$(call mutant_macro,$(m)))
# Stops naming the known mutants when a '+'-joined name is not one of them.
check_mutants = for m in $(subst +, ,$(1)); do case " $(SV_MUTANTS) " in *" $$m "*) ;; \
	*) echo "unknown mutant '$$m' (known: $(SV_MUTANTS))" >&2; exit 2;; esac; done

# Each source compiled on its own, once per build flavour: a mutant then
# compiles only the sources that hold its switch and links the rest as
# they are (gcc compiles the release build's sources one by one too, so the
# binary is the same). Some seventy mutants each compiled whole were half
# of `make test`'s integration suite.
SV_OBJ_DIR := $(BUILD)/obj
SV_OBJS := $(patsubst $(SV_DIR)/%.c,$(SV_OBJ_DIR)/release/%.o,$(SV_SRCS))
SV_FAULTS_OBJS := $(patsubst $(SV_DIR)/%.c,$(SV_OBJ_DIR)/faults/%.o,$(SV_SRCS) $(SV_DIR)/fault.c)
# Kept between mutants (make would delete them as intermediates).
.SECONDARY: $(SV_OBJS) $(SV_FAULTS_OBJS)
$(SV_OBJ_DIR)/release/%.o: $(SV_DIR)/%.c $(SV_HDRS) $(LIBSECCOMP)
	@mkdir -p $(@D)
	$(MUSL_CC) $(MUSL_CFLAGS) -c -o $@ $<
$(SV_OBJ_DIR)/faults/%.o: $(SV_DIR)/%.c $(SV_HDRS) $(LIBSECCOMP)
	@mkdir -p $(@D)
	$(MUSL_CC) $(MUSL_CFLAGS) -DSV_FAULTS -c -o $@ $<
# $(call mutant_link,NAME,OBJS,EXTRA_CFLAGS): the sources that name one of
# NAME's switches, compiled with them into $(@D)/obj; every other object as
# built. mutant.h only documents the switches (nothing includes it); a
# switch in any other header would need every source: refused.
define mutant_link
@$(call check_mutants,$(1))
@mkdir -p $(@D)/obj
@set -e; macros='$(foreach m,$(subst +, ,$(1)),$(call mutant_macro,$(m)))'; \
	for m in $$macros; do \
		if grep -lw "$$m" $(filter-out $(SV_DIR)/mutant.h,$(SV_HDRS)) >/dev/null; then \
			echo "mutant $(1): $$m is in a header" >&2; exit 2; fi; done; \
	objs=; for o in $(2); do \
		src=$(SV_DIR)/$$(basename $$o .o).c; hit=; \
		for m in $$macros; do grep -qw "$$m" $$src && hit=1; done; \
		if [ -n "$$hit" ]; then \
			echo "$(MUSL_CC) $(3) $(call mutant_flags,$(1)) -c $$src"; \
			$(MUSL_CC) $(MUSL_CFLAGS) $(3) $(call mutant_flags,$(1)) -c -o $(@D)/obj/$$(basename $$o) $$src; \
			o=$(@D)/obj/$$(basename $$o); fi; \
		objs="$$objs $$o"; done; \
	$(MUSL_CC) $(MUSL_LDFLAGS) -o $@ $$objs $(LIBSECCOMP)
endef

.PHONY: mutant-bin
mutant-bin: $(BUILD)/mutants/$(MUTANT)/egress-supervisor
$(BUILD)/mutants/%/egress-supervisor: $(SV_OBJS) $(SV_SRCS) $(SV_HDRS) $(LIBSECCOMP)
	$(call mutant_link,$*,$(SV_OBJS),)

# A mutant with the fault seam: for a defect that only a widened window (a
# seam site such as listen_window) shows every time.
#   make mutant-faults-bin MUTANT=listen-name-unchecked
.PHONY: mutant-faults-bin
mutant-faults-bin: $(BUILD)/mutants-faults/$(MUTANT)/egress-supervisor
$(BUILD)/mutants-faults/%/egress-supervisor: $(SV_FAULTS_OBJS) $(SV_SRCS) $(SV_HDRS) \
		$(SV_DIR)/fault.c $(LIBSECCOMP)
	$(call mutant_link,$*,$(SV_FAULTS_OBJS),-DSV_FAULTS)
