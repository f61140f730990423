#include "filterload.h"

#include <errno.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fault.h"
#include "filter.h"

/* fchroot on the foreign ABIs, which libseccomp cannot name by number: a
 * second filter of our own answers it ENOSYS, as a kernel before 7.3 does
 * (unrecorded: on those ABIs every socket call is denied anyway). Returns
 * 0 or -errno. */
static int fchroot_foreign(void)
{
#ifdef SV_MUTANT_FCHROOT_OPEN
	return 0;
#else
	struct sock_filter prog[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 0, 2),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SV_NR_FCHROOT, 3, 4),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 3),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SV_NR_FCHROOT | SV_X32_SYSCALL_BIT, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fprog = {.len = sizeof(prog) / sizeof(prog[0]), .filter = prog};

	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) == 0 ? 0 : -errno;
#endif
}

/* MFD_NOEXEC_SEAL (include/uapi/linux/memfd.h, 6.3), newer than musl's. */
#define SV_MFD_NOEXEC_SEAL 0x0008u

/* libseccomp loads the filter: the same program, but a refusal's errno is
 * libseccomp's (ECANCELED). Returns the listener or -errno. */
static int load_by_libseccomp(scmp_filter_ctx ctx)
{
	int rc = seccomp_load(ctx);

	return rc < 0 ? rc : seccomp_notify_fd(ctx);
}

/* A memfd to export the filter into, or -1 where libseccomp must load it:
 * a profile that refuses memfd_create (seam memfd), or a finite
 * RLIMIT_FSIZE (the caller's), which would cut the export short while
 * libseccomp 2.5.4 takes a short write for success (review h-attack67: a
 * truncated program the kernel refused, with a hint naming the wrong
 * cause). MFD_NOEXEC_SEAL (6.3), which vm.memfd_noexec=2 requires on
 * 6.3-6.6; an older kernel refuses the flag (EINVAL). */
static int export_memfd(void)
{
	struct rlimit fsize;
	int mfd;

	if (sv_fault("memfd") < 0)
		return -1;
#ifndef SV_MUTANT_FSIZE_EXPORT_TRUSTED
	if (getrlimit(RLIMIT_FSIZE, &fsize) != 0 || fsize.rlim_cur != RLIM_INFINITY)
		return -1;
#else
	(void)fsize;
#endif
	mfd = memfd_create("egress-filter", MFD_CLOEXEC | SV_MFD_NOEXEC_SEAL);
	if (mfd < 0 && errno == EINVAL)
		mfd = memfd_create("egress-filter", MFD_CLOEXEC);
	return mfd;
}

/*
 * Loads the built filter with a listener through the seccomp call itself,
 * so that a refusal keeps the kernel's errno: libseccomp 2.5.4's
 * seccomp_load answers one with ECANCELED, or with SCMP_FLTATR_API_SYSRAWRC
 * every errno outside a short list with EFAULT (src/api.c, _rc_filter), and
 * EBUSY, a listener already in this process's filter chain (a supervisor
 * inside another, a container runtime's notify profile), has a hint of its
 * own (probe.c). The program is seccomp_export_bpf's, the one filter-export
 * gives the table tests. Sets no_new_privs first, as seccomp_load would
 * (CTL_NNP). Returns the listener (close-on-exec) or -errno.
 */
static int load_with_listener(scmp_filter_ctx ctx)
{
#ifdef SV_MUTANT_LISTENER_ERRNO_MAPPED
	/* MUTANT listener-errno-mapped: libseccomp loads it, and a listener
	 * already in the chain reaches the probe as ECANCELED, no hint naming
	 * it. */
	(void)export_memfd;
	return load_by_libseccomp(ctx);
#else
	struct sock_fprog fprog = {0};
	struct stat st;
	void *prog = NULL;
	int mfd = export_memfd(), rc, fd = -1;

	if (mfd < 0)
		return load_by_libseccomp(ctx);
	rc = seccomp_export_bpf(ctx, mfd);
	if (rc == 0 && fstat(mfd, &st) != 0)
		rc = -errno;
	if (rc == 0 && (st.st_size <= 0 || st.st_size % (off_t)sizeof(struct sock_filter) != 0 ||
			st.st_size > (off_t)(USHRT_MAX * sizeof(struct sock_filter))))
		rc = -E2BIG;
	if (rc == 0 && !(prog = malloc((size_t)st.st_size)))
		rc = -ENOMEM;
	if (rc == 0 && pread(mfd, prog, (size_t)st.st_size, 0) != st.st_size)
		rc = -EIO;
	close(mfd);
	if (rc == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		rc = -errno;
	if (rc == 0) {
		fprog.len = (unsigned short)((size_t)st.st_size / sizeof(struct sock_filter));
		fprog.filter = prog;
		fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				  SECCOMP_FILTER_FLAG_NEW_LISTENER, &fprog);
		if (fd < 0)
			rc = -errno;
	}
	free(prog);
	return rc < 0 ? rc : fd;
#endif
}

int sv_filterload_install(int names_judged)
{
	void *built;
	int rc, fd;

	rc = sv_fault("listener");
	if (rc)
		return rc;
	/* The child that becomes the agent: root is what it runs as. */
	rc = sv_filter_build(&built, (sv_filter_root_agent() ? SV_FILTER_SETID : 0u) |
					 (names_judged ? SV_FILTER_FILE_FLAGS : 0u));
	if (rc < 0)
		return rc;
	fd = load_with_listener(built);
	/* seccomp_release does not close the listener: it is ours now. */
	seccomp_release(built);
	if (fd < 0)
		return fd;
	/* After ours (no_new_privs is set by then); a failure refuses the run. */
	rc = fchroot_foreign();
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}
