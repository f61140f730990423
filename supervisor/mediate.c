#include "mediate.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "act.h"
#include "call.h"
#include "judge.h"
#include "filter.h"
#include "filtertab.h"
#include "mediate_msg.h"
#include "mediate_sock.h"
#include "msghdr.h"
#include "nsjoin.h"
#include "target.h"
#include "unixpeer.h"

/* Reads a name of len bytes at addr (connect's or sendto's). Returns 0, or
 * -1 with the call finished: the kernel's own EINVAL for an impossible
 * length, EFAULT for an unreadable name. */
static int read_name(struct sv_call *c, uint64_t addr, int64_t len, unsigned char *buf,
		     struct sv_dest *d)
{
	if (len < 0 || len > SV_SOCKADDR_MAX) {
		sv_call_finish(c, SV_INVALID, "bad-length", SV_ACT_ERRNO, EINVAL, 0);
		return -1;
	}
	if (len > 0 && sv_call_read(c, addr, buf, (size_t)len))
		return -1;
	sv_call_note_dest(c, buf, (size_t)len, d);
	return 0;
}

static void on_connect(struct sv_call *c, const __u64 *a)
{
	unsigned char name[SV_SOCKADDR_MAX];
	struct sv_dest d;
	const char *deny, *why = NULL;
	int64_t len = (int32_t)a[2];
	const void *target = name;
	uint32_t tlen;
	int rc, lookup_err = 0;

	/* Every family's connect answers EINVAL below sizeof(sa_family_t). */
	if (len >= 0 && len < 2) {
		sv_call_finish(c, SV_INVALID, "bad-length", SV_ACT_ERRNO, EINVAL, 0);
		return;
	}
	if (read_name(c, a[1], len, name, &d) ||
	    sv_call_decide(c, (int)a[0], &d, 1, NULL, &deny, &why))
		return;
	tlen = (uint32_t)len;
	if (!deny && sv_call_device_last(c, &d, &deny))
		return;
	if (!deny && sv_unixpeer_judge(c, &d, &target, &tlen, &why, &deny, &lookup_err))
		return;
	/* glibc's probe of a passive lookup's answers (getaddrinfo(NULL,
	 * SERVICE, AI_PASSIVE): every Tcl client, perl's LocalPort) connects
	 * UDP sockets to 0.0.0.0:SERVICE and [::]:SERVICE and sends nothing
	 * (review h-realprog5, 36 of 36 failed): refused as any unspecified
	 * address, whatever the port, but not a denial. */
	if (deny && (strcmp(deny, "policy") == 0 || strcmp(deny, "unspecified-address") == 0) &&
	    sv_call_sort_probe(c, (int)a[0], &d, strcmp(deny, "unspecified-address") == 0)) {
#ifdef SV_MUTANT_SORT_PROBE_PERFORMED
		/* MUTANT sort-probe-performed (review h-attack46): the probe is
		 * made on the duplicate (the agent's own file), then answered
		 * with the denial errno and recorded neutralized as if refused:
		 * the socket is connected, a later nameless send leaves. */
		(void)connect(c->dup, (const struct sockaddr *)name, (socklen_t)len);
#endif
		sv_call_finish(c, SV_NEUTRALIZED, "sort-probe", SV_ACT_ERRNO,
			       sv_call_denial_errno(c), 0);
		return;
	}
	if (deny) {
		sv_call_finish(c, SV_DENIED, deny, SV_ACT_ERRNO, sv_call_denial_errno(c), 0);
		return;
	}
#ifdef SV_MUTANT_CONTINUE_CONNECT
	/* MUTANT continue-connect: the kernel re-reads the agent's memory. */
	sv_call_finish(c, SV_ALLOWED, why, SV_ACT_CONTINUE, 0, 0);
	return;
#endif
	/* The verified copy, never the agent's memory: this is why CONTINUE is
	 * not an answer here. A name that led to no socket is answered with
	 * the lookup's own error, as the kernel's lookup would have been. */
	if (lookup_err)
		rc = -1;
	else if (c->peer_nowait && (rc = (int)sv_unixpeer_act(c, NULL, 0, target, tlen)) == -2)
		return;
	else if (!c->peer_nowait)
		rc = connect(c->dup, target, (socklen_t)tlen);
	sv_call_answer_performed(c, why, rc, lookup_err ? lookup_err : rc < 0 ? errno : 0);
}

/* Our SCM_CREDENTIALS of the caller for a performed AF_UNIX sendto, as
 * sendmsg's (mediate_msg.c): sent with ours the receiver read pid 0 and
 * uid 0 from a uid-1000 agent (review h-attack54, ha54-run.sh). Returns the
 * length of *ctl (the caller frees it), 0 with *ctl NULL: ours stay, or
 * -errno: the caller's ids could not be read (sv_mediate_caller_creds). */
static int sendto_caller_creds(struct sv_call *c, void **ctl)
{
	struct ucred cr;
	size_t len;

	*ctl = NULL;
#ifdef SV_MUTANT_SENDTO_CREDS_OWN
	/* MUTANT sendto-creds-own: a performed sendto carries our own
	 * credentials, as before review h-attack54. */
	(void)c;
	(void)cr;
	(void)len;
	return 0;
#else
	int rc = sv_mediate_caller_creds(c, &cr);

	if (rc <= 0)
		return rc;
	rc = sv_msghdr_prepend_creds(NULL, 0, cr.pid, cr.uid, cr.gid, ctl, &len);
	return rc < 0 ? rc : (int)len;
#endif
}

static void on_sendto(struct sv_call *c, const __u64 *a)
{
	unsigned char name[SV_SOCKADDR_MAX], *payload = NULL;
	struct sv_dest d;
	struct sv_iov iov = {.base = a[1], .len = a[2]};
	const char *deny, *why = NULL;
	int64_t len = (int32_t)a[5];
	const void *target = name;
	uint32_t tlen = len > 0 ? (uint32_t)len : 0;
	int flags = (int)a[3], err, lookup_err = 0, quiet, have_cr;
	enum sv_fastopen fo;
	void *ctl = NULL;
	long long n, foc;
	ssize_t rc;

	/* No destination in memory: everything the kernel will use is in
	 * registers, and the socket's peer was mediated when it connected. */
	if (a[4] == 0) {
		sv_call_nameless_send(c, (int)a[0]);
		return;
	}
	if (read_name(c, a[4], len, name, &d) ||
	    sv_call_decide(c, (int)a[0], &d, 0, NULL, &deny, &why))
		return;
	if (deny && sv_call_tcp_ignores_name(c, (int)a[0], flags)) {
		/* The kernel ignores this name: so do we (no false denial). */
		deny = NULL;
		why = "tcp-ignores-name";
		len = 0;
	}
	if (deny) {
		sv_call_finish(c, SV_DENIED, deny, SV_ACT_ERRNO, sv_call_denial_errno(c), 0);
		return;
	}
	/* Copied only once the destination is allowed, and vouched for by a
	 * second ID_VALID like every copy. */
	n = sv_call_read_payload(c, &iov, 1, iov.len, &payload, NULL, NULL);
	if (n < 0)
		return;
	/* The caller's ids, as sendmsg's (send_copied): read before the call's
	 * validity is checked again. */
	have_cr = sendto_caller_creds(c, &ctl);
	if (sv_call_still_valid(c)) {
		free(payload);
		free(ctl);
		return;
	}
	if (have_cr < 0) {
		free(payload);
		sv_call_mech_failure(c, have_cr == -ENOMEM ? "malloc" : "proc_status", -have_cr);
		return;
	}
	/* A name TCP ignores (len 0 here) is no destination: the peer is. */
	if (sv_call_device_last(c, len ? &d : &(struct sv_dest){.kind = SV_DEST_NONE}, &deny)) {
		free(payload);
		free(ctl);
		return;
	}
	if (!deny && len && sv_unixpeer_judge(c, &d, &target, &tlen, &why, &deny, &lookup_err)) {
		free(payload);
		free(ctl);
		return;
	}
	if (deny) {
		free(payload);
		free(ctl);
		sv_call_finish(c, SV_DENIED, deny, SV_ACT_ERRNO, sv_call_denial_errno(c), 0);
		return;
	}
	if (lookup_err) {
		free(payload);
		free(ctl);
		sv_call_answer_performed(c, why, -1, lookup_err);
		return;
	}
	if (!sv_judge_sends_name(&d))
		len = 0;
	fo = sv_call_fastopen_connect(c, name, (uint32_t)len, &flags, &foc, &err);
	if (fo == SV_FASTOPEN_FINISHED || fo == SV_FASTOPEN_ANSWERED) {
		free(payload);
		free(ctl);
		if (fo == SV_FASTOPEN_ANSWERED)
			sv_call_answer_performed(c, why, foc, err);
		return;
	}
	if (fo == SV_FASTOPEN_UNNAMED)
		len = 0; /* connected by sv_call_fastopen_connect: to its peer */
	/* MSG_ZEROCOPY would let the kernel read our buffer after we free it. */
	quiet = (flags & ~MSG_ZEROCOPY) | MSG_NOSIGNAL;
	sv_call_note_held(c, flags);
	if (c->peer_nowait || have_cr) {
		struct iovec one = {.iov_base = payload, .iov_len = (size_t)n};
		struct msghdr mh = {.msg_name = len ? (void *)target : NULL,
				    .msg_namelen = len ? tlen : 0,
				    .msg_iov = &one,
				    .msg_iovlen = 1,
				    .msg_control = ctl,
				    .msg_controllen = (socklen_t)have_cr};

		rc = sv_mediate_send(c, &mh, quiet, target, tlen, have_cr > 0, NULL, 0);
		if (rc == SV_SEND_FINISHED) {
			free(payload);
			free(ctl);
			return;
		}
	} else {
		rc = sendto(c->dup, payload, (size_t)n, quiet, len ? target : NULL,
			    len ? (socklen_t)tlen : 0);
	}
	err = rc < 0 ? errno : 0;
	free(payload);
	free(ctl);
	sv_call_forward_sigpipe(c, flags, err);
	sv_call_answer_performed(c, why, rc, err);
}

/* SO_PASSRIGHTS turned off: it only narrows what the kernel lets in, on
 * any socket (systemd's notification receivers and its
 * AcceptFileDescriptors=no sockets do it from v258; denied, the run failed:
 * review h-attack76). Performed on the duplicate with our own zero, never
 * the agent's memory, which a thread may turn to 1 after the read; any
 * other value (turning it back on, on a socket stdfds.c turned off) stays
 * denied. Returns 1 when the call is finished. */
static int passrights_off(struct sv_call *c, const __u64 *a)
{
	static const int zero;
	int v, rc;

	if ((uint32_t)a[1] != SOL_SOCKET || (uint32_t)a[2] != SV_SO_PASSRIGHTS)
		return 0;
	/* The kernel reads an int: a shorter (or negative) optlen is its
	 * EINVAL before any option is looked at (sk_setsockopt), whatever the
	 * value, so nothing is turned on: the agent's invalid call, not a
	 * denial (review h-attack78: it failed the run). */
	if ((int32_t)a[4] < (int32_t)sizeof(v)) {
		sv_call_finish(c, SV_INVALID, "bad-length", SV_ACT_ERRNO, EINVAL, 0);
		return 1;
	}
	if (sv_call_read(c, a[3], &v, sizeof(v)))
		return 1;
#ifndef SV_MUTANT_PASSRIGHTS_ANY_VALUE
	if (v != 0)
		return 0;
#endif
	if (sv_call_still_valid(c))
		return 1;
#ifdef SV_MUTANT_PASSRIGHTS_ANY_VALUE
	/* MUTANT passrights-any-value: the agent's value is set, whatever it
	 * is: a socket on 0-2 takes descriptors again. */
	rc = setsockopt(c->dup, SOL_SOCKET, SV_SO_PASSRIGHTS, &v, sizeof(v));
	(void)zero;
#else
	rc = setsockopt(c->dup, SOL_SOCKET, SV_SO_PASSRIGHTS, &zero, sizeof(zero));
#endif
	sv_call_answer_performed(c, "passrights-off", rc, rc < 0 ? errno : 0);
	return 1;
}

/* setsockopt() reaches us only for the options the filter traps (source
 * routes, flow labels, free binding, the output interface): each chooses a
 * hop, a link or the source after the destination was judged; and
 * SO_PASSRIGHTS, which would let descriptors in again through a socket on
 * 0-2 (stdfds.c), unless it turns them off. */
static void on_setsockopt(struct sv_call *c, const __u64 *a)
{
	const char *why = sv_filtertab_option_reason((uint32_t)a[1], (uint32_t)a[2]);

	/* A descriptor that is not a socket is the agent's own mistake
	 * (EBADF, ENOTSOCK: invalid, as the kernel answers), not a denial
	 * (review h-attack13). */
	if (sv_call_prepare(c, (int)a[0]) || passrights_off(c, a))
		return;
	sv_call_finish(c, SV_DENIED, why ? why : "source-route", SV_ACT_ERRNO,
		       sv_call_denial_errno(c), 0);
}

/* request_key with a callout string (the filter lets lookups without one
 * through): the kernel would start a usermode helper outside every
 * mechanism of the run with strings the agent chose (filter.c). Refused on
 * every ABI. */
/* A pointer argument as the call's kernel handler reads it: i386's are 32
 * bits (a 64-bit process's int 0x80 may leave high bits in the register);
 * x86_64's and x32's are the whole register. */
static uint64_t pointer_arg(const struct sv_call *c, uint64_t v)
{
	return c->req->data.arch == AUDIT_ARCH_I386 ? (uint32_t)v : v;
}

/* x32's pointer rules notify every call (filter.c, notify_if_pointer): one
 * whose pointer is NULL makes no upcall and goes on as the filter would
 * have let it. Returns 1 when the call was so answered. */
static int pointer_null(struct sv_call *c, uint64_t v, const char *why)
{
	if (pointer_arg(c, v) != 0)
		return 0;
	sv_call_finish(c, SV_ALLOWED, why, SV_ACT_CONTINUE, 0, 0);
	return 1;
}

static void on_key_upcall(struct sv_call *c, const __u64 *a)
{
	unsigned char b;

	if (pointer_null(c, a[2], "no-callout"))
		return;
	/* A type, description or callout the kernel could not read is its
	 * EFAULT (invalid: no key is looked up), not a denial (review
	 * h-attack13). One byte of each: the kernel copies the strings
	 * before it looks anything up. */
	for (int i = 0; i < 3; i++)
		if (sv_call_read(c, a[i], &b, 1))
			return;
	sv_call_finish(c, SV_DENIED, "key-upcall", SV_ACT_ERRNO, sv_call_denial_errno(c), 0);
}

/* keyctl operations that name a crypto algorithm (the filter traps only
 * those), and add_key with a payload: an unknown name has the kernel run
 * kernel.modprobe outside the run with "crypto-NAME". Refused on every
 * ABI; on x32 the filter cannot see the pointer, so a KEYCTL_DH_COMPUTE
 * without KDF parameters and an add_key without a payload go on. */
static void on_module_name(struct sv_call *c, const __u64 *a)
{
	if (strcmp(c->ev.syscall, "add_key") == 0 && pointer_null(c, a[2], "no-payload"))
		return;
	if (strcmp(c->ev.syscall, "keyctl") == 0 && (uint32_t)a[0] == 23 &&
	    pointer_null(c, a[4], "no-kdf"))
		return;
	sv_call_finish(c, SV_DENIED, "module-autoload", SV_ACT_ERRNO, sv_call_denial_errno(c), 0);
}

/* i386 and x32 calls are denied whatever their destination; reading it is
 * only for the record, so a failed read here changes nothing. */
static void note_foreign_dest(struct sv_call *c, uint64_t addr, uint64_t len)
{
	unsigned char buf[SV_SOCKADDR_MAX];
	const char *mech;
	struct sv_dest d;

	if (!addr || len < 2 || len > sizeof(buf))
		return;
	if (sv_target_read(c->req->pid, addr, buf, (size_t)len, &mech) == 0)
		sv_call_note_dest(c, buf, (size_t)len, &d);
}

static void on_foreign(struct sv_call *c, int socketcall)
{
	const __u64 *a = c->req->data.args;
	uint32_t sa[6];
	const char *mech;

	if (!socketcall) {
		if (strcmp(c->ev.syscall, "connect") == 0)
			note_foreign_dest(c, a[1], a[2]);
		else if (strcmp(c->ev.syscall, "sendto") == 0)
			note_foreign_dest(c, a[4], a[5]);
	} else if ((a[0] == 3 || a[0] == 11) &&
		   sv_target_read(c->req->pid, a[1], sa, sizeof(sa), &mech) == 0) {
		/* socketcall's arguments are an array of 32-bit words in memory. */
		if (a[0] == 3)
			note_foreign_dest(c, sa[1], sa[2]);
		else
			note_foreign_dest(c, sa[4], sa[5]);
	}
	sv_call_finish(c, SV_DENIED, "foreign-abi", SV_ACT_ERRNO, sv_call_denial_errno(c), 0);
}

static const char *socketcall_name(uint64_t call)
{
	static const char *const names[] = {
	    [1] = "socketcall(socket)",   [3] = "socketcall(connect)",
	    [11] = "socketcall(sendto)",  [14] = "socketcall(setsockopt)",
	    [16] = "socketcall(sendmsg)", [20] = "socketcall(sendmmsg)",
	};

	if (call < sizeof(names) / sizeof(names[0]) && names[call])
		return names[call];
	return "socketcall";
}

struct entry {
	int nr;
	const char *name;
	void (*native)(struct sv_call *c, const __u64 *a);
};

/* A root agent's mode call with S_ISUID or S_ISGID (the filter traps only those:
 * filter.c, setuid_modes): refused. Not an egress attempt, so neutralized,
 * not denied: the verdict is the agent's sockets'. */
static void on_setuid(struct sv_call *c, const __u64 *a)
{
	(void)a;
	sv_call_finish(c, SV_NEUTRALIZED, "setuid", SV_ACT_ERRNO, EPERM, 0);
}

/* A root agent's snapshot ioctl (filter.c, snapshot_ioctls): refused as a
 * setuid mode is, since it copies every setuid program it reaches. */
static void on_snapshot(struct sv_call *c, const __u64 *a)
{
	(void)a;
	sv_call_finish(c, SV_NEUTRALIZED, "snapshot", SV_ACT_ERRNO, EPERM, 0);
}

/* An ioctl: any agent's attach to a TUN or TAP device or typing into a
 * terminal (denied: a packet on a link of the host's, a command run after
 * the run; filter.c's reason), or a root agent's snapshot (refused) or
 * FIONBIO (performed by unixpeer.c, one at a time with its nonblocking
 * acts): the filter traps no other. */
static void on_ioctl(struct sv_call *c, const __u64 *a)
{
	const char *denied = sv_filtertab_ioctl_reason((uint32_t)a[1]);

	if (denied) {
		sv_call_finish(c, SV_DENIED, denied, SV_ACT_ERRNO, sv_call_denial_errno(c), 0);
		return;
	}
	if ((uint32_t)a[1] == FIONBIO)
		sv_unixpeer_set_flags(c, a, 1);
	else
		on_snapshot(c, a);
}

/* An fcntl: any agent's F_SETLEASE or F_SETDELEG (refused: a lease or a
 * delegation on a file of its uid's stalls its writers outside the run;
 * not egress, so neutralized), or
 * F_SETFL without O_NONBLOCK where names are judged (performed by
 * unixpeer.c): the filter traps no other. */
static void on_fcntl(struct sv_call *c, const __u64 *a)
{
	if ((uint32_t)a[1] == F_SETLEASE || (uint32_t)a[1] == SV_F_SETDELEG) {
		sv_call_finish(c, SV_NEUTRALIZED, "lease", SV_ACT_ERRNO, EPERM, 0);
		return;
	}
	sv_unixpeer_set_flags(c, a, 0);
}

/* A root agent's openat2: its mode is in memory, unjudgeable without a
 * race; ENOSYS, and libc falls back to openat. */
static void on_openat2(struct sv_call *c, const __u64 *a)
{
	(void)a;
	sv_call_finish(c, SV_NEUTRALIZED, "openat2", SV_ACT_ERRNO, ENOSYS, 0);
}

/* A root agent's mode calls (filter.c, setuid_modes) have the same
 * numbers on x86_64 and x32 (syscall_64.tbl, "common"). */
#define MODE_CALLS_64                                                                              \
	{90, "chmod", on_setuid}, {91, "fchmod", on_setuid}, {268, "fchmodat", on_setuid},         \
	    {452, "fchmodat2", on_setuid}, {85, "creat", on_setuid}, {2, "open", on_setuid},       \
	    {257, "openat", on_setuid}, {133, "mknod", on_setuid}, {259, "mknodat", on_setuid},    \
	    {437, "openat2", on_openat2},

/* Syscall numbers per ABI (arch/x86/entry/syscalls/syscall_{64,32}.tbl).
 * A NULL handler on a foreign ABI is denied as foreign-abi; cross-process,
 * prlimit64, request_key, io_uring, clone3, setns, a clone sharing its
 * table, a root agent's mode calls and its cgroup namespaces are handled
 * alike on every ABI. */
static const struct entry native_table[] = {{42, "connect", on_connect},
					    {44, "sendto", on_sendto},
					    {46, "sendmsg", sv_mediate_sendmsg},
					    {307, "sendmmsg", sv_mediate_sendmmsg},
					    {41, "socket", sv_mediate_socket},
					    {53, "socketpair", sv_mediate_socket},
					    {54, "setsockopt", on_setsockopt},
					    {50, "listen", sv_mediate_listen},
					    {425, "io_uring_setup", NULL},
					    {426, "io_uring_enter", NULL},
					    {427, "io_uring_register", NULL},
					    {435, "clone3", NULL},
					    {SV_NR_FCHROOT, "fchroot", NULL},
					    {101, "ptrace", sv_mediate_cross_process},
					    {310, "process_vm_readv", sv_mediate_cross_process},
					    {311, "process_vm_writev", sv_mediate_cross_process},
					    {312, "kcmp", sv_mediate_cross_process},
					    {438, "pidfd_getfd", sv_mediate_cross_process},
					    {302, "prlimit64", sv_mediate_prlimit},
					    {249, "request_key", on_key_upcall},
					    {250, "keyctl", on_module_name},
					    {248, "add_key", on_module_name},
					    {16, "ioctl", on_ioctl},
					    {72, "fcntl", on_fcntl},
					    {308, "setns", sv_nsjoin_mediate},
					    {56, "clone", sv_nsjoin_table_shared},
					    {272, "unshare", sv_nsjoin_new_cgroup},
					    MODE_CALLS_64};
static const struct entry i386_table[] = {
    {102, "socketcall", NULL},
    {362, "connect", NULL},
    {369, "sendto", NULL},
    {370, "sendmsg", NULL},
    {345, "sendmmsg", NULL},
    {359, "socket", NULL},
    {360, "socketpair", NULL},
    {366, "setsockopt", NULL},
    {363, "listen", NULL},
    {425, "io_uring_setup", NULL},
    {426, "io_uring_enter", NULL},
    {427, "io_uring_register", NULL},
    {435, "clone3", NULL},
    {26, "ptrace", sv_mediate_cross_process},
    {347, "process_vm_readv", sv_mediate_cross_process},
    {348, "process_vm_writev", sv_mediate_cross_process},
    {349, "kcmp", sv_mediate_cross_process},
    {438, "pidfd_getfd", sv_mediate_cross_process},
    {340, "prlimit64", sv_mediate_prlimit},
    {287, "request_key", on_key_upcall},
    {288, "keyctl", on_module_name},
    {286, "add_key", on_module_name},
    {15, "chmod", on_setuid},
    {94, "fchmod", on_setuid},
    {306, "fchmodat", on_setuid},
    {452, "fchmodat2", on_setuid},
    {8, "creat", on_setuid},
    {5, "open", on_setuid},
    {295, "openat", on_setuid},
    {14, "mknod", on_setuid},
    {297, "mknodat", on_setuid},
    {437, "openat2", on_openat2},
    {54, "ioctl", on_ioctl},
    {55, "fcntl", on_fcntl},
    {221, "fcntl64", on_fcntl},
    {346, "setns", sv_nsjoin_mediate},
    {120, "clone", sv_nsjoin_table_shared},
    {310, "unshare", sv_nsjoin_new_cgroup},
};
static const struct entry x32_table[] = {{42, "connect", NULL},
					 {44, "sendto", NULL},
					 {518, "sendmsg", NULL},
					 {538, "sendmmsg", NULL},
					 {41, "socket", NULL},
					 {53, "socketpair", NULL},
					 {541, "setsockopt", NULL},
					 {50, "listen", NULL},
					 {425, "io_uring_setup", NULL},
					 {426, "io_uring_enter", NULL},
					 {427, "io_uring_register", NULL},
					 {435, "clone3", NULL},
					 {521, "ptrace", sv_mediate_cross_process},
					 {539, "process_vm_readv", sv_mediate_cross_process},
					 {540, "process_vm_writev", sv_mediate_cross_process},
					 {312, "kcmp", sv_mediate_cross_process},
					 {438, "pidfd_getfd", sv_mediate_cross_process},
					 {302, "prlimit64", sv_mediate_prlimit},
					 {249, "request_key", on_key_upcall},
					 {250, "keyctl", on_module_name},
					 {248, "add_key", on_module_name},
					 {514, "ioctl", on_ioctl},
					 {72, "fcntl", on_fcntl},
					 {308, "setns", sv_nsjoin_mediate},
					 {56, "clone", sv_nsjoin_table_shared},
					 {272, "unshare", sv_nsjoin_new_cgroup},
					 MODE_CALLS_64};

static const struct entry *lookup(const struct entry *t, size_t n, int nr)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].nr == nr)
			return &t[i];
	return NULL;
}

#define LOOKUP(t, nr) lookup(t, sizeof(t) / sizeof(t[0]), nr)

void sv_mediate(int listener, const struct seccomp_notif *req, const struct sv_policy *pol)
{
	struct sv_call c = {.listener = listener,
			    .req = req,
			    .pol = pol,
			    .pidfd = -1,
			    .pidfd_handle = -1,
			    .dup = -1,
			    .peer_fd = -1,
			    .bound_if = SV_BOUND_UNJUDGED};
	const struct entry *e = NULL;
	int nr = req->data.nr;

	c.ev.t_ms = sv_report_now_ms();
	c.ev.pid = (pid_t)req->pid;
	c.ev.syscall = "unknown";
	c.ev.abi = "unknown";
	/* Architecture first, then the number: the same number means different
	 * calls on different ABIs (102 is getuid on x86_64, socketcall on i386). */
	if (req->data.arch == AUDIT_ARCH_X86_64 && (nr & SV_X32_SYSCALL_BIT)) {
		c.ev.abi = "x32";
		e = LOOKUP(x32_table, (int)(nr & ~SV_X32_SYSCALL_BIT));
	} else if (req->data.arch == AUDIT_ARCH_X86_64) {
		c.ev.abi = "x86_64";
		e = LOOKUP(native_table, nr);
	} else if (req->data.arch == AUDIT_ARCH_I386) {
		c.ev.abi = "i386";
		e = LOOKUP(i386_table, nr);
	}
	if (!e) {
		/* The filter sent something the table does not know: the two
		 * disagree, which is our bug. Fail closed and say so. */
		c.ev.mechanism = "dispatch";
		c.ev.mech_err = ENOSYS;
		sv_call_finish(&c, SV_MECH_FAILURE, "unknown-syscall", SV_ACT_ERRNO,
			       SV_ERR_MECHANISM, 0);
		return;
	}
	c.ev.syscall = e->name;
	if (strncmp(e->name, "io_uring_", 9) == 0) {
		/* io_uring's own operations never pass the filter: without a ring,
		 * runtimes fall back to ordinary, mediated calls, and a ring the
		 * agent got from elsewhere cannot be entered or changed. */
		sv_call_finish(&c, SV_NEUTRALIZED, "io_uring", SV_ACT_ERRNO, ENOSYS, 0);
	} else if (strcmp(e->name, "clone3") == 0) {
		/* Its flags are in memory, unjudgeable without a race (filter.c):
		 * ENOSYS, and the caller falls back to clone. */
		sv_call_finish(&c, SV_NEUTRALIZED, "clone3", SV_ACT_ERRNO, ENOSYS, 0);
	} else if (strcmp(e->name, "fchroot") == 0) {
		/* Linux 7.3: a root on failfs, no capability needed (filter.c):
		 * ENOSYS, as every kernel before it answers. */
		sv_call_finish(&c, SV_NEUTRALIZED, "fchroot", SV_ACT_ERRNO, ENOSYS, 0);
	} else if (e->native == sv_mediate_cross_process || e->native == sv_mediate_prlimit ||
		   e->native == on_key_upcall || e->native == on_module_name ||
		   e->native == on_setuid || e->native == on_openat2 || e->native == on_ioctl ||
		   e->native == on_fcntl || e->native == sv_nsjoin_mediate ||
		   e->native == sv_nsjoin_table_shared) {
		e->native(&c, req->data.args);
	} else if (strcmp(c.ev.abi, "x86_64") != 0) {
		int sc = strcmp(e->name, "socketcall") == 0;

		if (sc)
			c.ev.syscall = socketcall_name(req->data.args[0]);
		on_foreign(&c, sc);
	} else {
		e->native(&c, req->data.args);
	}
	sv_call_release(&c);
	if (!c.done) {
		/* A handler returned without an answer: never leave the agent
		 * waiting and never leave the call out of the record. */
		c.ev.mechanism = "internal";
		c.ev.mech_err = ENOTRECOVERABLE;
		sv_call_finish(&c, SV_MECH_FAILURE, "internal", SV_ACT_ERRNO, SV_ERR_MECHANISM, 0);
	}
}
