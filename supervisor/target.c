#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fault.h"

/* Set once process_vm_readv answered ENOSYS: the kernel lacks
 * CONFIG_CROSS_MEMORY_ATTACH and will keep lacking it. */
static atomic_int vm_enosys;

static int vm_rw(pid_t pid, uint64_t addr, void *buf, size_t len, int write)
{
	struct iovec local = {.iov_base = buf, .iov_len = len};
	struct iovec remote = {.iov_base = (void *)(uintptr_t)addr, .iov_len = len};
	ssize_t n;
	int err = sv_fault(write ? "process_vm_writev" : "process_vm_readv");

	if (err)
		return err;
	if (len == 0)
		return 0;
	n = write ? process_vm_writev(pid, &local, 1, &remote, 1, 0)
		  : process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return -errno;
	/* A short transfer means the range runs into unmapped memory. */
	return (size_t)n == len ? 0 : -EFAULT;
}

static int procmem_rw(pid_t pid, uint64_t addr, void *buf, size_t len, int write)
{
	char path[40];
	ssize_t n;
	int fd, err = sv_fault("proc_mem");

	if (err)
		return err;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, (write ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	if (len == 0) {
		close(fd);
		return 0;
	}
	n = write ? pwrite(fd, buf, len, (off_t)addr) : pread(fd, buf, len, (off_t)addr);
	err = n < 0 ? -errno : 0;
	close(fd);
	/* /proc/PID/mem reports an unmapped address as EIO (and a short count
	 * for a range that runs into one); both are the agent's EFAULT. Addresses
	 * above the off_t range come back as EINVAL from the lseek checks. */
	if (err == -EIO || err == -EINVAL || (err == 0 && (size_t)n != len))
		return -EFAULT;
	return err;
}

int sv_target_read_vm(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	return vm_rw(pid, addr, buf, len, 0);
}

int sv_target_read_procmem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	return procmem_rw(pid, addr, buf, len, 0);
}

static int target_rw(pid_t pid, uint64_t addr, void *buf, size_t len, int write,
		     const char **mechanism)
{
	int err;

	if (!atomic_load(&vm_enosys)) {
		*mechanism = write ? "process_vm_writev" : "process_vm_readv";
		err = vm_rw(pid, addr, buf, len, write);
		if (err != -ENOSYS)
			return err;
		atomic_store(&vm_enosys, 1);
	}
	*mechanism = "proc_mem";
	return procmem_rw(pid, addr, buf, len, write);
}

int sv_target_read(pid_t pid, uint64_t addr, void *buf, size_t len, const char **mechanism)
{
	return target_rw(pid, addr, buf, len, 0, mechanism);
}

int sv_target_write(pid_t pid, uint64_t addr, const void *buf, size_t len, const char **mechanism)
{
	return target_rw(pid, addr, (void *)buf, len, 1, mechanism);
}
