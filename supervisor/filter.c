#include "filter.h"

#include <errno.h>
#include <seccomp.h>
#include <stddef.h>

#include "fault.h"

static const char *const trapped[] = {"connect", "sendto", "sendmsg", "sendmmsg", "io_uring_setup"};

static int add_rules(scmp_filter_ctx ctx)
{
	for (size_t i = 0; i < sizeof(trapped) / sizeof(trapped[0]); i++) {
		int nr = seccomp_syscall_resolve_name(trapped[i]);
		int rc;

		if (nr == __NR_SCMP_ERROR)
			return -ENOSYS;
			/* On x86 (i386) libseccomp also adds socketcall(SYS_CONNECT, ...)
			 * for each socket call, so the multiplexer cannot bypass the rule. */
#ifdef SV_MUTANT_IO_URING_OPEN
		/* MUTANT io-uring-open: rings are allowed. */
		if (i == sizeof(trapped) / sizeof(trapped[0]) - 1)
			continue;
#endif
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
		if (rc < 0)
			return rc;
	}
	return 0;
}

#ifdef SV_MUTANT_FOREIGN_ABI_SILENT
/* MUTANT foreign-abi-silent: i386 and x32 calls are answered EACCES inside
 * BPF, so the supervisor never hears of them. */
static int add_foreign_errno(scmp_filter_ctx native)
{
	scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
	int rc;

	if (!f)
		return -ENOMEM;
	rc = seccomp_attr_set(f, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (rc == 0)
		rc = seccomp_arch_add(f, SCMP_ARCH_X86);
	if (rc == 0)
		rc = seccomp_arch_add(f, SCMP_ARCH_X32);
	if (rc == 0)
		rc = seccomp_arch_remove(f, SCMP_ARCH_NATIVE);
	for (size_t i = 0; rc == 0 && i < sizeof(trapped) / sizeof(trapped[0]); i++)
		rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(EACCES),
				      seccomp_syscall_resolve_name(trapped[i]), 0);
	if (rc == 0)
		return seccomp_merge(native, f);
	seccomp_release(f);
	return rc;
}
#endif

int sv_filter_install(void)
{
	scmp_filter_ctx ctx;
	int rc, fd;

	rc = sv_fault("listener");
	if (rc)
		return rc;
	/* Everything not named is allowed: this is an egress mediator, not a
	 * sandbox. Architectures the filter does not know are killed. */
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return -ENOMEM;
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (rc == 0)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1);
		/* The foreign ABIs are trapped too, to be denied and recorded by the
		 * supervisor: answering them inside BPF would leave no record. */
#ifdef SV_MUTANT_FOREIGN_ABI_SILENT
	if (rc == 0)
		rc = add_rules(ctx);
	if (rc == 0)
		rc = add_foreign_errno(ctx);
#else
	if (rc == 0)
		rc = seccomp_arch_add(ctx, SCMP_ARCH_X86);
	if (rc == 0)
		rc = seccomp_arch_add(ctx, SCMP_ARCH_X32);
	if (rc == 0)
		rc = add_rules(ctx);
#endif
	if (rc == 0)
		rc = seccomp_load(ctx);
	if (rc < 0) {
		seccomp_release(ctx);
		return rc;
	}
	fd = seccomp_notify_fd(ctx);
	/* seccomp_release does not close the listener: it is ours now. */
	seccomp_release(ctx);
	return fd >= 0 ? fd : -EBADF;
}
