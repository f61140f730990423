#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "addrspace.h"
#include "fault.h"

/* Set once process_vm_readv answered ENOSYS: the kernel lacks
 * CONFIG_CROSS_MEMORY_ATTACH and will keep lacking it. */
static atomic_int vm_enosys;

/* The lowest address an agent can map: vm.mmap_min_addr, read once at
 * set-up (sv_target_init). Below it mapping needs CAP_SYS_RAWIO, which the
 * agent never keeps (caps.c), and so does lowering the sysctl. 0 when it
 * could not be read: then no low address counts as never mappable. */
static uint64_t min_mappable;
static int min_mappable_read;

int sv_target_init(void)
{
	unsigned long long v;
	FILE *f = fopen("/proc/sys/vm/mmap_min_addr", "re");
	int n, err;

	if (!f) {
		err = errno;
		return -err;
	}
	n = fscanf(f, "%llu", &v);
	fclose(f);
	if (n != 1)
		return -EIO;
	min_mappable = v;
	min_mappable_read = 1;
	return 0;
}

int sv_target_min_mappable(uint64_t *out)
{
	*out = min_mappable;
	return min_mappable_read;
}

#ifdef SV_MUTANT_MAPS_DECIDE
/* MUTANT maps-decide: the rule before the address bounds: a failed read is
 * the agent's bad address when its /proc/PID/maps, read after the failure,
 * show no mapping at addr the agent could read (none of r, w, x): a page
 * it unmapped, or that another of its threads flips to PROT_NONE, hides
 * the attempt. */
static int readable_now(pid_t pid, uint64_t addr)
{
	unsigned long long lo, hi;
	char path[40], perms[5];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	while (f && !found && fscanf(f, "%llx-%llx %4s%*[^\n]", &lo, &hi, perms) == 3)
		found = lo <= addr && addr < hi && strncmp(perms, "---", 3) != 0;
	if (f)
		fclose(f);
	return found;
}
#endif

/*
 * A failed read (EFAULT, a short count, /proc/PID/mem's EIO) is the agent's
 * bad address, -EFAULT, only where a byte of [addr, addr+len) lies where no
 * mapping can ever be (sv_addrspace_never_mapped). The kernel would have
 * refused that call whatever the agent's threads did. Anywhere
 * else it is -EIO, the supervisor's blindness, a mechanism failure: the
 * agent reads pages that no remote access can (VM_IO/VM_PFNMAP mappings such
 * as [vvar], memfd_secret pages, pages without VM_READ, a userfaultfd page
 * not yet present on the /proc/PID/mem route), and nothing read after the
 * failure tells those from a bad pointer: the agent's other threads may
 * change its mappings in between (review h-attack3's toggle). So an address
 * the agent could have mapped is never filed as its mistake, even when
 * nothing is mapped there (a stale pointer: a capability-error, never a pass).
 */
static int fault_or_blind(pid_t pid, uint64_t addr, size_t len)
{
	(void)pid;
	if (sv_addrspace_never_mapped(addr, len, min_mappable))
		return -EFAULT;
#ifdef SV_MUTANT_MAPS_DECIDE
	if (!readable_now(pid, addr))
		return -EFAULT;
#endif
	return -EIO;
}

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
	err = n < 0 ? -errno : 0;
	/* A short transfer means the range runs into memory it cannot reach. */
	if (err == 0 && (size_t)n != len)
		err = -EFAULT;
#ifdef SV_MUTANT_EFAULT_TRUSTED
	/* MUTANT efault-trusted: every EFAULT of process_vm_readv is the
	 * agent's bad address. */
	return err;
#endif
	/* EFAULT is also what pages the agent reads but the remote access
	 * cannot reach give (found by the design audit): fault_or_blind. */
	if (err == -EFAULT && !write)
		return fault_or_blind(pid, addr, len);
	return err;
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
	 * for a range that runs into one), as it does a page it cannot reach:
	 * fault_or_blind decides. Addresses above the off_t range come back as
	 * EINVAL from the lseek checks. */
	if (err == -EIO || err == -EINVAL || (err == 0 && (size_t)n != len))
		return write ? -EFAULT : fault_or_blind(pid, addr, len);
	return err;
}

int sv_target_mm_gone(pid_t tid)
{
	char path[40], line[128];
	int vm = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT || errno == ESRCH;
	while (!vm && fgets(line, sizeof(line), f))
		vm = strncmp(line, "VmSize:", 7) == 0;
	fclose(f);
	return !vm;
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
