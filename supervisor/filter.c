#include "filter.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/btrfs.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fault.h"
#include "filtertab.h"

/* The calls that carry a destination, trapped on every ABI. */
static const char *const sending[] = {"connect", "sendto", "sendmsg", "sendmmsg"};
/* Calls that reach into another process (its memory, its descriptors, its
 * execution): trapped whole on every ABI and refused as cross-process. */
static const char *const cross_process[] = {"ptrace", "process_vm_readv", "process_vm_writev",
					    "pidfd_getfd", "kcmp"};
/* io_uring's own operations never pass the filter: every entry point to a
 * ring, including a ring the agent did not create (inherited, or received
 * with SCM_RIGHTS), is trapped and neutralized. */
static const char *const io_uring[] = {"io_uring_setup", "io_uring_enter", "io_uring_register"};
/* On the foreign ABIs everything that makes or shapes a socket is trapped
 * too, to be denied: a raw socket or a source route set up through i386
 * would steer the native calls that follow. */
static const char *const foreign_only[] = {"socketcall", "socket", "setsockopt", "listen"};

/* A root agent's setuid and setgid bits (reviews h-attack19, h-attack20):
 * its copies of the host's mounts are nosuid, the host's are not, so a
 * file it makes setuid on a declared path or on a file its caller gave it
 * is setuid-root outside, and one setgid to a group it joined (disk,
 * shadow, docker) grants that group. Each call that sets a mode, with the
 * register holding it: notified when S_ISUID or S_ISGID is in the low 32
 * bits (mode_t), and refused there (a directory's g+s too: the filter
 * cannot tell, and inheritance needs no chmod). open and
 * openat only when they create (O_CREAT, or O_TMPFILE's bits): without
 * them the kernel ignores the mode. openat2 keeps its mode in memory:
 * trapped whole, answered ENOSYS, and libc falls back to openat. */
static const struct {
	const char *name;
	unsigned mode_arg, flags_arg; /* flags_arg 0: the call always creates */
} setuid_modes[] = {{"chmod", 1, 0},     {"fchmod", 1, 0}, {"fchmodat", 2, 0},
		    {"fchmodat2", 2, 0}, {"creat", 1, 0},  {"mknod", 1, 0},
		    {"mknodat", 2, 0},   {"open", 2, 1},   {"openat", 3, 2}};

#define N(a) (sizeof(a) / sizeof((a)[0]))
/* An int parameter is the low 32 bits of its register (the kernel's
 * SYSCALL_DEFINE casts it): every comparison of one masks the rest away, so
 * high bits can neither dodge a rule nor make one match. libseccomp's
 * SCMP_A*_32 would only cast the compared value, not mask the argument. */
#define INT_MASK 0xffffffffull
#define INT_EQ(arg, v) SCMP_CMP((arg), SCMP_CMP_MASKED_EQ, INT_MASK, (scmp_datum_t)(uint32_t)(v))
/* socket()'s type: the kernel takes type & SOCK_TYPE_MASK and refuses any
 * other bit but SOCK_NONBLOCK | SOCK_CLOEXEC. */
#define SOCK_TYPE_BITS 0xfu

#ifdef SV_MUTANT_UNMASKED_COMPARES
/* MUTANT unmasked-compares: the whole register is compared, so an int with
 * high bits set dodges every rule. */
#undef INT_EQ
#define INT_EQ(arg, v) SCMP_CMP((arg), SCMP_CMP_EQ, (scmp_datum_t)(uint32_t)(v))
#endif

static int notify(scmp_filter_ctx ctx, const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);

	if (nr == __NR_SCMP_ERROR)
		return -ENOSYS;
	/* On x86 libseccomp also adds socketcall(SYS_CONNECT, ...) for each
	 * socket call, so the multiplexer cannot bypass the rule. */
	return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
}

static int notify_all(scmp_filter_ctx ctx, const char *const *names, size_t n)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = notify(ctx, names[i]);
	return rc;
}

/* Notifies name when its argument arg, the whole 64-bit register, is not
 * 0 (a pid or a pointer: any high bit makes it another one). */
static int notify_if_nonzero(scmp_filter_ctx ctx, const char *name, unsigned arg)
{
	return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, seccomp_syscall_resolve_name(name), 1,
				SCMP_CMP(arg, SCMP_CMP_NE, 0));
}

/* Ioctls that make a copy of inodes with their modes and attributes: a
 * btrfs snapshot of the host's file system under a declared path brings
 * back every setuid and capable program there, new inodes that the
 * start's walk never bound (review h-attack24). The kernel reads the
 * command's low 32 bits. */
static const uint32_t snapshot_ioctls[] = {BTRFS_IOC_SNAP_CREATE, BTRFS_IOC_SNAP_CREATE_V2};

/* A root agent's new cgroup namespace (unshare or clone with
 * CLONE_NEWCGROUP; clone3 is neutralized): inside a user namespace of its
 * own it has CAP_SYS_ADMIN over a cgroup2 mount whose root is the cgroup the
 * supervisor started in, and its uid 0 owns those files, so cgroup.kill and
 * cgroup.freeze reach the supervisor, its caller and everything beside them
 * (review h-attack34). Without a cgroup namespace of its own, mounting
 * cgroup2 needs CAP_SYS_ADMIN over the user namespace that owns the run's,
 * which it never has. A uid-1000 agent owns none of those files, and
 * Landlock refuses its mount(). */
static int add_cgroup_namespace(scmp_filter_ctx ctx)
{
	static const char *const calls[] = {"unshare", "clone"};
	int rc = 0;

#ifdef SV_MUTANT_CGROUP_NAMESPACE_OPEN
	/* MUTANT cgroup-namespace-open: a root agent makes cgroup namespaces,
	 * as before review h-attack34. */
	(void)calls;
	(void)ctx;
	return 0;
#endif
	for (size_t i = 0; rc == 0 && i < N(calls); i++)
		rc = seccomp_rule_add(
		    ctx, SCMP_ACT_NOTIFY, seccomp_syscall_resolve_name(calls[i]), 1,
		    SCMP_CMP(0, SCMP_CMP_MASKED_EQ, CLONE_NEWCGROUP, CLONE_NEWCGROUP));
	return rc;
}

/* The setuid rules (setuid_modes), openat2 and the snapshot ioctls, for a
 * root agent (SV_FILTER_SETID). */
static int add_setuid(scmp_filter_ctx ctx)
{
	/* O_TMPFILE is __O_TMPFILE | O_DIRECTORY: its own bit is enough. */
	static const uint32_t creating[] = {O_CREAT, 020000000 /* __O_TMPFILE */};
	static const uint32_t bits[] = {S_ISUID, S_ISGID};
	int rc = 0;

#ifdef SV_MUTANT_ROOT_SETUID_OPEN
	/* MUTANT root-setuid-open: a root agent sets S_ISUID and S_ISGID on the
	 * host's files, as before review h-attack19. */
	(void)creating;
	(void)bits;
	(void)setuid_modes;
	return 0;
#endif
	for (size_t i = 0; rc == 0 && i < N(setuid_modes) * N(bits); i++) {
		unsigned m = setuid_modes[i / N(bits)].mode_arg;
		unsigned fl = setuid_modes[i / N(bits)].flags_arg;
		int nr = seccomp_syscall_resolve_name(setuid_modes[i / N(bits)].name);
		uint32_t bit = bits[i % N(bits)];
		struct scmp_arg_cmp mode = SCMP_CMP(m, SCMP_CMP_MASKED_EQ, bit, bit);

		/* fchmodat2 (6.6) may be newer than libseccomp's table. */
		if (nr == __NR_SCMP_ERROR)
			continue;
		if (!fl) {
			rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1, mode);
			continue;
		}
		for (size_t f = 0; rc == 0 && f < N(creating); f++)
			rc = seccomp_rule_add(
			    ctx, SCMP_ACT_NOTIFY, nr, 2, mode,
			    SCMP_CMP(fl, SCMP_CMP_MASKED_EQ, creating[f], creating[f]));
	}
	if (rc == 0)
		rc = notify(ctx, "openat2");
#ifndef SV_MUTANT_SNAPSHOT_OPEN
	/* MUTANT snapshot-open: a root agent snapshots the host's btrfs
	 * under a declared path, as before review h-attack24. */
	for (size_t i = 0; rc == 0 && i < N(snapshot_ioctls); i++)
		rc = seccomp_rule_add(
		    ctx, SCMP_ACT_NOTIFY, SCMP_SYS(ioctl), 1,
		    SCMP_CMP(1, SCMP_CMP_MASKED_EQ, 0xffffffffu, snapshot_ioctls[i]));
#else
	(void)snapshot_ioctls;
#endif
	return rc;
}

/* The calls that can clear a description's O_NONBLOCK, for a run whose
 * AF_UNIX names are judged: the supervisor's nonblocking connect shares
 * the description with the agent (unixpeer.c, review h-attack27). */
static int add_file_flags(scmp_filter_ctx ctx)
{
	int rc = 0;

#ifndef SV_MUTANT_NONBLOCK_CLEAR_OPEN
	/* MUTANT nonblock-clear-open: the agent clears O_NONBLOCK while the
	 * supervisor's connect runs on the description it shares (review
	 * h-attack27). Calls that can clear a description's O_NONBLOCK:
	 * F_SETFL without it (the kernel reads the command and flags' low 32
	 * bits), and FIONBIO (its value is in memory: every one). Performed
	 * by the supervisor, one at a time with its own nonblocking acts
	 * (unixpeer.c). fcntl64 is i386's. */
	for (int i = 0; rc == 0 && i < 2; i++) {
		int nr = seccomp_syscall_resolve_name(i ? "fcntl64" : "fcntl");

		if (nr != __NR_SCMP_ERROR)
			rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 2, INT_EQ(1, F_SETFL),
					      SCMP_CMP(2, SCMP_CMP_MASKED_EQ, O_NONBLOCK, 0));
	}
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(ioctl), 1, INT_EQ(1, FIONBIO));
#else
	(void)ctx;
#endif
	return rc;
}

/* A pointer argument compared against 0 (request_key's callout, add_key's
 * payload, keyctl's KDF parameters). libseccomp builds the rules of a
 * 32-bit architecture over the low word of each argument only
 * (_db_rule_gen_32), and it counts x32 as one (arch-x32.c, ARCH_SIZE_32),
 * but x32's entries for these calls are the native handlers, which read all
 * 64 bits: a pointer at 0x100000000 compares as 0 and never notified
 * (review h-attack70: the stand-in helpers sent the agent's strings to the
 * undeclared sink, pass, on 5.10 and 7.3). Where the context's compares see
 * only the low word of a wider pointer (x32), the call notifies whole and
 * the supervisor compares the register (mediate.c); elsewhere the filter
 * does, the whole register. */
static int notify_if_pointer(scmp_filter_ctx ctx, const char *name, unsigned arg, int low_word)
{
	if (low_word)
		return notify(ctx, name);
	return notify_if_nonzero(ctx, name, arg);
}

/* The rules every ABI shares. low_word: the context's argument compares
 * see only the low 32 bits of a register whose kernel handler reads 64
 * (x32; notify_if_pointer). */
static int add_common(scmp_filter_ctx ctx, int low_word)
{
	int rc = notify_all(ctx, sending, N(sending));

#ifdef SV_MUTANT_IO_URING_OPEN
	/* MUTANT io-uring-open: no io_uring call is trapped; a ring the agent
	 * sets up connects past the filter (with io_uring_enter still trapped
	 * the ring was useless, and the mutant survived the guest: stop 44). */
	(void)io_uring;
#else
	if (rc == 0)
		rc = notify(ctx, "io_uring_setup");
#ifdef SV_MUTANT_IO_URING_ENTER_OPEN
	/* MUTANT io-uring-enter-open: an inherited or received ring works. */
	(void)io_uring;
#else
	if (rc == 0)
		rc = notify_all(ctx, io_uring + 1, N(io_uring) - 1);
#endif
#endif
#ifndef SV_MUTANT_CLONE3_OPEN
#ifndef SV_MUTANT_CHECKPOINT_RESTORE_KEPT
#ifndef SV_MUTANT_OLD_DESCENDANT_KILL
	/* clone3 takes its flags in memory, which a filter cannot read and a
	 * supervisor cannot judge without a race (the agent may rewrite them
	 * after the read), and two of them end containment: CLONE_INTO_CGROUP
	 * puts the child in any cgroup whose cgroup.procs the agent may write
	 * (a cgroup delegated to its uid: out of reach of its supervisor's
	 * cgroup.kill and cgroup.freeze, and Landlock has no hook there), and
	 * set_tid chooses pids. Answered ENOSYS, as Docker's default profile
	 * does: glibc and runtimes then fall back to clone, whose flags are a
	 * register. The old mutants reproduce the tree before this, when
	 * clone3 passed. */
	if (rc == 0)
		rc = notify(ctx, "clone3");
#endif
#endif
#endif
#ifdef SV_MUTANT_CROSS_PROCESS_OPEN
	/* MUTANT cross-process-open: ptrace and friends are not trapped. */
	(void)cross_process;
#else
	if (rc == 0)
		rc = notify_all(ctx, cross_process, N(cross_process));
#endif
#ifndef SV_MUTANT_PRLIMIT_OPEN
	/* prlimit64 of another process (the agent has our uid, so the kernel
	 * lets it lower our RLIMIT_CPU and have us killed without a signal of
	 * its own). pid 0, glibc's setrlimit and getrlimit, never notifies.
	 * An unmasked compare on purpose: a register whose low 32 bits are 0
	 * but high bits are not notifies too and is answered as self. */
	if (rc == 0)
		rc = notify_if_nonzero(ctx, "prlimit64", 0);
#endif
#ifndef SV_MUTANT_SETNS_OPEN
	/* setns: a namespace that exists already, which need not be the
	 * run's (a container's network or mount namespace whose user
	 * namespace the agent's uid owns). Judged (nsjoin.c); a descriptor
	 * argument, so also the clones that would let another process swap
	 * it under the judgment: CLONE_FILES without CLONE_THREAD (legacy
	 * clone reads its flags' low 32 bits; clone3 is neutralized). */
	if (rc == 0)
		rc = notify(ctx, "setns");
	if (rc == 0)
		rc = seccomp_rule_add(
		    ctx, SCMP_ACT_NOTIFY, seccomp_syscall_resolve_name("clone"), 1,
		    SCMP_CMP(0, SCMP_CMP_MASKED_EQ, CLONE_FILES | CLONE_THREAD, CLONE_FILES));
#endif
	size_t n_ioctls;
	const struct sv_filtertab_ioctl *ioctls = sv_filtertab_ioctls(&n_ioctls);

	for (size_t i = 0; rc == 0 && i < n_ioctls; i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, seccomp_syscall_resolve_name("ioctl"),
				      1, INT_EQ(1, ioctls[i].cmd));
#ifndef SV_MUTANT_LEASE_OPEN
	/* MUTANT lease-open: the agent takes leases, as before review
	 * h-attack41. A lease on a file its uid owns needs no CAP_LEASE (a
	 * root agent owns the host's files; a uid-1000 agent its caller's),
	 * and a read-only descriptor is enough for a read lease: every
	 * process that then opens the file for writing waits up to
	 * lease-break-time (ha41-lease.sh: 18 s a write; ha42-stall.sh:
	 * uid 1000 on its caller's files). */
	for (int i = 0; rc == 0 && i < 4; i++) {
		int nr = seccomp_syscall_resolve_name(i % 2 ? "fcntl64" : "fcntl");

		/* F_SETDELEG (Linux 6.19) is the same lease machinery on a file
		 * or a directory, under the same ownership rule: a create in a
		 * delegated directory waits as a write to a leased file does
		 * (review h-attack43: 8 s for a root service on 7.3). */
		if (nr != __NR_SCMP_ERROR)
			rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
					      INT_EQ(1, i < 2 ? F_SETLEASE : SV_F_SETDELEG));
	}
#endif
#ifndef SV_MUTANT_KEY_UPCALL_OPEN
	/* request_key with a callout string: finding no such key, the kernel
	 * starts /sbin/request-key as a usermode helper (full root, the
	 * initial namespaces, no filter, outside the tree) with the type,
	 * description and callout the agent chose; keyutils' dns_resolver
	 * turns them into a DNS query (review h-attack12). Without a callout
	 * the kernel never constructs a key (ENOKEY), so lookups stay in BPF.
	 * A pointer: the whole register is compared. */
	if (rc == 0)
		rc = notify_if_pointer(ctx, "request_key", 2, low_word);
#endif
#ifndef SV_MUTANT_MODULE_NAME_OPEN
	/* keyctl operations that allocate a crypto algorithm by a name the
	 * agent gives: KEYCTL_DH_COMPUTE with KDF parameters (its hash) and
	 * the KEYCTL_PKEY_* operations (the info string's hash). An unknown
	 * name makes the kernel run kernel.modprobe, as full root outside the
	 * run, with "crypto-NAME" (review h-attack13). */
	/* KDF parameters are a pointer (notify_if_pointer): on x32 every
	 * KEYCTL_DH_COMPUTE notifies and the supervisor looks at the register. */
	if (rc == 0 && low_word)
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, seccomp_syscall_resolve_name("keyctl"),
				      1, INT_EQ(0, 23));
	else if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, seccomp_syscall_resolve_name("keyctl"),
				      2, INT_EQ(0, 23), SCMP_A4(SCMP_CMP_NE, 0));
	for (int op = 24; rc == 0 && op <= 28; op++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, seccomp_syscall_resolve_name("keyctl"),
				      1, INT_EQ(0, op));
#endif
#ifndef SV_MUTANT_KEY_PAYLOAD_OPEN
	/* add_key with a payload: the asymmetric type parses an X.509
	 * certificate and allocates the hash and signature algorithms its
	 * OIDs name (md4, sha3-*, streebog*, sm3, ecrdsa, ecdsa-nist-*,
	 * pkcs1pad(rsa,HASH), ...), so "crypto-NAME" from a table of about
	 * twenty the agent picks from, at every call where the module is
	 * missing; the encrypted type allocates cbc(aes) (review
	 * h-attack61). The type is a string in memory the agent may rewrite
	 * after any read of ours: every payload. A keyring (no payload) is
	 * still made. A pointer: the whole register is compared. */
	if (rc == 0)
		rc = notify_if_pointer(ctx, "add_key", 2, low_word);
#endif
	return rc;
}

#ifdef SV_MUTANT_SOCKET_DENY_LIST
/* MUTANT socket-deny-list: only the known-dangerous kinds notify (the old
 * raw and packet rules); every other protocol and family is created. */
static int add_socketpair(scmp_filter_ctx ctx)
{
	(void)ctx;
	return 0;
}

static int add_socket(scmp_filter_ctx ctx)
{
	const int nr = SCMP_SYS(socket);
	int rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1, INT_EQ(0, AF_PACKET));

	for (int dom = 0; rc == 0 && dom < 2; dom++) {
		int family = dom ? AF_INET6 : AF_INET;

		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 2, INT_EQ(0, family),
				      SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_RAW));
	}
	return rc;
}
#else
/* The values of a 32-bit field (under mask) outside the sorted set keep,
 * as the prefixes that cover them: each is one masked compare. Calls back
 * add(ctx, arg, prefix_mask, value) per prefix; returns 0 or -errno. */
struct outside {
	scmp_filter_ctx ctx;
	int nr;
	unsigned nfixed;
	struct scmp_arg_cmp fixed[2]; /* conditions shared by every rule */
	unsigned arg;
};

static int add_prefix(const struct outside *o, uint32_t mask, uint32_t value)
{
	struct scmp_arg_cmp cmp[3];

	for (unsigned i = 0; i < o->nfixed; i++)
		cmp[i] = o->fixed[i];
	cmp[o->nfixed] = SCMP_CMP(o->arg, SCMP_CMP_MASKED_EQ, (scmp_datum_t)mask, value);
	return seccomp_rule_add_array(o->ctx, SCMP_ACT_NOTIFY, o->nr, o->nfixed + 1, cmp);
}

/* Covers [lo, hi] (inside the field mask) with aligned power-of-two blocks:
 * the classic range-to-prefix split, at most 2 * 32 blocks per range. */
static int add_range(const struct outside *o, uint32_t field, uint64_t lo, uint64_t hi)
{
	int rc = 0;

	while (rc == 0 && lo <= hi) {
		uint64_t size = 1;

		/* The largest block aligned at lo that fits in [lo, hi]. */
		while ((lo & (size * 2 - 1)) == 0 && lo + size * 2 - 1 <= hi && size * 2 <= field)
			size *= 2;
		rc = add_prefix(o, field & ~(uint32_t)(size - 1), (uint32_t)lo);
		lo += size;
	}
	return rc;
}

static int notify_outside(const struct outside *o, uint32_t field, const uint32_t *keep, size_t n)
{
	uint64_t lo = 0;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (keep[i] > lo)
			rc = add_range(o, field, lo, keep[i] - 1);
		lo = (uint64_t)keep[i] + 1;
	}
	if (rc == 0 && lo <= field)
		rc = add_range(o, field, lo, field);
	return rc;
}

/* socket() is an allow-list. BPF lets through, without a notification, the
 * kinds the supervisor mediates and that need no further look: AF_UNIX of
 * any type, and TCP and UDP over IPv4 and IPv6 (protocol 0 or the named
 * one). Every other (family, type, protocol) notifies, and the supervisor
 * decides (sv_mediate_socket): AF_NETLINK by protocol, everything else
 * refused and recorded. libseccomp cannot say "allow these, notify the
 * rest" under an allow-by-default filter, so the rest is spelled out as the
 * masked prefixes of the complement: exact in the low 32 bits, blind to the
 * high ones, as the kernel is. */
static int add_socket(scmp_filter_ctx ctx)
{
	static const uint32_t families[] = {AF_UNIX, AF_INET, AF_INET6};
	static const uint32_t types[] = {SOCK_STREAM, SOCK_DGRAM};
	static const uint32_t tcp[] = {0, IPPROTO_TCP}, udp[] = {0, IPPROTO_UDP};
	struct outside o = {.ctx = ctx, .nr = SCMP_SYS(socket), .arg = 0};
	int rc = notify_outside(&o, UINT32_MAX, families, N(families));

	for (int dom = 0; rc == 0 && dom < 2; dom++) {
		uint32_t family = dom ? AF_INET6 : AF_INET;

		o.arg = 1;
		o.nfixed = 1;
		o.fixed[0] = INT_EQ(0, family);
		rc = notify_outside(&o, SOCK_TYPE_BITS, types, N(types));
		o.arg = 2;
		o.nfixed = 2;
		o.fixed[1] = SCMP_A1(SCMP_CMP_MASKED_EQ, SOCK_TYPE_BITS, SOCK_STREAM);
		if (rc == 0)
			rc = notify_outside(&o, UINT32_MAX, tcp, N(tcp));
		o.fixed[1] = SCMP_A1(SCMP_CMP_MASKED_EQ, SOCK_TYPE_BITS, SOCK_DGRAM);
		if (rc == 0)
			rc = notify_outside(&o, UINT32_MAX, udp, N(udp));
	}
	return rc;
}

/* socketpair() runs the family's create before the pair is refused, and
 * inet_create asks kernel.modprobe for "net-pf-2-proto-P-type-T" with the
 * agent's P, a family without a handler for "net-pf-N" (review h-attack57:
 * a byte of the agent's secret a call, 36 of 36 names at the undeclared
 * sink, and no trapped call): every family but AF_UNIX notifies, on every
 * ABI (masked, as socket's rows), and is judged as socket() is. */
static int add_socketpair(scmp_filter_ctx ctx)
{
#ifdef SV_MUTANT_SOCKETPAIR_OPEN
	/* MUTANT socketpair-open: socketpair passes, and each call asks
	 * modprobe for a module named after the agent's bytes. */
	(void)ctx;
	return 0;
#else
	static const uint32_t families[] = {AF_UNIX};
	struct outside o = {.ctx = ctx, .nr = seccomp_syscall_resolve_name("socketpair"), .arg = 0};

	return notify_outside(&o, UINT32_MAX, families, N(families));
#endif
}
#endif

/* Native only: socket(), setsockopt() and listen() keep their arguments in
 * registers, so BPF picks out the ones to judge and everything else never
 * notifies. */
static int add_native(scmp_filter_ctx ctx)
{
	const int nr_sso = SCMP_SYS(setsockopt);
	int rc = add_common(ctx, 0);

	if (rc == 0)
		rc = add_socket(ctx);
	if (rc == 0)
		rc = add_socketpair(ctx);
#ifndef SV_MUTANT_FCHROOT_OPEN
	/* MUTANT fchroot-open: a root agent moves its root to failfs (7.3)
	 * and its AF_UNIX names become mechanism failures that outrank its
	 * denials (review h-attack47). Native only, by number (libseccomp
	 * has no name for it yet; the foreign ABIs: fchroot_foreign). */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SV_NR_FCHROOT, 0);
#endif
#ifndef SV_MUTANT_NO_LISTEN_MEDIATION
	/* (MUTANT no-listen-mediation removes this: any socket listens.) */
	if (rc == 0)
		rc = notify(ctx, "listen");
#endif
	size_t n_options;
	const struct sv_filtertab_option *options = sv_filtertab_options(&n_options);

	for (size_t i = 0; rc == 0 && i < n_options; i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr_sso, 2, INT_EQ(1, options[i].level),
				      INT_EQ(2, options[i].name));
	return rc;
}

static int add_foreign(scmp_filter_ctx ctx, int low_word)
{
#ifdef SV_MUTANT_FOREIGN_ABI_SILENT
	/* MUTANT foreign-abi-silent: i386 and x32 calls are answered EACCES
	 * inside BPF, so the supervisor never hears of them. */
	int rc = 0;

	(void)foreign_only;
	(void)low_word;
	for (size_t i = 0; rc == 0 && i < N(sending); i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES),
				      seccomp_syscall_resolve_name(sending[i]), 0);
	return rc;
#else
	int rc = add_common(ctx, low_word);

	if (rc == 0)
		rc = notify_all(ctx, foreign_only, N(foreign_only));
	if (rc == 0)
		rc = add_socketpair(ctx);
	return rc;
#endif
}

/* A context for one part of the filter, in *out. Returns 0 or -errno: an
 * attribute the kernel cannot give (KILL_PROCESS for a foreign ABI's
 * calls: libseccomp asks the kernel, and one without seccomp filters, or
 * older than 4.14, answers no) is its refusal, not a want of memory. */
static int new_ctx(scmp_filter_ctx *out)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc;

	if (!ctx)
		return -ENOMEM;
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (rc == 0)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1);
	if (rc < 0) {
		seccomp_release(ctx);
		return rc;
	}
	*out = ctx;
	return 0;
}

/* The rules a run asks for (SV_FILTER_SETID, SV_FILTER_FILE_FLAGS), the
 * same on every ABI. Returns 0 or -errno. */
static int add_optional(scmp_filter_ctx ctx, unsigned rules)
{
	int rc = 0;

	if (rules & SV_FILTER_SETID)
		rc = add_setuid(ctx);
	if (rc == 0 && (rules & SV_FILTER_SETID))
		rc = add_cgroup_namespace(ctx);
	if (rc == 0 && (rules & SV_FILTER_FILE_FLAGS))
		rc = add_file_flags(ctx);
	return rc;
}

/* The context of one foreign ABI (SCMP_ARCH_X86 or SCMP_ARCH_X32) with its
 * rules, in *out. low_word as add_common's. Returns 0 or -errno. */
static int build_foreign(scmp_filter_ctx *out, uint32_t arch, unsigned rules, int low_word)
{
	scmp_filter_ctx ctx;
	int rc = new_ctx(&ctx);

	if (rc < 0)
		return rc;
	rc = seccomp_arch_add(ctx, arch);
	if (rc == 0)
		rc = seccomp_arch_remove(ctx, SCMP_ARCH_NATIVE);
	if (rc == 0)
		rc = add_foreign(ctx, low_word);
	if (rc == 0)
		rc = add_optional(ctx, rules);
	if (rc < 0) {
		seccomp_release(ctx);
		return rc;
	}
	*out = ctx;
	return 0;
}

int sv_filter_build(void **out, unsigned rules)
{
	/* x32's pointers are 64-bit registers that libseccomp compares by
	 * their low word (notify_if_pointer); i386's are 32 bits. */
	static const struct {
		uint32_t arch;
		int low_word;
	} foreign_abis[] = {{SCMP_ARCH_X86, 0}, {SCMP_ARCH_X32, 1}};
	scmp_filter_ctx ctx, foreign;
	int rc;

#ifdef SV_MUTANT_FILE_FLAGS_BY_UID
	/* MUTANT file-flags-by-uid: O_NONBLOCK's calls trapped for a root
	 * agent only, whatever judges names, as before review h-attack28. */
	if (!(rules & SV_FILTER_SETID))
		rules &= ~(unsigned)SV_FILTER_FILE_FLAGS;
#endif

	/* Everything not named is allowed: this is an egress mediator, not a
	 * sandbox. Architectures the filter does not know are killed. The
	 * rules differ per ABI, so each gets its own context and the three
	 * are merged into one filter with one listener. */
	rc = new_ctx(&ctx);
	if (rc < 0)
		return rc;
	rc = add_native(ctx);
	if (rc == 0)
		rc = add_optional(ctx, rules);
	/* The foreign ABIs are trapped to be denied and recorded by the
	 * supervisor: answering them inside BPF would leave no record. */
	for (size_t i = 0; rc == 0 && i < N(foreign_abis); i++) {
		int low_word = foreign_abis[i].low_word;

#ifdef SV_MUTANT_X32_POINTER_LOW_WORD
		/* MUTANT x32-pointer-low-word: x32's pointer rules compare the
		 * low word only, as before review h-attack70. */
		low_word = 0;
#endif
		rc = build_foreign(&foreign, foreign_abis[i].arch, rules, low_word);
		if (rc == 0) {
			rc = seccomp_merge(ctx, foreign);
			if (rc < 0)
				seccomp_release(foreign); /* merged into ctx otherwise */
		}
	}
	if (rc < 0) {
		seccomp_release(ctx);
		return rc;
	}
	*out = ctx;
	return 0;
}

int sv_filter_root_agent(void)
{
	return geteuid() == 0;
}
