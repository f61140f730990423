/* Seccomp user-notification names newer than the kernel headers the build
 * uses (Debian 12's linux-libc-dev is 6.1): defined here once, for the
 * supervisor and for the benchmark that measures its floor. */
#ifndef SV_SECCOMP_COMPAT_H
#define SV_SECCOMP_COMPAT_H

#include <linux/seccomp.h>

/* Linux 6.6: wake the other side on the current CPU. Older kernels answer
 * EINVAL or ENOTTY to the ioctl. */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

#endif
