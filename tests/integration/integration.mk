# tests/integration/: the real agents under the real supervisor, on this
# machine's kernel, over loopback only.
# run.py is the entry point, harness.py the harness, it_*.py the tests (run.py
# imports them in the order of its --list).
#   make integration-test            every test
#   make integration-test IT=NAME... only those (see run.py --list)
# Included from tests/tests.mk after supervisor/supervisor.mk and
# tests/agents/agents.mk.

IT_RUNNER := $(TOP)/tests/integration/run.py
IT ?=

.PHONY: integration-test integration-bins
# Both supervisor builds: the release binary for behaviour, the faults build
# for the seam; the agents and the mutants below. Built by a make of their
# own with one job per core first: some seventy static mutants, a few
# seconds of compiling each, were half the suite's wall time built one by
# one. python3 is Debian 12's own (stdlib only).
IT_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
integration-test:
	@$(MAKE) --no-print-directory -j$(IT_JOBS) integration-bins
	@$(SV_DIR)/tools/host-deps.sh python3 btrfs-progs libcap2-bin e2fsprogs util-linux
	TOP=$(TOP) BUILD=$(BUILD) python3 $(IT_RUNNER) $(IT)
integration-bins: $(SV_RELEASE) $(SV_FAULTS_BIN) agents

# Tests that prove their checks can fail, on these mutants
# (the tests skip, naming the binary, when one is missing).
IT_MUTANTS := report-fd-leak foreign-abi-silent report-on-crash no-close-range leader-table denial-as-abandoned shared-session stdio-socket-open \
	proc-by-path reaper-holds-fds netlink-deputy io-uring-enter-open root-agent-open \
	stdio-unix-queue-open prlimit-open passrights-open passrights-any-value agent-status-at-end interrupt-before-reap unspecified-probe-denied timing-cmsg-denied cgroup-writable \
	no-event-floor checkpoint-restore-kept no-cgroup-proof efault-trusted maps-decide \
	named-fifo-silent mmsg-fault-whole control-cap-invalid \
	bad-control-first rights-any-family mmsg-stop-at-bad-control \
	mmsg-late-invalid mmsg-len-unsent no-userns userns-keeps-ptrace userns-untried \
	trial-exit-code trial-holds-slot sigchld-inherited mmsg-denial-undone \
	unspecified-as-written stdio-state-unchecked \
	stdio-route-kept stdio-priority-lost output-interface-open pktinfo-ifindex-kept key-upcall-open \
	device-unchecked module-name-open handover-shared-only device-first handle-open \
	root-files-writable host-dev writable-dev mknod-kept root-stdio-open root-stack-covered \
	cwd-unnamed-kept root-chroot-kept root-file-caps-kept root-setuid-open unix-peer-open \
	unix-abstract-open unix-path-reresolved unix-diag-own-netns \
	holder-unpinned root-setid-writable root-file-caps-kept+root-setid-writable \
	snapshot-open setid-walk-narrow setns-open setns-owner-past-ours \
	setns-open+unix-diag-own-netns \
	setns-table-unchecked unix-abstract-waits \
	run-ns-by-reaper setns-threads-late nonblock-clear-open unix-closed-is-peer \
	file-flags-by-uid pinned-unchecked dump-trusted bind-probe unix-long-name-looked-up \
	thread-gone-fails pins-after-answer cached-holder-unproven \
	setns-checked-after-scan dontroute-option-open dontroute-flag-open stdio-dontroute-kept \
	report-path-resolved cgroup-namespace-open kill-by-pid report-link-followed \
	declared-link-followed cgroup-refused-any-uid \
	report-dir-moved-trusted multicast-join-open tun-attach-open stdio-chardev-open \
	tty-inject-open shared-session+tty-inject-open hung-up-terminal-refused host-caps-kept \
	pty-master-kept lease-open host-caps-kept+tty-inject-open sort-probe-denied \
	sort-probe-performed cwd-name-trusted cwd-depth-trusted \
	procfs-errno-answered chroot-prefix-kept performed-creds-own creds-appended \
	sendto-creds-own creds-eperm-retry protected-link-refused root-overmount-ignored \
	mount-change-trusted overmount-asked-once \
	overmount-asked-once+walk-dir-change-ignored+foreign-root-trusted \
	overmount-asked-once+walk-dir-change-ignored+foreign-root-trusted+mount-change-trusted \
	foreign-root-trusted+walk-dir-change-ignored \
	foreign-root-trusted+walk-dir-change-ignored+overmount-asked-once \
	socketpair-open key-payload-open walk-dir-change-ignored foreign-root-trusted \
	gone-walk-denied listener-errno-mapped rthdr2292-denied closed-sockets-silent \
	fsize-export-trusted cwd-refusal-hosts own-userns-hosts ns-dir-through-mounts \
	localnet-loopback-trusted mknod-only localnet-first-byte localnet-dot-skipped \
	proc-hardware-writable misc-minor-any reaper-shares-session
integration-bins: $(foreach m,$(IT_MUTANTS),$(BUILD)/mutants/$(m)/egress-supervisor)
# Mutants that need the fault seam's widened windows (make mutant-faults-bin).
IT_FAULT_MUTANTS := listen-name-unchecked id-valid-eintr leader-ebadf-trusted \
	rights-mech-unlabelled no-signal-scope fallback-keeps-admin device-unchecked \
	disconnect-unlocked ipc-retry-blind stream-connect-portless unix-abstract-unpinned \
	unix-closed-is-peer run-named-late report-fd-first receivers-capped-counted nofile-kept \
	withdrawn-uncounted sentinels-absent sentinel-copies-counted cwd-walk-by-name \
	cwd-escape-errno-trusted scoped-eagain-answered caps-stuck-ignored walk-complete-trusted \
	creds-read-error-ours lookup-emfile-walked creds-raise-failed-ours inotify-refusal-denied \
	fallback-any-errno map-taken-trusted userns-absent-ours userns-absent-unproven
integration-bins: $(foreach m,$(IT_FAULT_MUTANTS),$(BUILD)/mutants-faults/$(m)/egress-supervisor)
