/*
 * egress-features: probes the running kernel for the features that decide a
 * cell's verdict and prints one line per feature:
 *
 *     NAME=yes DETAIL...
 *     NAME=no DETAIL...
 *
 * NAME is one of seccomp_notify, pidfd_getfd, process_vm_readv, kcmp, yama,
 * ia32, x32, io_uring, pty, userns, coredump, multicast (docs/guest.md). The guest init runs it as
 * root before any precondition or syscall mask is applied, so it describes the kernel, not the
 * cell's emulated environment. Every probe that could leave state behind (a seccomp filter) or die
 * (a missing syscall entry point) runs in a forked child. Exit status 0 whenever all lines were
 * printed.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/seccomp.h>

/* Syscall numbers musl 1.2.3 may lack; the x86_64 numbers are fixed ABI. */
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#endif
#ifndef SYS_kcmp
#define SYS_kcmp 312
#endif
#define KCMP_FILE_TYPE 0 /* include/uapi/linux/kcmp.h KCMP_FILE */
#define X32_SYSCALL_BIT 0x40000000L
#define X32_NR_GETPID 39 /* common table: same number as x86_64 */
#define I386_NR_GETPID 20

/* A child's verdict: exit 0 = yes; exit E = no, errno E; killed = no, signal. */
typedef int (*child_probe)(void);

/* Short symbolic names for the errnos a probe can return. */
static const char *errno_name(int err)
{
	switch (err) {
	case ENOSYS:
		return "ENOSYS";
	case EPERM:
		return "EPERM";
	case EACCES:
		return "EACCES";
	case EINVAL:
		return "EINVAL";
	case EFAULT:
		return "EFAULT";
	case ENOMEM:
		return "ENOMEM";
	case EBADF:
		return "EBADF";
	case ESRCH:
		return "ESRCH";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case ENOENT:
		return "ENOENT";
	case EAFNOSUPPORT:
		return "EAFNOSUPPORT";
	case ENOPROTOOPT:
		return "ENOPROTOOPT";
	case ETIMEDOUT:
		return "ETIMEDOUT";
	default:
		return NULL;
	}
}

static const char *errno_str(int err)
{
	static char buf[32];
	const char *n = errno_name(err);

	if (n)
		return n;
	snprintf(buf, sizeof(buf), "errno-%d", err);
	return buf;
}

static void print_errno(const char *name, int err)
{
	printf("%s=no %s\n", name, errno_str(err));
}

/* Runs fn in a forked child; returns 0 (yes), an errno (>0) or -signal. */
static int run_child(child_probe fn)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(fn());
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return errno;
	}
	if (WIFSIGNALED(status))
		return -WTERMSIG(status);
	return WEXITSTATUS(status);
}

static void print_child(const char *name, int r, const char *yes_detail)
{
	if (r == 0)
		printf("%s=yes %s\n", name, yes_detail);
	else if (r < 0)
		printf("%s=no killed by signal %d\n", name, -r);
	else
		print_errno(name, r);
}

/*
 * A filter with SECCOMP_FILTER_FLAG_NEW_LISTENER returns a listener fd only
 * where user notification exists (5.0+); older kernels reject the flag with
 * EINVAL. The filter allows everything and dies with the child.
 */
static int probe_notify_child(void)
{
	struct sock_filter insn[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	struct sock_fprog prog = {.len = 1, .filter = insn};
	struct seccomp_notif_sizes sizes;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return errno;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0)
		return errno;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog) <
	    0)
		return errno;
	return 0;
}

/* The feature is "the kernel has the syscall": any answer but ENOSYS. */
static void probe_pidfd_getfd(void)
{
	long pidfd = syscall(SYS_pidfd_open, getpid(), 0);
	long fd;

	fd = syscall(SYS_pidfd_getfd, pidfd >= 0 ? pidfd : -1, 0, 0);
	if (fd < 0 && errno == ENOSYS) {
		print_errno("pidfd_getfd", ENOSYS);
		return;
	}
	if (fd >= 0)
		printf("pidfd_getfd=yes ok\n");
	else
		printf("pidfd_getfd=yes present (%s)\n", errno_str(errno));
	if (fd >= 0)
		close((int)fd);
	if (pidfd >= 0)
		close((int)pidfd);
}

/* CONFIG_CROSS_MEMORY_ATTACH=n makes process_vm_readv ENOSYS. */
static void probe_process_vm_readv(void)
{
	char src[8] = "egress", dst[8] = {0};
	struct iovec local = {.iov_base = dst, .iov_len = sizeof(dst)};
	struct iovec remote = {.iov_base = src, .iov_len = sizeof(src)};
	ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);

	if (n < 0 && errno == ENOSYS)
		print_errno("process_vm_readv", ENOSYS);
	else if (n < 0)
		printf("process_vm_readv=yes present (%s)\n", errno_str(errno));
	else
		printf("process_vm_readv=yes ok\n");
}

/*
 * CONFIG_KCMP (CONFIG_CHECKPOINT_RESTORE before 5.12) makes kcmp exist; the
 * supervisor needs it, before 6.9, to tell whether a thread's descriptor is
 * the leader's file. Proven by comparing one of our descriptors with itself.
 */
static void probe_kcmp(void)
{
	int fds[2];
	long r;

	if (pipe(fds) != 0) {
		print_errno("kcmp", errno);
		return;
	}
	r = syscall(SYS_kcmp, getpid(), getpid(), KCMP_FILE_TYPE, fds[0], fds[0]);
	if (r < 0 && errno == ENOSYS)
		print_errno("kcmp", ENOSYS);
	else if (r == 0)
		printf("kcmp=yes ok\n");
	else
		printf("kcmp=yes present (%s)\n", r < 0 ? errno_str(errno) : "files differ");
	close(fds[0]);
	close(fds[1]);
}

/*
 * Only whether Yama is built and listed: the scope is state (ptrace_scope=3
 * batches boot with it already 3), read back per cell in its preconditions,
 * so it must not make one kernel's boots look different.
 */
static void probe_yama(void)
{
	int fd = open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		printf("yama=no /proc/sys/kernel/yama/ptrace_scope: %s\n", errno_str(errno));
		return;
	}
	close(fd);
	printf("yama=yes ptrace_scope present\n");
}

/*
 * int $0x80 from 64-bit code enters the i386 table when IA32 emulation is
 * built and enabled; without it the vector has no gate and the child dies with
 * SIGSEGV. The compat entry returns with r8-r15 zeroed (they are not saved for
 * a 32-bit caller), hence the clobbers.
 */
static int probe_ia32_child(void)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"((long)I386_NR_GETPID)
			 : "memory", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15");
	if (ret == (long)getpid())
		return 0;
	return ret < 0 && ret > -4096 ? (int)-ret : 255;
}

/*
 * x32: CONFIG_X86_X32_ABI (CONFIG_X86_X32 on 5.10) and, on Debian, enabled
 * at boot (syscall.x32=y: Debian builds it disabled by default).
 */
static int probe_x32_child(void)
{
	long r = syscall(X32_SYSCALL_BIT | X32_NR_GETPID);

	if (r == (long)getpid())
		return 0;
	return r < 0 ? errno : 255;
}

/* io_uring_setup answers EPERM where kernel.io_uring_disabled forbids it. */
static void probe_io_uring(void)
{
	struct io_uring_params p;
	long fd;

	memset(&p, 0, sizeof(p));
	fd = syscall(SYS_io_uring_setup, 1, &p);
	if (fd >= 0) {
		close((int)fd);
		printf("io_uring=yes ok\n");
		return;
	}
	print_errno("io_uring", errno);
}

/* A pseudo-terminal for stdio=N pty: /dev/ptmx with devpts on /dev/pts
 * (the guest init mounts it; CONFIG_UNIX98_PTYS). */
static void probe_pty(void)
{
	int fd = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		printf("pty=yes /dev/ptmx ok\n");
		return;
	}
	print_errno("pty", errno);
}

/*
 * What a uid-1000 supervisor contains its agent with (docs/design.md, "User
 * namespace"): a user namespace an unprivileged process may make
 * (CONFIG_USER_NS, user.max_user_namespaces, Debian's
 * kernel.unprivileged_userns_clone), and a pid and mount namespace made
 * inside it. Proven as uid 65534, in a child that dies with them.
 */
static int probe_userns_child(void)
{
	if (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) != 0 ||
	    setresuid(65534, 65534, 65534) != 0)
		return errno;
	if (unshare(CLONE_NEWUSER) != 0)
		return errno;
	if (unshare(CLONE_NEWPID | CLONE_NEWNS) != 0)
		return errno;
	return 0;
}

/* kernel.core_pattern, for a cell whose root service points it at a
 * program (CONFIG_COREDUMP: the tinyconfig kernels have none). Proven by
 * writing its own value back, as root, before any cell. */
static void probe_coredump(void)
{
	char value[512];
	int fd = open("/proc/sys/kernel/core_pattern", O_RDWR | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, value, sizeof(value)) : -1;

	if (n > 0 && lseek(fd, 0, SEEK_SET) == 0 && write(fd, value, (size_t)n) == n) {
		close(fd);
		printf("coredump=yes kernel.core_pattern written back\n");
		return;
	}
	n = errno;
	if (fd >= 0)
		close(fd);
	print_errno("coredump", (int)n);
}

/*
 * What the multicast-join cells' relay needs (scenarios/multicast-join-*):
 * a packet socket on lo (CONFIG_PACKET) that sees the IGMP report the
 * kernel sends when a UDP socket joins a group there (CONFIG_IP_MULTICAST;
 * the tinyconfig kernels have neither). Proven by joining 239.1.2.3 on lo in
 * a network namespace of the child's own (its lo brought up there) and
 * reading the report, within a second.
 */
static int probe_multicast_child(void)
{
	static const unsigned char group[4] = {239, 1, 2, 3};
	struct ifreq ifr = {0};
	struct ip_mreqn mr = {0};
	struct sockaddr_ll ll = {0};
	unsigned char buf[512];
	int s, cap;

	if (unshare(CLONE_NEWNET) != 0)
		return errno;
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) != 0)
		return errno;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0 || ioctl(s, SIOCGIFINDEX, &ifr) != 0)
		return errno;
	cap = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(ETH_P_IP));
	if (cap < 0)
		return errno;
	ll.sll_family = AF_PACKET;
	ll.sll_protocol = htons(ETH_P_IP);
	ll.sll_ifindex = ifr.ifr_ifindex;
	if (bind(cap, (struct sockaddr *)&ll, sizeof(ll)) != 0)
		return errno;
	memcpy(&mr.imr_multiaddr, group, sizeof(group));
	mr.imr_ifindex = ifr.ifr_ifindex;
	if (setsockopt(s, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr, sizeof(mr)) != 0)
		return errno;
	for (int round = 0; round < 40; round++) {
		struct pollfd p = {.fd = cap, .events = POLLIN};
		ssize_t n;

		if (poll(&p, 1, 25) != 1)
			continue;
		n = recv(cap, buf, sizeof(buf), 0);
		/* An IPv4 packet of protocol 2 (IGMP) naming the group. */
		if (n > 24 && buf[9] == 2 && memmem(buf + 20, (size_t)n - 20, group, 4))
			return 0;
	}
	return ETIMEDOUT;
}

int main(void)
{
	print_child("seccomp_notify", run_child(probe_notify_child), "listener ok");
	probe_pidfd_getfd();
	probe_process_vm_readv();
	probe_kcmp();
	probe_yama();
	print_child("ia32", run_child(probe_ia32_child), "int80 getpid ok");
	print_child("x32", run_child(probe_x32_child), "x32 getpid ok");
	probe_io_uring();
	probe_pty();
	print_child("userns", run_child(probe_userns_child),
		    "unprivileged user namespace with pid and mount namespaces ok");
	probe_coredump();
	print_child("multicast", run_child(probe_multicast_child),
		    "IGMP report of a join on lo seen by a packet socket");
	return fflush(stdout) == 0 ? 0 : 1;
}
