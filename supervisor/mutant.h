/* The mutants (make mutants): each SV_MUTANT_<NAME> switch puts exactly one
 * known defect back into the supervisor, so the matrix can show that it
 * would catch it. A build without any switch compiles none of this code:
 * every mutant block is inside #ifdef SV_MUTANT_*. The list, with the file
 * that holds each switch:
 *   SILENT_EPERM          mediate.c  a failed memory read answers EPERM, unrecorded
 *   ENOSYS_PROBE          probe.c    the probe only checks pidfd_getfd for ENOSYS
 *   SELF_PROBE            probe.c    the probe reads and duplicates from itself
 *   SENDMSG_FORWARD       mediate.c  an unparseable sendmsg name is forwarded
 *   NO_ID_VALID           listener.c no ID_VALID check
 *   CONTINUE_CONNECT      mediate.c  an allowed connect is answered CONTINUE
 *   FOREIGN_ABI_SILENT    filter.c   i386/x32 calls errno'd in BPF, unrecorded
 *   IO_URING_OPEN         filter.c   no io_uring call is trapped (setup, enter, register)
 *   NO_SUBREAPER          main.c     the supervisor is not a child subreaper
 *   FAILURE_AS_DENIAL     mediate.c  mechanism failures count as denials
 *   SINGLE_THREADED       notify.c   one receiver performs blocking calls inline
 *   REPORT_ON_CRASH       report.c   the provisional report says pass
 *   REPORT_FD_LEAK        main.c     the agent inherits the --report-fd channel
 *   LEADER_TABLE          act.c      descriptors resolved in the thread-group leader's table
 *   DENIAL_AS_ABANDONED   call.c     a decided denial whose notification died is abandoned
 *   UNMASKED_COMPARES     filter.c   int arguments compared in all 64 bits
 *   SOCKET_DENY_LIST      filter.c   socket() notifies only raw and packet kinds
 *   NO_LISTEN_MEDIATION   filter.c   listen() is not trapped
 *   CROSS_PROCESS_OPEN    filter.c   ptrace, process_vm_*, pidfd_getfd, kcmp untrapped
 *   IO_URING_ENTER_OPEN   filter.c   io_uring_enter and io_uring_register untrapped

 *   NO_CLOSE_RANGE        contain.c  the caller's descriptors reach the agent
 *   CHECKPOINT_RESTORE_KEPT caps.c, filter.c  the agent keeps CAP_CHECKPOINT_RESTORE
 *                         and clone3 passes the filter (set_tid), as before both
 *   OLD_DESCENDANT_KILL   descendants.c, contain.c, caps.c, filter.c  the tree as before: no
 *                         pid namespace, CAP_CHECKPOINT_RESTORE kept, clone3 untrapped,
 *                         and the /proc scan
 *                         in pid order of direct children for at most 1000 rounds
 *   ROOT_AGENT_OPEN       contain.c  no pid or mount namespace: a root agent
 *                         owns /proc/sys and /sys
 *   NO_LANDLOCK           landlock.c  no Landlock domain: a uid-1000 agent reaches
 *                         other processes of its uid (/proc/PID/mem)
 *   CGROUP_WRITABLE       landlock.c  the domain does not handle file writes: a
 *                         uid-1000 agent in a delegated cgroup freezes or kills
 *                         its supervisor's
 *   SHARED_SESSION        spawn.c    the agent keeps the caller's session and
 *                         controlling terminal (TIOCSTI, kill(0))
 *   STDIO_SOCKET_OPEN     stdfds.c   a socket on descriptor 0-2 reaches the agent
 *                         whatever its peer
 *   STDIO_UNIX_QUEUE_OPEN stdfds.c   an AF_UNIX socket on 0-2 passes whatever its
 *                         queue holds (a caller's socket queued with SCM_RIGHTS)
 *   BROKEN_PROMISE        call.c     denials answer ECONNREFUSED; the report promises EACCES
 *   PROC_BY_PATH          contain.c, rootfs.c  only /sys mounts read-only: the old
 *                         /proc (the working directory) and other proc mounts
 *                         writable, and no read-back of the mounts
 *   REAPER_HOLDS_FDS      spawn.c    the pid namespace's reaper keeps the caller's
 *                         descriptors and is dumpable until it has forked the agent
 *   LEADER_EBADF_TRUSTED  act.c      before 6.9, pidfd_getfd's EBADF for a process whose
 *                         leader has exited is taken for the agent's bad descriptor
 *   NETLINK_DEPUTY        judge.c, notify.c  named netlink sends are performed with
 *                         the name, by receivers that keep all our capabilities: the
 *                         kernel checks only ours (a root agent gets CAP_NET_ADMIN)
 *   ID_VALID_EINTR        listener.c an ID_VALID interrupted by a signal (EINTR before
 *                         anything was checked) is a mechanism failure
 *   PATH_OPTIONS_OPEN     filtertab.c   only the four classic source routes trapped: a
 *                         flow label's routing header and free binding pass
 *   LISTEN_NAME_UNCHECKED mediate_sock.c  the bound name is not read again after the
 *                         listen: a socket rebound to the wildcard in between listens
 *   RIGHTS_MECH_UNLABELLED act.c     a kcmp failure on an SCM_RIGHTS descriptor is
 *                         recorded with mechanism pidfd_getfd
 *   NO_SIGNAL_SCOPE       landlock.c  the Landlock domain is not scoped for signals
 *                         (6.12+): a uid-1000 agent can kill or stop its supervisor
 *   PRLIMIT_OPEN          filter.c   prlimit64 of another process is not trapped: the
 *                         agent lowers its supervisor's RLIMIT_CPU
 *   PASSRIGHTS_OPEN       stdfds.c, filtertab.c  an AF_UNIX socket on 0-2 keeps taking
 *                         descriptors during the run (6.16+), and the agent may
 *                         set SO_PASSRIGHTS
 *   PASSRIGHTS_ANY_VALUE  mediate.c  a SO_PASSRIGHTS the agent sets is performed with
 *                         its own value: a socket on 0-2 takes descriptors again
 *   AGENT_STATUS_AT_END   contain.c  the reaper says the agent's status only once its
 *                         namespace is empty: a run cut short while what the agent
 *                         left runs on reports the agent killed
 *   INTERRUPT_BEFORE_REAP main.c     a caller's signal is recorded before what has
 *                         exited is reaped and the reaper's word read: a SIGTERM
 *                         within a tick of the agent's exit says it killed the agent
 *   UNSPECIFIED_PROBE_DENIED call.c  a UDP connect to 0.0.0.0 or :: (glibc's probe
 *                         of a passive lookup) is a denial, not neutralized:
 *                         every Tcl client fails its run
 *   TIMING_CMSG_DENIED    msghdr.c   SO_TIMESTAMPING, SCM_TXTIME and IPV6_DONTFRAG
 *                         control messages are denied (a false red of paced
 *                         QUIC senders)
 *   CLONE3_OPEN           filter.c   clone3 passes: CLONE_INTO_CGROUP puts a child in a
 *                         sibling of a delegated cgroup, out of reach of cgroup.kill
 *   NO_CGROUP_PROOF       landlock.c  the domain is trusted as built: no cgroup file of
 *                         the supervisor's is tried inside it (a chroot's hidden
 *                         mounts let a rule reach them)
 *   NO_EVENT_FLOOR        report.c   one pool of 200,000 stored events for every
 *                         bucket: a denial after a flood of allowed calls is
 *                         only counted
 *   EFAULT_TRUSTED        target.c   every EFAULT of process_vm_readv is the agent's
 *                         bad address: a name in a page it reads but the remote
 *                         access cannot ([vvar], memfd_secret) is hidden as invalid
 *   MAPS_DECIDE           target.c   a failed read where the agent's maps show nothing
 *                         mapped when the supervisor looks is its bad address:
 *                         a page the agent unmapped (or a thread toggled) after
 *                         the connect is hidden as invalid (the rule before
 *                         the address bounds; ha3-toggle's race)
 *   NAMED_FIFO_SILENT     main.c     no warning for a --report-fd that is a named FIFO
 *   MMSG_FAULT_WHOLE      mediate_msg.c  a bad pointer in any sendmmsg message makes
 *                         the whole call invalid: an undeclared first message,
 *                         which the kernel sends, is hidden behind a pass
 *                         (review h-attack4)
 *   CONTROL_CAP_INVALID   mediate_msg.c  control data over the 64 KiB cap is the
 *                         agent's ENOBUFS (invalid): the kernel takes up to
 *                         optmem_max (128 KiB) and sends, hidden behind a pass
 *                         (review h-attack4)
 *   BAD_CONTROL_FIRST     mediate_msg.c  a malformed control message is the agent's
 *                         EINVAL before its name is judged: a TCP fast-open
 *                         send, which connects before the kernel walks the
 *                         control, hides behind a pass (review h-attack4)
 *   RIGHTS_ANY_FAMILY     mediate_msg.c  SCM_RIGHTS is translated, and counted against
 *                         SCM_MAX_FD, on every family: a UDP sendmmsg whose
 *                         declared message carries a closed descriptor or 254
 *                         of them is filed invalid (or stops there), and the
 *                         later undeclared message the kernel sends hides
 *                         behind a pass (review h-attack5); since a judged
 *                         denial stands whatever ends the call (h-attack10),
 *                         it withholds the declared message and answers
 *                         EACCES instead
 *   MMSG_STOP_AT_BAD_CONTROL mediate_msg.c  sendmmsg judges no message after a
 *                         malformed control: on a corked UDP socket (MSG_MORE)
 *                         the kernel appends that message without walking its
 *                         control and sends the undeclared next one, hidden
 *                         behind a pass (review h-attack5)
 *   MMSG_LATE_INVALID     mediate_msg.c  a later sendmmsg message's own mistake (its
 *                         payload where nothing can be mapped, a datagram over
 *                         the cap, a closed descriptor) finishes the call
 *                         invalid after the messages before it were sent: the
 *                         agent is told EFAULT, not the count (review h-attack5)
 *   STDIO_STATE_UNCHECKED stdfds.c  an inet socket on 0-2 is judged by its peer
 *                         alone: a caller's UDP socket with a pending IPv6
 *                         cork or an LSRR option sends the agent's write()
 *                         to an undeclared address (review h-attack9)
 *   STDIO_ROUTE_KEPT      stdfds.c  a TCP socket on 0-2 keeps its cached route: one
 *                         connected through a source route that was then
 *                         cleared still sends the agent's write() to the
 *                         route's first hop (review h-attack10)
 *   STDIO_PRIORITY_LOST   stdfds.c  the route reset of a TCP socket on 0-2 leaves
 *                         its SO_PRIORITY as IP_TOS set it, not as the caller
 *                         had it (review h-attack11)
 *   OUTPUT_INTERFACE_OPEN filtertab.c  SO_BINDTODEVICE, SO_BINDTOIFINDEX, IP_UNICAST_IF,
 *                         IPV6_UNICAST_IF and a sticky IPV6_PKTINFO pass: the
 *                         agent sends to a declared address over a link where
 *                         no route leads to it, and whoever answers ARP for it
 *                         there gets the data (review h-attack12)
 *   PKTINFO_IFINDEX_KEPT  msghdr.c  an IP_PKTINFO or IPV6_PKTINFO control message
 *                         naming an interface is forwarded: the same choice of
 *                         link, per datagram (review h-attack12)
 *   DEVICE_UNCHECKED      call.c  the socket's device binding is not compared with
 *                         the destination before and after a connect or send,
 *                         and a portless datagram socket gets no port first:
 *                         a failed bind() of fe80::x%IFNAME (not trapped)
 *                         leaves the socket bound to IFNAME, and a send to a
 *                         declared ::ffff:a.b.c.d leaves by it (review
 *                         h-attack13)
 *   MODULE_NAME_OPEN      filter.c  keyctl DH_COMPUTE with a KDF and the PKEY
 *                         operations pass: the kernel runs kernel.modprobe
 *                         outside the run with "crypto-" and a name the
 *                         agent chose (review h-attack13)
 *   DEVICE_FIRST          call.c  the socket's device is judged before the
 *                         payload is copied: an agent that holds the copy
 *                         (userfaultfd, the page cache) makes the socket
 *                         portless and sets its device with a failed bind in
 *                         between, and the send leaves by that link before
 *                         the check after it (review h-attack16)
 *   PORT_FAILURE_QUIET    device.c a portless socket whose port could not be
 *                         given is judged anyway (IP_LOCAL_PORT_RANGE narrowed
 *                         to a port held elsewhere; review h-attack16)
 *   FASTOPEN_IN_SYN       call.c  an IPv6 MSG_FASTOPEN send is performed as one
 *                         call, its payload in the SYN: a SYN_SENT socket's
 *                         port given back by shutdown() and a failed bind in
 *                         the window send it out of another link (review
 *                         h-attack16)
 *   DISCONNECT_UNLOCKED   call.c  IPv6 connects take no device lock: a
 *                         disconnect gives back the port, or a scoped connect
 *                         binds the socket to a link, while another supervisor
 *                         thread sits between judging the socket's device and
 *                         sending (reviews h-attack16, h-attack17)
 *   HANDLE_OPEN           caps.c  a root agent keeps CAP_DAC_READ_SEARCH:
 *                         open_by_handle_at reopens an unlinked --report-fd
 *                         file on ext4 and rewrites the supervisor's records
 *                         (hostile re-run h-rerun2)
 *   ROOT_FILES_WRITABLE   rootfs.c  a root agent's host mounts stay writable: it
 *                         replaces the program a core_pattern pipe names and
 *                         the kernel runs its copy as root outside the run
 *                         (hostile re-run h-rerun2); no read-back of the mounts
 *   HOST_DEV              rootfs.c  a root agent keeps the host's /dev: a block
 *                         device or /dev/port opens for writing; no read-back
 *   WRITABLE_DEV          rootfs.c  a declared writable path allows device
 *                         nodes: one the caller left there (a chroot's /dev)
 *                         opens for writing; no read-back
 *   MKNOD_KEPT            caps.c  a root agent keeps CAP_MKNOD
 *   ROOT_FILE_CAPS_KEPT   caps.c  a root agent keeps CAP_FSETID, CAP_LINUX_IMMUTABLE
 *                         and CAP_SETFCAP: a setuid program it rewrites keeps
 *                         its bit, it clears an append-only log's flag, and
 *                         gives a file it planted file capabilities
 *                         (h-attack19, h-attack20)
 *   ROOT_SETUID_OPEN      filter.c  a root agent's chmod, open and mknod with
 *                         S_ISUID or S_ISGID pass: its setuid file on the host's
 *                         mounts is setuid-root outside the run, a setgid one
 *                         grants a group it joined (reviews h-attack19, 20)
 *   ROOT_SETID_WRITABLE   rootfs.c  a setuid program under a declared path stays
 *                         writable to a root agent: rewritten through a shared
 *                         mapping it keeps S_ISUID, and a user outside the
 *                         run gets root from it (review h-attack21)
 *   UNIX_PEER_OPEN        unixpeer.c  a root agent's AF_UNIX path on a mount it
 *                         cannot write is allowed: it talks to root services
 *                         outside the run (systemd, D-Bus, docker.sock; review
 *                         h-attack19's unixsvc), which relay its data anywhere
 *   UNIX_ABSTRACT_OPEN    unixpeer.c  a root agent's abstract AF_UNIX name is
 *                         allowed whoever bound it (iscsid, an old
 *                         containerd-shim)
 *   SETID_WALK_NARROW     rootfs.c  the walk binds setgid files only with group
 *                         execute, capable files only when executable, and
 *                         tells mount points by their paths: a POSIX ACL, a
 *                         chmod or a covered mount point leaves one writable
 *                         (review h-attack24, ha24-setid.sh B, C, D)
 *   SNAPSHOT_OPEN         filter.c  a root agent's btrfs snapshot ioctls pass: a
 *                         snapshot of the host's file system under a declared
 *                         path brings back every setuid program, unbound
 *                         (review h-attack24)
 *   UNIX_ABSTRACT_WAITS   unixpeer.c  the act on an abstract name the run holds
 *                         may wait in the kernel (a full send buffer or queue),
 *                         which then looks the name up again, and the judged
 *                         socket is not held: the agent lets a host socket
 *                         bind it meanwhile (review h-attack25)
 *   UNIX_ABSTRACT_UNPINNED unixpeer.c  the socket judged the run's is not held
 *                         open until the act is done: a host service that
 *                         binds the name when the run's listener closes, in
 *                         the window the test build widens (unix_window),
 *                         gets the connect (review h-attack27)
 *   NONBLOCK_CLEAR_OPEN   filter.c  the agent's F_SETFL and FIONBIO pass: a
 *                         thread clears O_NONBLOCK while the supervisor's
 *                         connect runs and it waits in the kernel (review
 *                         h-attack27, ha27-nbrace.sh)
 *   DUMP_TRUSTED          unixpeer.c  a sock_diag dump that lists nothing
 *                         bound to an abstract name means nothing is: the
 *                         agent closes sockets of its own during the dump,
 *                         which then skips a host's listener, and its
 *                         connect there is refused and allowed, a pass
 *                         (review h-attack30, ha30-dumpskip.sh)
 *   BIND_PROBE            unixdiag.c  the kernel is asked about a name the
 *                         dumps saw nothing on by binding it for an instant:
 *                         a name bound and not listening is "taken" and its
 *                         connect a mechanism failure (capability-error where
 *                         the kernel refuses: review h-attack31,
 *                         ha31-nolisten.sh), and a service binding the name
 *                         in that instant fails
 *   UNIX_LONG_NAME_LOOKED_UP  unixpeer.c  a name longer than sockaddr_un is
 *                         looked up: the probe cannot ask for it, a mechanism
 *                         failure where the kernel answers EINVAL (an audit)
 *   CACHED_HOLDER_UNPROVEN  unixdiag.c  the holder the cache names by pid is
 *                         not proven of the run again: a host process that got
 *                         the socket and the pid counts as the run (an audit;
 *                         listener_a_host_process_got_with_the_holders_pid_...)
 *   PINS_AFTER_ANSWER     call.c  a call's pins are closed after its answer:
 *                         a listener the agent closes at once stays bound by
 *                         the pin, and its rebind of the name fails
 *                         EADDRINUSE (review h-attack31, ha31-rebind.sh)
 *   THREAD_GONE_FAILS     nsjoin.c  a thread gone before its /proc status was
 *                         read makes its setns a mechanism failure, where the
 *                         call is abandoned (an audit)
 *   PROOF_UNWAITED        pins.c  a socket is "not pinned" while another
 *                         call's holder proof holds a duplicate it has not
 *                         yet counted: the run's own closed listener, kept
 *                         open by it, is called a host's (a false fail the
 *                         CI run found: 2 of 18 runs of ha28-closed.sh; no
 *                         test kills it reliably)
 *   SETNS_CHECKED_AFTER_SCAN  nsjoin.c  whether a setns's caller is alive is
 *                         looked at after the scan found no process of the run
 *                         in the namespace: an agent that interrupts its own
 *                         foreign join during the scan has it filed abandoned,
 *                         a pass (review h-attack32, ha32-nshide.sh)
 *   RUN_NAMED_LATE        nsjoin.c  the run is named through a setns's caller
 *                         after its call was found alive: a caller gone by
 *                         the scan makes its foreign join no-process
 *                         (invalid), a pass (foreign_join_whose_caller_dies_...)
 *   DONTROUTE_OPTION_OPEN filtertab.c  SO_DONTROUTE is not trapped: IPv4 then
 *                         takes a route without a gateway, on another link,
 *                         to the declared address (review h-attack35,
 *                         send_marked_dont_route_is_denied)
 *   DONTROUTE_FLAG_OPEN   call.c  MSG_DONTROUTE on a send, and SO_DONTROUTE
 *                         on a socket from outside the run, are not looked
 *                         at (the same review and test)
 *   REPORT_FD_FIRST       report.c  the descriptor's record is written before
 *                         the report file: a file write the agent made fail
 *                         leaves exit 3 behind a final pass on the channel it
 *                         cannot write (review h-attack34, failed_report_file_...)
 *   REPORT_PATH_RESOLVED  reportfile.c  every write of --report FILE looks its
 *                         directory up again: a root agent that swaps it for
 *                         a symbolic link has the report replace a host file
 *                         it cannot write (review h-attack34, report_file_...)
 *   CGROUP_NAMESPACE_OPEN filter.c  a root agent makes a cgroup namespace: in a
 *                         user namespace of its own it mounts cgroup2 over the
 *                         supervisor's cgroup and kills or freezes it, the
 *                         caller too (review h-attack34, root_agent_cannot_...)
 *   REPORT_LINK_FOLLOWED  report.c  a root supervisor follows links to
 *                         --report FILE's directory: one a root agent of an
 *                         earlier run left has this run's report replace a
 *                         host file (review h-attack36, later_run_follows_...)
 *   DECLARED_LINK_FOLLOWED rootfs.c  a --writable path is resolved through
 *                         such a link: the later run's root agent writes the
 *                         host directory it names (the same review and test)
 *   STDIO_DONTROUTE_KEPT  stdfds.c  a caller's TCP socket on 0-2 with
 *                         SO_DONTROUTE is given to the agent (tcp_socket_on_
 *                         stdin_marked_dont_route_refuses_the_run)
 *   PINNED_UNCHECKED      pins.c  every socket counts as one only the
 *                         supervisor's pins keep bound, as when any
 *                         descriptor of its own did: a host service's
 *                         abstract name is refused (ECONNREFUSED, allowed)
 *                         where it is denied, a pass (review h-attack29,
 *                         ha29-heldbyus.sh)
 *   UNIX_CLOSED_IS_PEER   unixpeer.c  a listener the run closed,
 *                         kept bound only by the supervisor's own pins (a
 *                         call judged again, or another call's), is a
 *                         host's: the run's connects meet a denial where the
 *                         kernel says ECONNREFUSED (review h-attack28,
 *                         ha28-closed.sh)
 *   FILE_FLAGS_BY_UID     filter.c  F_SETFL and FIONBIO are trapped for a
 *                         root agent only: under a uid-1000 supervisor with
 *                         CAP_SYS_ADMIN, whose run judges names, the agent
 *                         clears O_NONBLOCK and the supervisor's connect
 *                         waits in the kernel (review h-attack28,
 *                         ha28-capsys.sh)
 *   RUN_NS_BY_REAPER      runprocs.c  the run's pid namespace is named
 *                         through the reaper, which is not dumpable: a root
 *                         supervisor without CAP_SYS_PTRACE judges no setns
 *                         and no abstract name (review h-nsguest)
 *   SETNS_OPEN            filter.c  setns passes: a root agent enters a
 *                         container's user and network namespaces (its uid
 *                         owns the user namespace) and reaches the container's
 *                         loopback, or its mount namespace and writes there
 *   SETNS_OWNER_PAST_OURS nsjoin.c  the owner walk goes on past the
 *                         supervisor's own user namespace, where a root agent
 *                         lives: every namespace of the host is the run's
 *   SETNS_THREADS_LATE    nsjoin.c  the caller's threads are counted after the
 *                         descriptor was duplicated and judged: a thread that
 *                         swaps it and exits is not counted (review
 *                         h-attack26, ha26-swapexit.sh)
 *   SETNS_TABLE_UNCHECKED nsjoin.c  a join is allowed while another thread
 *                         shares the caller's descriptor table: it swaps the
 *                         descriptor between the look and the kernel's
 *   HOLDER_UNPINNED       unixdiag.c, runprocs.c  the holder of an abstract name's listener is
 *                         named by its pid again for the cookie: a run process
 *                         that died and whose pid a host worker took proves
 *                         the host's listener the run's (review h-attack23)
 *   UNIX_DIAG_OWN_NETNS   unixdiag.c  names are looked up in the supervisor's
 *                         network namespace: an agent that joined another one
 *                         connects there to a service by an abstract name its
 *                         own child holds here (review h-attack21)
 *   UNIX_PATH_RERESOLVED  unixpeer.c  the judged path is acted on by the agent's
 *                         own name, looked up again in the supervisor's mount
 *                         namespace and working directory: a socket of the
 *                         agent's private /dev/shm, or a relative name under
 *                         its own directory, is judged, and the host's one of
 *                         the same name reached (unix-shadowed-cwd)
 *   ROOT_CHROOT_KEPT      caps.c  a root agent keeps CAP_SYS_CHROOT: under a
 *                         supervisor in a chroot it climbs out to the mounts
 *                         the supervisor never saw (review h-attack19)
 *   STREAM_CONNECT_PORTLESS call.c  an IPv6 stream connect gets no port before its
 *                         device is read: a failed bind racing the judgement
 *                         binds it to another link, and a writer thread's
 *                         bytes leave by it between the handshake and the
 *                         check after the act (h-attack15's tcpwin)
 *   ROOT_STDIO_OPEN       rootfs.c  a directory, block device or read-only file on
 *                         0-2 reaches a root agent, which writes the host's
 *                         files through it (review h-attack18)
 *   ROOT_STACK_COVERED    rootfs.c  a mount stacked on the root is taken as
 *                         covered: ".." reaches it writable (review h-attack18)
 *   CWD_UNNAMED_KEPT      contain.c, rootfs.c  a working directory getcwd cannot
 *                         name stays in the caller's mounts (review h-attack18)
 *   IPC_RETRY_BLIND       spawn.c  a refused CLONE_NEWIPC (no CONFIG_IPC_NS) is asked
 *                         again without it even where SysV IPC exists: the
 *                         agent shares the host's segments
 *   HANDOVER_SHARED_ONLY  spawn.c  a refused unshare(CLONE_FILES) refuses the
 *                         run (capability-error) where the listener could be
 *                         taken with pidfd_getfd: every run in Docker's
 *                         default seccomp profile with CAP_SYS_PTRACE added
 *                         is a false red
 *   KEY_UPCALL_OPEN       filter.c  request_key with a callout string passes: the
 *                         kernel starts /sbin/request-key as full root outside
 *                         the run with strings the agent chose (review
 *                         h-attack12)
 *   UNSPECIFIED_AS_WRITTEN judge.c 0.0.0.0 and :: judged by the rules as written,
 *                         while the kernel sends them to this host (127.0.0.1,
 *                         ::1, the socket's bound address): a rule covering
 *                         them lets the agent reach an undeclared loopback
 *                         listener under --no-loopback (review h-attack9)
 *   MMSG_DENIAL_UNDONE    call.c  a sendmmsg with a message judged denied is filed
 *                         invalid or abandoned when something else ends it (a
 *                         first message that fails at send time, a closed
 *                         descriptor, not a socket, its notification dying):
 *                         the undeclared attempt hides behind a pass (reviews
 *                         h-attack9 and h-attack10)
 *   MMSG_LEN_UNSENT       mediate_msg.c  a sendmmsg message whose msg_len cannot be
 *                         written back (a read-only vector) is recorded as not
 *                         sent, while the kernel sent it (review h-attack6)
 *   NO_USERNS             contain.c  a uid-1000 supervisor stays in the initial
 *                         user namespace and runs the agent as its direct
 *                         child (subreaper, Landlock): before 6.12 the agent
 *                         signals it, and its descendants outlive the run
 *   USERNS_KEEPS_PTRACE   contain.c  in its own user namespace the supervisor
 *                         keeps every capability the namespace gave it,
 *                         CAP_SYS_PTRACE over the agent among them: Yama 2 and
 *                         a non-dumpable agent are read as if the host allowed it
 *   FALLBACK_KEEPS_ADMIN  contain.c  a supervisor that fell back to the subreaper
 *                         inside its user namespace (pid and mount namespaces
 *                         refused there) keeps CAP_SYS_ADMIN in it for the
 *                         whole run (review h-attack7)
 *   USERNS_UNTRIED        contain.c  no trial in a throwaway child: on a host that
 *                         lets a user namespace be made but refuses what it
 *                         gives (Ubuntu's AppArmor restriction) the supervisor
 *                         enters it first and falls back from inside, where
 *                         it must then stay
 *   TRIAL_EXIT_CODE       contain.c  the trial's answer read from its exit
 *                         status's 8 bits: a profile answering errno 256 is
 *                         read as success and the run is refused (h-attack8)
 *   TRIAL_HOLDS_SLOT      contain.c, spawn.c  ENOSPC believed at once: the
 *                         trial's namespaces, not yet freed, make a uid with
 *                         one namespace left fall back (h-attack8)
 *   SIGCHLD_INHERITED     main.c  a caller's ignored SIGCHLD is kept: the kernel
 *                         reaps the agent for us and the run hangs
 *   KILL_BY_PID           descendants.c  a run cut short kills its tree by pid number,
 *                         in every mode: once a pid namespace's reaper is dead,
 *                         the rest of the /proc snapshot names freed pids, and
 *                         processes outside the run that took them are
 *                         SIGKILLed (review h-attack34)
 *   RECEIVERS_CAPPED_COUNTED notify.c  a full receiver pool is only
 *                         counted: an agent that fills it and has a thread's
 *                         call withdrawn while it waits unreceived passes
 *                         with that call unseen (review h-attack39)
 *   CGROUP_REFUSED_ANY_UID nsjoin.c  a uid-1000 agent's clone that shares its
 *                         table and makes a cgroup namespace is refused as a
 *                         root agent's is (a false red)
 *   HELD_UNMARKED         call.c  a MSG_PROBE, MSG_MORE or UDP_CORK send is
 *                         reported as a delivery: the appliance's oracle waits
 *                         for bytes the kernel never sent (h-attack34)
 *   REPORT_DIR_MOVED_TRUSTED reportfile.c  FILE's directory, moved aside by the
 *                         agent, is still written: the caller reads the
 *                         agent's own file at FILE (review h-attack36)
 *   MULTICAST_JOIN_OPEN   filtertab.c  multicast joins, leaves, blocks and
 *                         filters pass untrapped: the IGMP and MLD reports
 *                         carry the group and source addresses the agent
 *                         chose to every host on the link (review h-attack38)
 *   TUN_ATTACH_OPEN       filtertab.c  TUNSETIFF and TUNSETQUEUE pass: an agent
 *                         attaches to a persistent TUN or TAP device its uid
 *                         owns and writes packets into the host's stack
 *                         (review h-attack38)
 *   STDIO_CHARDEV_OPEN    stdfds.c  a character device on 0-2 (a TUN the
 *                         caller attached) reaches the agent (review
 *                         h-attack38)
 *   TTY_INJECT_OPEN       filtertab.c  TIOCSTI and TIOCLINUX pass: an agent that
 *                         takes a terminal no session holds (TIOCSCTTY, or
 *                         an open without O_NOCTTY) types a command its
 *                         caller's next program runs (review h-attack40)
 *   HUNG_UP_TERMINAL_REFUSED stdfds.c  a hung-up terminal (isatty says no)
 *                         or /dev/kmsg on 0-2 refuses the run (the false red
 *                         of review h-attack40)
 *   NOFILE_KEPT           main.c  the supervisor keeps its caller's soft
 *                         RLIMIT_NOFILE: 1100 concurrent slow connects run it
 *                         out of descriptors (EMFILE: capability-error)
 *   HOST_CAPS_KEPT        caps.c  a root agent keeps SYS_TIME, SYSLOG,
 *                         SYS_NICE, SYS_RESOURCE, IPC_LOCK, WAKE_ALARM and
 *                         BLOCK_SUSPEND: the host's clock and kernel log are
 *                         its to change (review h-attack39)
 *   PTY_MASTER_KEPT       stdfds.c  a pty master on 0-2 counts as a terminal:
 *                         the agent's writes are input to the caller's next
 *                         shell on the slave (review h-attack41)
 *   LEASE_OPEN            filter.c  F_SETLEASE and F_SETDELEG pass: a read
 *                         lease or delegation on a file of the agent's uid
 *                         stalls its writers (h-attack41, h-attack43)
 *   WITHDRAWN_UNCOUNTED   report.c  the ids no receiver took are not counted:
 *                         receivers.withdrawn_unseen stays 0 while calls the
 *                         kernel withdrew went unseen
 *   SENTINELS_ABSENT      spawn.c  the reaper makes no bracketing calls:
 *                         calls withdrawn before the first or after the
 *                         last id taken go uncounted (id_range "open")
 *   SENTINEL_COPIES_COUNTED report.c  the id range is closed by counting
 *                         the reaper's calls received: one restarted after a
 *                         stop from outside leaves it "open" (h-attack44)
 *   SORT_PROBE_DENIED     call.c  glibc's address-sorting probe (a UDP
 *                         connect to port 0) is a denial: a false red for
 *                         every name of two addresses (h-realprog)
 *   FCHROOT_OPEN          filter.c, filterload.c  fchroot (Linux 7.3) passes: a root
 *                         agent's root on failfs makes the supervisor's
 *                         lookup of its AF_UNIX names fail, a mechanism
 *                         failure, and it chooses capability-error over its
 *                         own fail (h-attack47, h-attack48)
 *   CWD_NAME_TRUSTED      unixpath.c  a root agent's working directory is
 *                         taken to be where its name leads: with its cwd
 *                         outside its root (a chroot in its user namespace,
 *                         a detached mount) a relative name reached a host
 *                         socket unjudged, pass where fail was due
 *                         (h-attack48, h-attack49)
 *   CWD_DEPTH_TRUSTED     unixpath.c  a working directory whose name is too
 *                         long to read is a mechanism failure: the agent's
 *                         choice of capability-error (h-attack50)
 *   CWD_WALK_BY_NAME      unixpath.c  a relative name is looked up whole from
 *                         the root, through its directory's name, and the
 *                         lookup's error is the kernel's answer: an overmount
 *                         between the directory's proof and that lookup hides
 *                         a connect to a host's socket as ENOENT, recorded
 *                         allowed (h-attack50 finding 3)
 *   CWD_ESCAPE_ERRNO_TRUSTED  unixpath.c  a relative name that leaves its
 *                         directory (".." above it) is looked up through the
 *                         directory's name and its error trusted: the same
 *                         overmount hides it
 *   SORT_PROBE_PERFORMED  mediate.c  the sort probe is made on the duplicate
 *                         and answered with the denial errno, recorded
 *                         neutralized: the agent's UDP socket is connected
 *                         to the undeclared peer and its nameless send
 *                         leaves (h-attack46; no test kills it yet)
 *   SCOPED_EAGAIN_ANSWERED  unixpath.c  a confined lookup still raced after
 *                         its retries is answered EAGAIN, recorded allowed:
 *                         renames beside a walk across stacked mounts made a
 *                         connect to a host's socket a pass (h-attack51)
 *   PROCFS_ERRNO_ANSWERED  unixpath.c  a failed lookup is the kernel's answer
 *                         without the walk as the kernel's (through the
 *                         agent's /proc: "self", a magic link, /dev/fd; or a
 *                         protected link we may not follow), recorded
 *                         allowed, where the kernel reached a host's socket
 *                         (h-attack51, h-attack52)
 *   PROTECTED_LINK_REFUSED  unixpath.c  a protected link the caller may follow
 *                         and we may not is denied: a false red for its own
 *                         socket through its own link (h-attack52)
 *   WALK_COMPLETE_TRUSTED  unixpath.c  a walk that now finds the whole name
 *                         trusts the first lookup's failure: a link flipped
 *                         between /proc/self/fd/N and a host directory hides
 *                         connects to a host's socket (h-attack52)
 *   CHROOT_PREFIX_KEPT    unixpath.c  the working directory's name keeps the
 *                         chroot's own: every relative name of a chrooted
 *                         program is denied (h-attack51, a false red)
 *   PERFORMED_CREDS_OWN   mediate_msg.c  a performed AF_UNIX send carries the
 *                         supervisor's credentials: a receiver with
 *                         SO_PASSCRED in the run reads pid 0 (h-realprog2)
 *   CREDS_APPENDED        msghdr.c  the caller's SCM_CREDENTIALS follow the
 *                         agent's control bytes: a cut header in their
 *                         ignored tail is read whole, SCM_RIGHTS of the
 *                         supervisor's descriptors 28, 0, 1, 2 (h-attack53)
 *   CAPS_STUCK_IGNORED    notify.c  a receiver whose CAP_SYS_ADMIN, raised for
 *                         a send naming its caller, could not be lowered
 *                         again goes on performing calls with it
 *   SENDTO_CREDS_OWN      mediate.c  a performed AF_UNIX sendto with a name
 *                         carries the supervisor's credentials: pid 0, uid 0
 *                         to a uid-1000 agent's receiver (h-attack54)
 *   CREDS_EPERM_RETRY     mediate_msg.c  a send naming its caller refused EPERM by the
 *                         kernel (unix_may_send) is sent again with ours: a
 *                         receiver disconnected meanwhile reads uid 0
 *                         (h-attack54)
 *   ROOT_OVERMOUNT_IGNORED  unixpath.c  the walk's ".." at the thread's root
 *                         stays there though something is mounted on it
 *                         (the kernel's steps into the mount): a name through
 *                         the agent's own bind over "/" trusted (h-attack55)
 *   MOUNT_CHANGE_TRUSTED  unixpath.c  the walk's answer stands though the
 *                         agent's mount table changed while we looked: a
 *                         bind over "/" made and removed again kept ".." on
 *                         the root, ENOENT trusted (h-attack56)
 *   CREDS_READ_ERROR_OURS  mediate_msg.c  the caller's ids that could not be
 *                         read (EMFILE) send ours: pid 0, uid 0 to a
 *                         uid-1000 agent's receiver (h-attack56)
 *   SOCKETPAIR_OPEN       filter.c  socketpair() of any family passes: the
 *                         family's create asks modprobe for
 *                         "net-pf-2-proto-P-type-T", P the agent's byte
 *                         (h-attack57)
 *   LDISC_AUTOLOAD_OPEN   filtertab.c  TIOCSETD passes: an unregistered line
 *                         discipline N asks modprobe for "tty-ldisc-N"
 *                         (h-attack57)
 *   LOOKUP_EMFILE_WALKED  unixpath.c  our lookup refused EMFILE (our own
 *                         descriptors) is walked and denied unix-peer, not
 *                         a mechanism failure (h-attack56)
 *   OVERMOUNT_ASKED_ONCE  unixpath.c  whether the agent's root is overmounted
 *                         is asked at the walk's first ".." only: a root in
 *                         another mount namespace whose mounts a child
 *                         flips, which the mount watch does not see
 *                         (h-attack59)
 *   FIXED_AUTOLOAD_OPEN   filtertab.c  the VLAN and bridge ioctls pass: modprobe
 *                         started for "8021q" and "bridge" when the agent
 *                         chooses (h-attack59)
 *   CREDS_RAISE_FAILED_OURS  mediate_msg.c  a send naming its caller whose
 *                         CAP_SYS_ADMIN could not be raised is sent again
 *                         with ours: pid 0, uid 0 (h-attack59)
 *   KEY_PAYLOAD_OPEN      filter.c  add_key with a payload passes: an X.509
 *                         certificate's OIDs have modprobe started for
 *                         "crypto-HASH" from a table the agent picks from
 *                         (h-attack61; the DLCI ioctls are under
 *                         FIXED_AUTOLOAD_OPEN)
 *   WALK_DIR_CHANGE_IGNORED  unixpath.c  the walk's answer stands though a
 *                         directory it stood in changed meanwhile: a
 *                         directory exchanged with one without the name
 *                         (h-attack62)
 *   FOREIGN_ROOT_TRUSTED  unixpath.c  a root or start on another mount
 *                         namespace's tree is walked and trusted, where the
 *                         mount watch cannot see its mounts (h-attack62)
 *   INOTIFY_REFUSAL_DENIED  unixpath.c  uid 0's inotify watches used up deny
 *                         the name (unix-peer) instead of a mechanism
 *                         failure: a root agent chose another run's bucket
 *                         (h-attack63)
 *   GONE_WALK_DENIED      unixpath.c  a thread that died while its walk waited
 *                         for an instance is denied unix-peer, not abandoned
 *                         (h-attack64)
 *   LISTENER_ERRNO_MAPPED filterload.c  libseccomp loads the filter: a listener
 *                         already in the chain (a supervisor inside another)
 *                         reaches the probe as ECANCELED, no hint naming it
 *                         (the style review's SCMP_FLTATR_API_SYSRAWRC item)
 *   RTHDR2292_DENIED      filtertab.c  setsockopt IPV6_2292RTHDR, a receive
 *                         flag, denied as a source route (h-attack66's false
 *                         red)
 *   CLOSED_SOCKETS_SILENT stdfds.c  sockets above descriptor 2, closed before
 *                         the agent runs, are not named on stderr (socket
 *                         activation failed unexplained, h-realprog3)
 *   FALLBACK_ANY_ERRNO    contain.c  every refusal of the agent's namespaces
 *                         is the host's: ENOSPC or EAGAIN another run's agent
 *                         caused picks the subreaper (h-attack65)
 *   MAP_TAKEN_TRUSTED     contain.c  an id map another process of our uid
 *                         wrote first reads as the host's EPERM: the trial
 *                         picks the subreaper (h-attack67)
 *   FSIZE_EXPORT_TRUSTED  filterload.c  the filter is exported through a memfd
 *                         under a finite RLIMIT_FSIZE: cut short, refused by
 *                         the kernel (h-attack67)
 *   CWD_REFUSAL_HOSTS     contain.c  the child's chdir to the run's working
 *                         directory refused (a process of the uid shut a
 *                         directory above it) reads as the host refusing
 *                         namespaces: the run falls back (h-attack68)
 *   OWN_USERNS_HOSTS      contain.c  a refusal met in a user namespace our
 *                         uid owns (a zero limit another process of the uid
 *                         wrote, h-attack68; a mount it made over / or over a
 *                         file of /proc, EPERM, h-attack69) is the host's:
 *                         the run falls back
 *   USERNS_ABSENT_OURS    contain.c  /proc showing no user namespace (a
 *                         kernel without CONFIG_USER_NS) reads as one our uid
 *                         owns: every uid-1000 run there is refused (f896633;
 *                         cwd-shut and inherit-fd on min-6.1)
 *   USERNS_ABSENT_UNPROVEN contain.c  a /proc/self/ns without "user" is
 *                         believed on any file system: a process of the uid
 *                         that mounts a directory over it in a namespace it
 *                         owns makes its own refusals the host's
 *   X32_POINTER_LOW_WORD  filter.c  x32's request_key, add_key and keyctl KDF
 *                         rules compare a pointer's low word only (libseccomp
 *                         counts x32 as 32-bit): a pointer at 0x100000000
 *                         starts the key upcall or modprobe (h-attack70)
 *   NS_DIR_THROUGH_MOUNTS contain.c  /proc/self/ns is looked up through the
 *                         mounts on the way: a procfs directory without
 *                         "user" bound over /proc/PID/ns, or a symlink over
 *                         /proc/self, passes for the kernel's (h-attack72)
 *   LOCALNET_LOOPBACK_TRUSTED sockrule.c  an IPv4 loopback listener is
 *                         local whatever route_localnet says: a neighbour
 *                         connects in where it is 1 (h-attack70)
 *   MKNOD_ONLY            devnodes.c  a namespace that may not make device
 *                         nodes refuses the root agent: a rootless
 *                         container's root was capability-error on every
 *                         run (h-attack72)
 *   LOCALNET_FIRST_BYTE mediate_sock.c  route_localnet is set only where its
 *                         value starts with '1': at 2 or -1 (the kernel
 *                         tests the int for truth) a neighbour connects in
 *                         (h-attack73)
 *   LOCALNET_DOT_SKIPPED mediate_sock.c  every conf entry whose name starts
 *                         with '.' is skipped: an interface named .veth
 *                         with route_localnet 1 lets a neighbour in
 *                         (h-attack73)
 *   PROC_HARDWARE_WRITABLE rootfs.c  only /proc/sys and /proc/sysrq-trigger
 *                         are bound read-only: a root agent writes a PCI
 *                         device's config space or an interrupt's CPUs
 *                         through its own /proc (h-attack74)
 *   MISC_MINOR_ANY        devnodes.c  any minor of major 10 passes for
 *                         /dev/userfaultfd: a caller's /dev/fuse under that
 *                         name reaches the agent (h-attack74)
 *   REAPER_SHARES_SESSION spawn.c  the pid namespace's reaper stays in the
 *                         caller's session: a root agent writes 19 to
 *                         /proc/1/autogroup and the caller's session runs
 *                         at nice 19 after the run (h-attack75)
 * This header is documentation only; nothing includes it. */
