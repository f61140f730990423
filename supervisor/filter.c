#include "filter.h"

#include <errno.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <stddef.h>
#include <sys/socket.h>

#include "fault.h"

/* The calls that carry a destination, trapped on every ABI. */
static const char *const sending[] = {"connect", "sendto", "sendmsg", "sendmmsg"};
/* On the foreign ABIs everything that makes or shapes a socket is trapped
 * too, to be denied: a raw socket or a source route set up through i386
 * would steer the native calls that follow. */
static const char *const foreign_only[] = {"socketcall", "socket", "setsockopt"};

/* Socket options that choose the path or the first hop of what is sent,
 * after the destination was judged: source routes. */
static const struct {
	int level, name;
} route_options[] = {
    {IPPROTO_IP, 4},    /* IP_OPTIONS: LSRR/SSRR */
    {IPPROTO_IPV6, 57}, /* IPV6_RTHDR */
    {IPPROTO_IPV6, 5},  /* IPV6_2292RTHDR */
    {IPPROTO_IPV6, 6},  /* IPV6_2292PKTOPTIONS */
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int notify(scmp_filter_ctx ctx, const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);

	if (nr == __NR_SCMP_ERROR)
		return -ENOSYS;
	/* On x86 libseccomp also adds socketcall(SYS_CONNECT, ...) for each
	 * socket call, so the multiplexer cannot bypass the rule. */
	return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
}

static int add_common(scmp_filter_ctx ctx)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < N(sending); i++)
		rc = notify(ctx, sending[i]);
#ifndef SV_MUTANT_IO_URING_OPEN
	if (rc == 0)
		rc = notify(ctx, "io_uring_setup");
#endif
	return rc;
}

/* Native only: socket() and setsockopt() keep their arguments in registers,
 * so BPF picks out the dangerous ones and everything else never notifies. */
static int add_native(scmp_filter_ctx ctx)
{
	const int nr_socket = SCMP_SYS(socket), nr_sso = SCMP_SYS(setsockopt);
	int rc = add_common(ctx);

	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr_socket, 1,
				      SCMP_A0(SCMP_CMP_EQ, AF_PACKET));
	for (int dom = 0; rc == 0 && dom < 2; dom++) {
		int family = dom ? AF_INET6 : AF_INET;

		/* The type carries SOCK_NONBLOCK/SOCK_CLOEXEC above the low bits. */
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr_socket, 2,
				      SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)family),
				      SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_RAW));
		if (rc == 0)
			rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr_socket, 2,
					      SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)family),
					      SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_PACKET));
	}
	for (size_t i = 0; rc == 0 && i < N(route_options); i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr_sso, 2,
				      SCMP_A1(SCMP_CMP_EQ, (scmp_datum_t)route_options[i].level),
				      SCMP_A2(SCMP_CMP_EQ, (scmp_datum_t)route_options[i].name));
	return rc;
}

static int add_foreign(scmp_filter_ctx ctx)
{
#ifdef SV_MUTANT_FOREIGN_ABI_SILENT
	/* MUTANT foreign-abi-silent: i386 and x32 calls are answered EACCES
	 * inside BPF, so the supervisor never hears of them. */
	int rc = 0;

	(void)foreign_only;
	for (size_t i = 0; rc == 0 && i < N(sending); i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES),
				      seccomp_syscall_resolve_name(sending[i]), 0);
	return rc;
#else
	int rc = add_common(ctx);

	for (size_t i = 0; rc == 0 && i < N(foreign_only); i++)
		rc = notify(ctx, foreign_only[i]);
	return rc;
#endif
}

static scmp_filter_ctx new_ctx(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	if (ctx && (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) != 0 ||
		    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1) != 0)) {
		seccomp_release(ctx);
		return NULL;
	}
	return ctx;
}

int sv_filter_install(void)
{
	scmp_filter_ctx ctx, foreign;
	int rc, fd;

	rc = sv_fault("listener");
	if (rc)
		return rc;
	/* Everything not named is allowed: this is an egress mediator, not a
	 * sandbox. Architectures the filter does not know are killed. The
	 * rules differ per ABI, so each gets its own context and the two are
	 * merged into one filter with one listener. */
	ctx = new_ctx();
	foreign = new_ctx();
	if (!ctx || !foreign) {
		if (ctx)
			seccomp_release(ctx);
		if (foreign)
			seccomp_release(foreign);
		return -ENOMEM;
	}
	rc = add_native(ctx);
	/* The foreign ABIs are trapped to be denied and recorded by the
	 * supervisor: answering them inside BPF would leave no record. */
	if (rc == 0)
		rc = seccomp_arch_add(foreign, SCMP_ARCH_X86);
	if (rc == 0)
		rc = seccomp_arch_add(foreign, SCMP_ARCH_X32);
	if (rc == 0)
		rc = seccomp_arch_remove(foreign, SCMP_ARCH_NATIVE);
	if (rc == 0)
		rc = add_foreign(foreign);
	if (rc == 0) {
		rc = seccomp_merge(ctx, foreign);
		if (rc == 0)
			foreign = NULL; /* merged into ctx */
	}
	if (rc == 0)
		rc = seccomp_load(ctx);
	if (foreign)
		seccomp_release(foreign);
	if (rc < 0) {
		seccomp_release(ctx);
		return rc;
	}
	fd = seccomp_notify_fd(ctx);
	/* seccomp_release does not close the listener: it is ours now. */
	seccomp_release(ctx);
	return fd >= 0 ? fd : -EBADF;
}
