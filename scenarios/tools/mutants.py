#!/usr/bin/env python3
"""make mutants: the matrix must kill every known defect of the supervisor.

Each mutant (supervisor/mutant.h) is the supervisor with exactly one known
defect put back (`make mutant-bin MUTANT=name`); each guest mutant (below) is
the guest's own programs with one (`make guest-mutant-bin GUEST_MUTANT=name`),
run with the real supervisor. For each, the matrix runs the
cells the mutant declares below against the mutant binary; the mutant is
killed when at least one of those cells is neither ok nor skipped. First the
real supervisor runs the union of those cells: they must all be ok (or
skipped), or a kill would prove nothing.

Prints a kill table (mutant x the cells that killed it) and `killed N of M`;
exits non-zero when a mutant survives or the control run is not clean.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Where each defect shows, derived from what the defect changes (never from
# a run): the scenarios and kernels whose cells must go red. Globs are the
# matrix's SCENARIOS/KERNELS filters.
MUTANTS = [
    ("silent-eperm",
     "a read that fails under a non-dumpable agent answers EPERM unrecorded: pass where capability-error is due",
     ["nodump.*user=uid1000*", "nodump-exec.*user=uid1000*"], ["debian-6.1-cloud"]),
    ("enosys-probe",
     "the probe passes under ptrace_scope 3, so an agent that makes no call runs and passes",
     ["no-network.ptrace_scope=3*", "no-network.ptrace_scope=2,user=nocap*"], ["debian-6.1-cloud"]),
    ("self-probe",
     "reading itself always works, so the probe passes under ptrace_scope 3 and a quiet agent passes",
     ["no-network.ptrace_scope=3*", "no-network.ptrace_scope=2,user=nocap*"], ["debian-6.1-cloud"]),
    ("sendmsg-forward",
     "an AF_UNSPEC name on UDP is read by the kernel as AF_INET: the datagram reaches the undeclared sink",
     ["sendmsg-*"], ["debian-6.1-cloud"]),
    ("no-id-valid",
     "without ID_VALID a call whose process exited mid-mediation (ESRCH) cannot be told from a host refusing access: capability-error instead of pass",
     ["exit-storm*"], ["debian-6.1-cloud"]),
    ("continue-connect",
     "CONTINUE lets the kernel re-read the sockaddr the racing thread flips to the undeclared sink",
     ["toctou*"], ["debian-6.1-cloud"]),
    ("foreign-abi-silent",
     "i386 and x32 connects are refused in BPF with no record: the oracle finds undeclared attempts missing from the denials",
     ["i386*", "x32*"], ["debian-6.1-cloud", "debian-6.1"]),
    ("io-uring-open",
     "a ring is set up and IORING_OP_CONNECT reaches the undeclared sink without passing the filter",
     ["io-uring*"], ["debian-6.1-cloud"]),
    ("no-subreaper",
     "without CONFIG_USER_NS (the subreaper shape for uid 1000), the daemonized grandchild is re-parented to init and, under ptrace_scope 1, can no longer be read",
     ["daemonize*"], ["min-6.1"]),
    ("failure-as-denial",
     "a blinded supervisor (non-dumpable agent, uid 1000) says fail instead of capability-error",
     ["nodump.*user=uid1000*", "nodump-exec.*user=uid1000*"], ["debian-6.1-cloud"]),
    ("single-threaded",
     "one receiver blocked on a connect that never completes stalls the other thread's connects",
     ["blocking-connect*"], ["debian-6.1-cloud"]),
    ("report-on-crash",
     "the provisional report of a supervisor killed mid-run says pass",
     ["supervisor-killed*"], ["debian-6.1-cloud"]),
    ("report-fd-leak",
     "the agent inherits the --report-fd channel, appends a forged final pass record and SIGKILLs its supervisor: a pass report from a supervisor that did not finish (false-green)",
     ["forged-report*"], ["debian-6.1-cloud"]),
    ("leader-table",
     "the leader's descriptor 100 is connected and the thread told it succeeded: pass where capability-error is due before 6.9; on 6.9+ the agent finds its own socket unconnected (exit 1: oracle-mismatch)",
     ["thread-files*"], ["debian-6.1-cloud", "debian-5.10"]),
    ("denial-as-abandoned",
     "the denial decided for a connect whose notification died before ID_VALID is filed as abandoned: pass where fail is due",
     ["denial-interrupt*"], ["debian-6.1-cloud"]),

    ("unmasked-compares",
     "an int argument with bit 32 set dodges the 64-bit compares: the source routes and the high-bit SCTP, raw and MPTCP sockets go unrecorded (pass where fail is due)",
     ["highbits-*"], ["debian-6.1-cloud"]),
    ("socket-deny-list",
     "only raw and packet sockets notify: SCTP, MPTCP, UDP-Lite, DCCP and the other families are created or refused by the kernel with no record (pass, or the agent sees the kernel's errno instead of EACCES)",
     ["socket-sctp-denied*", "socket-mptcp-denied*", "socket-udplite-dccp-denied*",
      "socket-families-denied*"], ["debian-6.1-cloud"]),
    ("no-listen-mediation",
     "listen() on the wildcard is never judged: the agent listens unrecorded (pass where fail is due)",
     ["listen-wildcard-denied*"], ["debian-6.1-cloud"]),
    ("cross-process-open",
     "pidfd_getfd hands the agent an outsider's connected UDP socket: its datagram reaches the undeclared sink, with no record",
     ["cross-process-getfd*"], ["debian-6.1-cloud"]),

    ("no-close-range",
     "the caller's UDP socket to the undeclared sink reaches the agent, whose write() arrives there",
     ["inherit-fd*"], ["debian-6.1-cloud"]),
    ("checkpoint-restore-kept",
     "a root agent keeps CAP_CHECKPOINT_RESTORE, and clone3 passes the filter as it did then: set_tid gives it the pid it asks for (exit 1)",
     ["set-tid.user=root*", "set-tid.user=nocap*"], ["debian-6.1-cloud"]),
    ("old-descendant-kill",
     "no pid namespace, clone3 untrapped, set_tid allowed and 1000 passes of the pid-order kill: the rest of the chain outlives the supervisor",
     ["pid-chain.user=root*"], ["debian-6.1-cloud"]),
    ("root-agent-open",
     "a root agent owns /proc/sys: core_pattern pipes a crash into a helper that connects to the undeclared sink",
     ["core-pattern.user=root*", "core-pattern.user=nocap*"], ["debian-6.1-cloud"]),
    ("broken-promise",
     "denials answer ECONNREFUSED while the report promises EACCES: the verdict is right, the oracle finds the agent's errno breaking the promise (oracle-mismatch)",
     ["starter-undeclared.ptrace_scope=1,user=uid1000*"], ["debian-6.1-cloud"]),
    ("leader-ebadf-trusted",
     "an allowed connect from a thread whose leader has exited gets pidfd_getfd's EBADF (debian-5.10 has no ESRCH fix-up; Debian's 6.1 has it backported), filed as the agent's bad descriptor: never performed, and the run passes",
     ["leader-exit-declared*"], ["debian-5.10"]),
    ("path-options-open",
     "IPV6_FLOWLABEL_MGR and the FREEBIND options untrapped: highbits-source-route's agent sets them and the run has two fewer denials (agent exit 1)",
     ["highbits-source-route*"], ["debian-6.1-cloud"]),
    ("netlink-deputy",
     "a root agent's named rtnetlink requests performed with the supervisor's CAP_NET_ADMIN: a tc NAT on lo rewrites a declared datagram to the undeclared sink (false-green)",
     ["netlink-deputy*"], ["debian-6.1-cloud"]),
    ("no-landlock",
     "without CONFIG_USER_NS (no pid namespace of its own), a uid-1000 agent opens /proc/PID/mem of another uid-1000 process outside its tree (exit 1)",
     ["outsider-mem*"], ["min-6.1"]),
    ("cgroup-writable",
     "the Landlock domain does not handle file writes: a uid-1000 agent in a cgroup delegated to its uid moves itself out and freezes its supervisor's cgroup, whose trapped calls then wait for ever (supervisor-hang, agent exit 1)",
     ["cgroup-delegated*"], ["debian-6.1-cloud"]),
    ("clone3-open",
     "clone3 is not trapped: a uid-1000 agent in a cgroup delegated to its uid has a child born in a sibling cgroup with CLONE_INTO_CGROUP, out of reach of its supervisor's cgroup.kill (agent exit 1: oracle-mismatch)",
     ["cgroup-delegated*"], ["debian-6.1-cloud"]),
    ("io-uring-enter-open",
     "the caller's ring on stdin reaches the agent and io_uring_enter submits its IORING_OP_CONNECT: the undeclared sink sees it, the agent exits 1 (oracle-mismatch)",
     ["stdio-ring-connect*"], ["debian-6.1-cloud"]),
    ("shared-session+tty-inject-open",
     "the agent keeps the caller's session and terminal, and TIOCSTI is untrapped: it types a command line into the caller's pty (tty_input: oracle-mismatch)",
     ["stdio-tty-inject*"], ["debian-6.1-cloud"]),
    ("tty-inject-open",
     "TIOCSTI untrapped: the agent takes the caller's sessionless pty as its controlling terminal and types a command line into it (tty_input non-empty: never ok)",
     ["stdio-tty-ctty*"], ["debian-6.1-cloud"]),
    ("sort-probe-denied",
     "a resolver's address-sorting probe (a UDP connect to port 0, 9 or 65535, nothing sent) is a denial: fail where pass is due (the false red of every name with two addresses)",
     ["udp-sort-probe*"], ["debian-6.1-cloud"]),
    ("sort-probe-performed",
     "the sorting probe is made on the agent's socket and reported refused: the socket is connected to the undeclared 203.0.113.5:9 and the agent's nameless send arrives at the sink (oracle-mismatch)",
     ["udp-sort-probe*", "udp-unspecified-probe*"], ["debian-6.1-cloud"]),
    ("unspecified-probe-denied",
     "a UDP connect to 0.0.0.0 (glibc's probe of a passive lookup, nothing sent) is a denial: fail where pass is due (the false red of every Tcl client)",
     ["udp-unspecified-probe*"], ["debian-6.1-cloud"]),
    ("timing-cmsg-denied",
     "SCM_TXTIME and SO_TIMESTAMPING control messages are denied control-message: fail where pass is due (paced QUIC senders)",
     ["timing-control-messages*"], ["debian-6.1-cloud"]),
    ("fchroot-open",
     "fchroot (7.3) passes: a root agent's root on failfs makes the supervisor's lookup of its AF_UNIX name a mechanism failure: capability-error where its denied send makes fail due",
     ["failfs-root*", "failfs-root-i386*"], ["debian-7.3-cloud"]),
    ("cwd-name-trusted",
     "a root agent's working directory is taken to be where its name leads: moved outside its root (a chroot in its own user namespace) or renamed by a detached bind, its relative connect to a host relay's socket is answered ENOENT and recorded allowed: pass where fail is due",
     ["unix-cwd-outside-root*", "unix-cwd-detached*"], ["debian-6.1-cloud"]),
    ("performed-creds-own",
     "a performed AF_UNIX sendmsg carries the supervisor's credentials: the receiver with SO_PASSCRED in the run reads pid 0 and the root cell's agent exits 1 (oracle-mismatch)",
     ["peer-pid.user=root"], ["debian-6.1-cloud"]),
    ("lease-open",
     "F_SETLEASE and F_SETDELEG pass: the agent's read lease on a file of its uid is granted (and on 6.19+ its delegations), which stalls writers outside the run; the agent exits 1 (oracle-mismatch)",
     ["lease-delegation*"], ["debian-7.3-cloud"]),
    ("stdio-socket-open",
     "the caller's UDP socket to the undeclared sink on stdin reaches the agent, whose write() arrives there: pass where capability-error is due (false-green)",
     ["stdio-socket-undeclared*"], ["debian-6.1-cloud"]),
    ("stdio-unix-queue-open",
     "an AF_UNIX socket on stdin passes whatever its queue holds: the agent receives the caller's UDP socket (SCM_RIGHTS) and its write() reaches the undeclared sink, verdict pass (false-green)",
     ["stdio-unix-queued-socket*", "stdio-unix-dgram-queued-socket*"], ["debian-6.1-cloud"]),
    ("no-signal-scope",
     "where user namespaces are refused, a uid-1000 agent's Landlock domain is not scoped for signals on 6.12+: its SIGKILL lands on its supervisor (capability-error where fail is due)",
     ["forged-report-no-userns*"], ["debian-7.3"]),
    ("trial-holds-slot",
     "with one user namespace per user, the supervisor believes the ENOSPC its own trial's namespace (not yet freed) causes and falls back to the subreaper: before 6.12 the agent's SIGKILL lands on it (capability-error where fail is due)",
     ["forged-report-one-userns*"], ["debian-6.1-cloud"]),
    ("mmsg-denial-undone",
     "a sendmmsg with a message judged denied is filed invalid or abandoned when something else ends it (here a first message that fails at send time): pass where fail is due",
     ["sendmmsg-first-fault*"], ["debian-6.1-cloud"]),
    ("unspecified-as-written",
     "0.0.0.0 judged as written: a rule covering it under --no-loopback admits the datagram the kernel delivers to the undeclared 127.0.0.1 (false-green)",
     ["unspecified-dest*"], ["debian-6.1-cloud"]),
    ("stdio-state-unchecked",
     "an inet socket on 0-2 judged by its peer alone: the caller's UDP socket to the declared sink reaches the agent (pass where capability-error is due; on the host a source route or an IPv6 cork on it sends the write elsewhere)",
     ["stdio-udp-declared*"], ["debian-6.1-cloud"]),
    ("no-userns",
     "a uid-1000 supervisor stays in the initial user namespace with the agent its child (subreaper): before 6.12 the agent's SIGTERM or SIGKILL lands on it (capability-error where pass or fail is due)",
     ["pid-chain.user=uid1000*", "forged-report.user=uid1000*", "killed-supervisor-tree*"], ["debian-6.1-cloud"]),
    ("userns-keeps-ptrace",
     "in its own user namespace the supervisor keeps CAP_SYS_PTRACE over the agent: under Yama scope 2 and for a non-dumpable agent it reads what a uid-1000 supervisor cannot (fail where capability-error is due)",
     ["starter-undeclared.ptrace_scope=2,user=uid1000*", "nodump.*user=uid1000*"], ["debian-6.1-cloud"]),
    ("prlimit-open",
     "prlimit64 of another process untrapped: the agent lowers its parent's RLIMIT_CPU (exit 1, and no denial: pass where fail is due)",
     ["prlimit-supervisor*"], ["debian-6.1-cloud"]),
    ("proc-by-path",
     "the caller's second proc mount stays writable: a root agent sets core_pattern through it and the helper connects to the undeclared sink (oracle-mismatch)",
     ["second-proc-core-pattern*"], ["debian-6.1-cloud"]),
    ("efault-trusted",
     "a connect whose name is in [vvar] or a memfd_secret page (readable to the agent, refused to get_user_pages) is filed as the agent's invalid address: pass where nothing was seen (false-green)",
     ["unreachable-name"], ["debian-6.12"]),
    ("output-interface-open",
     "IP_UNICAST_IF passes (SO_BINDTODEVICE too, but the send's device check stops it): a datagram to the declared address leaves by lo, where no route leads, and the wildcard listener relays it to the undeclared sink (oracle-mismatch)",
     ["output-interface*"], ["debian-6.1-cloud"]),
    ("multicast-join-open",
     "multicast membership options untrapped: the kernel's IGMP and MLD reports carry the group and source addresses the agent chose onto lo, where the relay service (another host on the link) sends them to the undeclared sink (false-green)",
     ["multicast-join-*"], ["debian-6.1-cloud"]),
    ("held-unmarked",
     "a probing, a MSG_MORE and a UDP_CORK send are reported as any performed send: the oracle waits for four datagrams where the kernel sent one (oracle-mismatch, the appliance's own false red)",
     ["udp-held-sends*"], ["debian-6.1-cloud"]),
    ("dontroute-flag-open",
     "a send with MSG_DONTROUTE is performed: IPv4 takes the default route without a gateway out of lo past the unreachable route for the declared address, and the wildcard listener relays the datagram to the undeclared sink (oracle-mismatch)",
     ["dont-route*"], ["debian-6.1-cloud"]),
    ("pktinfo-ifindex-kept",
     "an IP_PKTINFO control message naming lo is forwarded: the datagram leaves by lo and is relayed to the undeclared sink (oracle-mismatch)",
     ["output-interface*"], ["debian-6.1-cloud"]),
    ("device-unchecked",
     "a failed bind of fe80::dead%lo leaves the IPv6 socket bound to lo and the send to the declared ::ffff:198.51.100.7 leaves by it: the relay carries it to the undeclared sink (false-green or oracle-mismatch)",
     ["output-interface*"], ["debian-6.1-cloud"]),
    ("device-first",
     "the device is judged before the payload copy: the agent's handler disconnects and binds the socket to lo while the copy waits, the send leaves by lo and the wildcard relay carries it to the undeclared sink (oracle-mismatch)",
     ["device-held-copy*"], ["debian-6.1-cloud"]),
    ("handover-shared-only",
     "a refused unshare(CLONE_FILES) refuses the run although the listener could be taken with pidfd_getfd: the declared connect under Docker's unshare mask is capability-error instead of pass (mismatch)",
     ["mask-unshare-handover*"], ["debian-6.1-cloud"]),
    ("root-files-writable",
     "a root agent's host mounts stay writable: it overwrites the program kernel.core_pattern pipes into, the kernel runs its script as root outside the run, and the script reaches the undeclared sink (false-green)",
     ["helper-replace.user=root*", "helper-replace-declared.user=root*"], ["debian-6.1-cloud"]),
    ("module-name-open",
     "keyctl DH_COMPUTE with a KDF passes: the kernel runs kernel.modprobe outside the run for crypto-agentsecret0042 and the stand-in sends it to the undeclared sink (false-green)",
     ["module-name.*"], ["debian-6.1-cloud"]),
    ("socketpair-open",
     "socketpair of an inet family passes: inet_create asks kernel.modprobe for net-pf-2-proto-B-type-2 with each byte B of the agent's secret and the stand-in sends the names to the undeclared sink (false-green)",
     ["module-name-socketpair*"], ["debian-6.1-cloud"]),
    ("ldisc-autoload-open",
     "TIOCSETD passes: a line discipline the kernel does not have is asked of kernel.modprobe as tty-ldisc-N, N chosen by the agent, and the stand-in sends the names to the undeclared sink (false-green)",
     ["module-name-ldisc*"], ["debian-6.1-cloud"]),
    ("fallback-any-errno",
     "a user namespace refused with ENOSPC while user.max_user_namespaces is not 0 (a uid-1000 service holds the uid's allowance) is taken for a host that refuses them: the run falls back to subreaper+landlock and no-network passes where capability-error is due (false-green)",
     ["ns-cotenant"], ["debian-6.1-cloud"]),
    ("own-userns-hosts",
     "a refusal met in a user namespace our uid owns is the host's: the caller set that namespace's user.max_user_namespaces to 0, the supervisor's unshare is ENOSPC under a zero limit, the run falls back to subreaper+landlock and no-network passes where capability-error is due (false-green)",
     ["userns-owned"], ["debian-6.1-cloud"]),
    ("cwd-refusal-hosts",
     "the child's chdir to a working directory whose parent the caller shut (EACCES) is the host refusing namespaces: the run falls back to subreaper+landlock and no-network passes where capability-error is due (false-green)",
     ["cwd-shut"], ["debian-6.1-cloud"]),
    ("userns-absent-ours",
     "a kernel without CONFIG_USER_NS (no /proc/self/ns/user) reads as a user namespace our uid owns: the uid-1000 run is refused where the host's own fallback passes (false red, capability-error for pass)",
     ["cwd-shut"], ["min-6.1"]),
    ("x32-pointer-low-word",
     "x32's request_key rule compares the callout's low word only (libseccomp counts x32 as 32-bit): a callout at 0x100000000 is never trapped, the kernel starts /sbin/request-key and the stand-in sends the agent's strings to the undeclared sink (false-green)",
     ["key-upcall-x32*"], ["debian-6.1"]),
    ("proc-hardware-writable",
     "only /proc/sys and /proc/sysrq-trigger are read-only: a root agent opens /proc/irq's affinity and a PCI device's config space for writing and exits 1 (oracle-mismatch)",
     ["proc-knobs"], ["debian-6.1-cloud"]),
    ("key-upcall-open",
     "request_key with a callout passes: the kernel starts /sbin/request-key outside the run and the stand-in helper sends the agent's strings to the undeclared sink (false-green)",
     ["key-upcall*"], ["debian-6.1-cloud"]),
    ("unix-peer-open",
     "a root agent's AF_UNIX path on a mount it cannot write is allowed: it connects to a root service's socket on the guest's read-only /tmp and the relay carries its marker to the undeclared sink (false-green)",
     ["unix-host-relay"], ["debian-6.1-cloud"]),
    ("unix-abstract-open",
     "a root agent's abstract AF_UNIX name is allowed whoever holds it: it connects to a root service's @egress-relay and the relay carries its marker to the undeclared sink (false-green; the Debian kernels, whose unix_diag shows the holder)",
     ["unix-host-relay-abstract"], ["debian-6.1-cloud"]),
    ("unix-path-reresolved",
     "the connect is performed by the agent's own name in the supervisor's namespace and working directory: the agent's relative tmp/relay.sock under /tmp/own becomes the host relay's /tmp/relay.sock, which carries the marker to the undeclared sink (false-green, and the agent's own listener gets nothing: exit 1); its /dev/shm/relay.sock is not found in the supervisor's /dev, envexec's own without shm (ENOENT, exit 1: oracle-mismatch)",
     ["unix-shadowed-cwd", "unix-shadowed"], ["debian-6.1-cloud"]),
    ("setns-open",
     "setns passes unjudged: a root agent joins a root container's user namespace (uid 0 owns it) and its network namespace, and the container's loopback relay carries its marker to the undeclared sink (false-green); a uid-1000 agent's joins are refused by the kernel, unrecorded (pass where fail is due)",
     ["setns-container.*"], ["debian-6.1-cloud"]),
    ("setns-owner-past-ours",
     "the owner walk goes past the supervisor's user namespace to the initial one, where a root agent lives: the container's namespaces count as the run's and the relay carries the marker to the undeclared sink (false-green)",
     ["setns-container.user=root"], ["debian-6.1-cloud"]),
    ("run-ns-by-reaper",
     "the run's pid namespace is named through the reaper, which is not dumpable: a root supervisor without CAP_SYS_PTRACE cannot read its link (EACCES) and every join, the run's own included, is a mechanism failure (capability-error where pass and fail are due)",
     ["setns-own.user=nocap", "setns-container.user=nocap"], ["debian-6.1-cloud"]),
    ("unix-closed-is-peer",
     "the run's own listener, closed while a connect to it waits, is kept bound by the supervisor's pin when the name is judged again and called a host's: the connect is denied (EACCES) where the kernel says ECONNREFUSED (fail where pass is due, and the agent exits 1)",
     ["unix-closed-wait"], ["debian-6.1-cloud"]),
    ("bind-probe",
     "the kernel is asked about a name no listener was seen on by binding it: a name the agent bound and never listened on is taken three times and its connect a mechanism failure (capability-error where pass is due, and the agent exits 1)",
     ["unix-unlistening"], ["debian-6.1-cloud"]),
    ("unix-long-name-looked-up",
     "a name longer than struct sockaddr_un is looked up like any other: the probe cannot ask the kernel about it, so the connect is a mechanism failure where the kernel answers EINVAL (capability-error where pass is due, and the agent exits 1)",
     ["unix-too-long"], ["debian-6.1-cloud"]),
    ("maps-decide",
     "a failed read of a name where the agent's maps show nothing mapped when the supervisor looks is filed as the agent's bad address: a page it unmapped after the connect hides the attempt behind a pass (false-green)",
     ["unmapped-name"], ["debian-6.1-cloud"]),
]
# Guest mutants (make guest-mutant-bin): the guest's own programs with one
# known defect put back. What they break is the appliance's integrity: a
# verdict the agent forged must never be believed. A fifth field names the
# supervisor bundle (tests/bundles/) to run them under, where our own
# supervisor's containment would hide the defect: it gives a root agent a
# /dev of its own and a read-only /tmp, so under it shared-dev survived
# (stop 44); under passthrough, which contains nothing, the guest's own
# hiding is all that stands (bundle-smoke shows that cell ok there).
GUEST_MUTANTS = [
    ("shared-dev",
     "the run's /dev is the shared devtmpfs, read-only, and /tmp allows nodes: under a supervisor that contains nothing, a root agent writes a forged fail frame on /dev/ttyS1 for a cell that passes, and upper-cases init's own with OLCUC (mismatch)",
     ["result-port-forge-declared"], ["debian-6.1-cloud"], "passthrough"),
]
# sink-no-marker (initramfs/guest/sink.c: the stop drains at once, without
# waiting for its marker to come back over lo) has no cell: in a guest what
# is still queued on lo at the stop is queued for microseconds, so no verdict
# could be derived; initramfs/tests/test_sink_stop.py (make initramfs-test)
# kills it every time behind a token bucket on lo in a network namespace.

# The caller's side (stdio = and mount = in the scenario, set up by the
# guest's egress-envexec): io-uring-enter-open is also killed by the filter
# table tests (make filter-table-test), and on the matrix only by a ring the
# supervisor's caller puts on its stdin (close_range spares 0-2; a ring
# passed with SCM_RIGHTS is refused by the kernel, and io_uring_setup and
# pidfd_getfd are trapped). shared-session, stdio-socket-open and
# proc-by-path (found by the hostile review of the merged supervisor) are
# also killed by the host integration tests
# (tests/integration/it_containment.py, "the agent's session, stdio and
# kernel knobs"). shared-session only where
# TIOCSTI works for a session's own terminal: before 6.2, or with
# CONFIG_LEGACY_TIOCSTI (Debian 6.12 and 7.3 leave it unset: EIO there).
# listen-name-unchecked and reaper-holds-fds (found by the audit of
# docs/design.md against the tests) have no cell: the first is a race that
# only the fault seam's listen_window makes land every time (a release build
# in the guest would lose it most runs, so no verdict could be derived), the
# second a race in the reaper that an integration test shows deterministically
# by reading its descriptor table (listen_rebound_during_judgement_is_stopped_and_denied,
# reaper_holds_none_of_the_callers_descriptors). passrights-open (SO_PASSRIGHTS
# left on for an AF_UNIX socket on 0-2, 6.16+) has no cell either: a send
# during the run needs a caller that acts after the supervisor's check, so
# the filter table and the integration test
# descriptor_sent_to_unix_stdin_during_the_run_is_refused_by_the_kernel kill it;
# rights-mech-unlabelled is killed through the seam by
# scm_rights_of_a_thread_with_its_own_table_checked_by_kcmp. rights-mech-unlabelled has
# none either: its label shows only before 6.9 from a thread with its own
# table, which the integration test forces through the seam's pidfd_thread
# (scm_rights_of_a_thread_with_its_own_table_checked_by_kcmp).
# no-event-floor (one pool of stored events for every bucket) has no cell:
# it needs 200,000 trapped calls before the denial, minutes of a TCG guest,
# so the integration test denial_after_a_flood_of_allowed_calls_keeps_its_event
# kills it on the host (about 10 s).
# no-cgroup-proof (the Landlock domain trusted as built) has no cell: the
# layout it matters on (a supervisor in a chroot with a bind of the host's
# /) is a host's, not a guest's, so the integration test
# domain_that_still_reaches_a_cgroup_file_refuses_the_run kills it.
# sigchld-inherited has no cell: the guest's init never ignores SIGCHLD
# for the supervisor; the integration test
# caller_ignoring_sigchld_still_gets_the_agents_status kills it.
# stdio-route-kept (review h-attack10) has no cell: the caller's TCP socket
# routed through a source route that was then cleared needs TCP_REPAIR or a
# first hop that relays, and a network namespace accepting source routes, so
# the integration test
# tcp_socket_on_stdin_routed_through_a_cleared_source_route_is_routed_again
# kills it with the review's own reproduction (tests/review/ha10-stdio.sh).
# stdio-priority-lost (review h-attack11: the route reset left SO_PRIORITY as
# IP_TOS set it) has no cell: no verdict shows a socket's priority, so the
# integration test tcp_socket_on_stdin_keeps_its_priority_through_the_route_reset
# kills it by reading the caller's own copy of the socket after the run.
# trial-exit-code (review h-attack8) has no cell either: an errno above 255
# from a profile is made by the integration test
# user_namespace_trial_answer_is_read_whole, which kills it.
# userns-untried (no trial of the user namespace in a throwaway child) has
# no cell: the matrix's guests refuse nothing between the user namespace and
# the pid namespace in it, so only the integration test
# user_namespace_that_gives_nothing_is_found_before_the_supervisor_enters_one
# (a seccomp mask refusing CLONE_NEWPID) kills it.
# fallback-keeps-admin (review h-attack7: CAP_SYS_ADMIN kept in the user
# namespace after the fall-back to the subreaper) has no cell: only the
# supervisor's own capability sets differ, which no verdict shows, so the
# integration test
# fallback_inside_the_user_namespace_drops_cap_sys_admin_and_says_so kills it
# by reading them during the run.

# host-dev, writable-dev and mknod-kept (a root agent's /dev, declared
# paths and CAP_MKNOD, closed with issue 11's class 5) have no cell: the
# guest's own harness already gives the run a /dev without block devices
# and makes /tmp nodev (initramfs/guest/hide.c), so no guest verdict could
# differ. The integration test
# root_agent_sees_no_host_device_and_no_node_it_or_its_caller_makes kills
# all three on the host, with a block device and a node the caller left in
# a declared path.
# ipc-retry-blind (CLONE_NEWIPC refused, asked again without it where SysV
# IPC exists) has no cell: every matrix kernel either has IPC namespaces or
# no SysV IPC at all, so the seam's clone_newipc makes the kernel the
# matrix lacks, in the integration test
# kernel_without_ipc_namespaces_refuses_where_sysv_ipc_exists.

# The original false green: both defects at once, on a Debian kernel under
# ptrace_scope 2 without CAP_SYS_PTRACE (README).
REPRO = ("silent-eperm+enosys-probe",
         "the original report: a probe that only checks pidfd_getfd for ENOSYS and reads that fail quietly",
         ["starter-undeclared.ptrace_scope=2,user=nocap"], ["debian-6.1-cloud"])


def log(msg):
    print(msg, flush=True)


def build_mutant(name):
    subprocess.run(["make", "-s", "-C", TOP, "mutant-bin", f"MUTANT={name}"], check=True)
    return os.path.join(TOP, "build", "mutants", name, "egress-supervisor")


def build_guest_mutant(name):
    subprocess.run(["make", "-s", "-C", TOP, "guest-mutant-bin", f"GUEST_MUTANT={name}"],
                   check=True)
    return os.path.join(TOP, "build", "guest-mutants", name, "bin")


def run_matrix(run_id, supervisor, scenarios, kernels, jobs, guest_bin=None):
    """Runs the matrix; returns its cells (summary.json), [] when none ran.
    GUEST_BIN: the guest programs of a guest mutant (None: the project's)."""
    cmd = [sys.executable, os.path.join(TOP, "scenarios", "tools", "matrix.py"),
           "--run-id", run_id, "--scenarios", " ".join(scenarios),
           "--kernels", " ".join(kernels), "--floor", "2", "--jobs", str(jobs)]
    if supervisor:
        cmd += ["--supervisor", supervisor]
    # The matrix's exit status says whether any cell was red: for a mutant
    # that is the point, so it is read from the summary instead.
    env = dict(os.environ)
    env.pop("GUEST_BIN", None)
    if guest_bin:
        env["GUEST_BIN"] = guest_bin
    subprocess.run(cmd, cwd=TOP, check=False, env=env)
    path = os.path.join(TOP, "results", run_id, "summary.json")
    if not os.path.exists(path):
        log(f"mutants: {run_id}: the matrix wrote no summary ({path})")
        return None
    with open(path) as f:
        return json.load(f)["cells"]


def red(cell):
    # not-run (the matrix was stopped) is neither a kill nor clean; main()
    # refuses such a run outright.
    return cell["outcome"] not in ("ok", "skipped", "not-run")


def stopped(cells):
    return any(c["outcome"] == "not-run" for c in (cells or []))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mutants", default="", help="names (space-separated); default all")
    ap.add_argument("--repro", action="store_true", help="only the original report's mutant pair")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()

    known = {m[0]: m for m in MUTANTS + GUEST_MUTANTS}
    guest = {m[0] for m in GUEST_MUTANTS}
    if args.repro:
        chosen = [REPRO]
    elif args.mutants.split():
        bad = [n for n in args.mutants.split() if n not in known and n != REPRO[0]]
        if bad:
            log(f"mutants: unknown mutant(s) {' '.join(bad)} (known: {' '.join(known)})")
            return 2
        chosen = [known.get(n, REPRO) for n in args.mutants.split()]
    else:
        chosen = MUTANTS + GUEST_MUTANTS
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    base = f"mutants-{stamp}"

    # Control: the real supervisor on the same cells, so a kill means the
    # defect, not a broken cell.
    subprocess.run(["make", "-s", "-C", TOP, "supervisor"], check=True)
    scen = sorted({s for m in chosen for s in m[2]})
    kern = sorted({k for m in chosen for k in m[3]})
    control = run_matrix(f"{base}/control", None, scen, kern, args.jobs)
    if stopped(control):
        log("mutants: the control run was stopped (not-run cells): no kill table")
        return 2
    control_ok = control is not None and control and not any(red(c) for c in control)
    log(f"mutants: control (real supervisor): {len(control or [])} cells, "
        f"{'all ok or skipped' if control_ok else 'NOT CLEAN'}")

    rows = []
    for name, why, scenarios, kernels, *bundle in chosen:
        if name in guest:
            sup = None
            if bundle:
                subprocess.run(["make", "-s", "-C", TOP, "bundles"], check=True)
                sup = os.path.join(TOP, "build", "bundles", bundle[0])
            cells = run_matrix(f"{base}/guest-{name}", sup, scenarios, kernels, args.jobs,
                               build_guest_mutant(name))
        else:
            cells = run_matrix(f"{base}/{name.replace('+', '_')}", build_mutant(name), scenarios,
                               kernels, args.jobs)
        if stopped(cells):
            log(f"mutants: the run of {name} was stopped (not-run cells): no kill table")
            return 2
        killers = [f"{c['cell']}: {c['outcome']} (expected {c['expected']}, got {c['got']})"
                   for c in (cells or []) if red(c)]
        ran = [c for c in (cells or []) if c["outcome"] != "skipped"]
        rows.append((name, why, killers, len(ran)))

    log("\nkill table (mutant: the cells that killed it)")
    killed = 0
    for name, why, killers, ran in rows:
        status = "KILLED" if killers else ("SURVIVED" if ran else "SURVIVED (no cell ran)")
        killed += bool(killers)
        log(f"  {name}: {status} - {why}")
        for k in killers:
            log(f"      {k}")
    log(f"\nresults under results/{base}/")
    log(f"killed {killed} of {len(rows)}")
    if not control_ok:
        log("mutants: the control run was not clean: kills prove nothing until it is")
    # For tests/run-suites.sh: each kill and the clean control is a pass.
    passed = killed + (1 if control_ok else 0)
    log(f"mutants: {passed} passed, {len(rows) + 1 - passed} failed")
    return 0 if killed == len(rows) and control_ok else 1


if __name__ == "__main__":
    sys.exit(main())
