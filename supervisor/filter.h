/* The seccomp filter: which calls reach the supervisor. */
#ifndef SV_FILTER_H
#define SV_FILTER_H

#include <stdint.h>

/* Builds the whole filter (native x86_64 plus the i386 and x32 ABIs, merged)
 * without loading it, into *ctx (a scmp_filter_ctx the caller releases with
 * seccomp_release). Returns 0 or -errno. What notifies, on every ABI:
 * connect, sendto, sendmsg, sendmmsg; io_uring_setup, io_uring_enter,
 * io_uring_register; clone3; ptrace, process_vm_readv, process_vm_writev,
 * pidfd_getfd, kcmp; prlimit64 with a pid register other than 0; setns;
 * clone with CLONE_FILES but not CLONE_THREAD. Natively
 * also: listen; socket() for every (family, type, protocol) but AF_UNIX and
 * TCP/UDP over IPv4/IPv6; setsockopt() of source routes, flow labels, free
 * binding and SO_PASSRIGHTS. On i386 and x32 also socketcall, socket,
 * setsockopt and listen, whole. Every int argument is compared in its low 32
 * bits only (prlimit64's pid in all 64: a stray high bit only notifies).
 * With SV_FILTER_SETID in rules (a root agent), on every ABI also: chmod,
 * fchmod, fchmodat, fchmodat2, creat, mknod and mknodat whose mode holds
 * S_ISUID or S_ISGID, open and openat that create with either, openat2
 * whole, the btrfs snapshot ioctls, and unshare and clone with
 * CLONE_NEWCGROUP. With SV_FILTER_FILE_FLAGS (a run
 * whose AF_UNIX names are judged, sv_contain_judges_names), on every ABI
 * also: fcntl (and i386's fcntl64) F_SETFL without O_NONBLOCK, and ioctl
 * FIONBIO. Used by sv_filterload_install and by the filter table tests
 * (filter-export). */
enum { SV_FILTER_SETID = 1u, SV_FILTER_FILE_FLAGS = 2u };

/* Whether the run's agent is root and gets SV_FILTER_SETID's rules: it
 * starts as the supervisor's uid, so this is the supervisor's euid, the
 * same in the child that installs the filter and in a handler that must
 * know which rule trapped a call. */
int sv_filter_root_agent(void);
int sv_filter_build(void **ctx, unsigned rules);

/* F_SETDELEG (include/uapi/linux/fcntl.h, 6.19: F_LINUX_SPECIFIC_BASE + 16):
 * a file or directory delegation, neutralized as F_SETLEASE is. */
#define SV_F_SETDELEG 1040

/* fchroot (Linux 7.3; arch/x86/entry/syscalls: 472 on x86_64 and i386, with
 * the x32 bit on x32), newer than libseccomp's table: neutralized (ENOSYS)
 * on every ABI. With FD_FAILFS_ROOT it needs no capability under
 * no_new_privs and leaves a root where no lookup succeeds, the supervisor's
 * through /proc/TID/root included (review h-attack47). */
#define SV_NR_FCHROOT 472
/* The x32 ABI's syscall numbers carry this bit (arch/x86/include/uapi). */
#define SV_X32_SYSCALL_BIT 0x40000000u

#endif
