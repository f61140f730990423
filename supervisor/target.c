#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fault.h"

/* Set once process_vm_readv answered ENOSYS: the kernel lacks
 * CONFIG_CROSS_MEMORY_ATTACH and will keep lacking it. */
static atomic_int vm_enosys;

/* Whether a maps permission field names memory the agent can read. On
 * x86_64 a present page is readable to its owner whatever its flags (no
 * write-only pages; execute-only only with protection keys), and the fault
 * handler accepts any of VM_READ, VM_WRITE and VM_EXEC (vma_is_accessible),
 * so "-w-p" and "--xp" are read by the agent's own connect while
 * get_user_pages refuses them without VM_READ. Only "---" is unreadable.
 * With protection keys an execute-only page counts as readable: EIO, never
 * a false pass. */
static int perms_accessible(const char *perms)
{
#ifdef SV_MUTANT_READ_BIT_ONLY
	/* MUTANT read-bit-only: only 'r' counts, as in 4a3fa27. */
	return perms[0] == 'r';
#endif
	return perms[0] == 'r' || perms[1] == 'w' || perms[2] == 'x';
}

/* Reads one whole line of maps into line (its start, truncated to size):
 * a line longer than the buffer (a path of up to PATH_MAX, each '\n' in a
 * name printed as four characters) is read to its end, so its tail is
 * never taken for the next mapping. Returns 0 at end of file. */
static int maps_line(FILE *f, char *line, size_t size)
{
	char rest[256];

	if (!fgets(line, (int)size, f))
		return 0;
#ifdef SV_MUTANT_SPLIT_MAPS_LINE
	/* MUTANT split-maps-line: the tail of a long line is taken for the
	 * next line, as in 4a3fa27. */
	return 1;
#endif
	if (!strchr(line, '\n'))
		while (fgets(rest, sizeof(rest), f) && !strchr(rest, '\n'))
			;
	return 1;
}

/*
 * 1 when [addr, addr+len) lies wholly in mappings of pid the agent can read
 * (its /proc/PID/maps; perms_accessible), 0 when not. Both routes fail on
 * pages the agent itself can read: /proc/PID/mem on a userfaultfd page not
 * yet present (remote faults get no retry, so no handler runs) answers EIO
 * where process_vm_readv would have waited for the handler; both on
 * VM_IO/VM_PFNMAP mappings, memfd_secret pages and mappings without
 * VM_READ. Such a failure is the supervisor's blindness, never the agent's
 * EFAULT. Maps that cannot be read are -errno: the caller cannot tell
 * either way.
 */
static int range_readable(pid_t pid, uint64_t addr, size_t len)
{
	char path[40], line[512];
	uint64_t want = addr, end = addr + len;
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f) {
		err = errno;
		return err == ENOENT ? -ESRCH : -err;
	}
	/* Sorted by address: walk until the range is covered or a gap shows. */
	while (want < end && maps_line(f, line, sizeof(line))) {
		unsigned long long lo, hi;
		char perms[8];

		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) != 3 || strlen(perms) < 3)
			break;
		if (hi <= want)
			continue;
		if (lo > want || !perms_accessible(perms))
			break;
		want = hi;
	}
	fclose(f);
	return want >= end;
}

/* A read that failed as the agent's bad address (-EFAULT) is taken as such
 * only where the agent could not read the range either (range_readable):
 * where it can, the failure is ours, -EIO, a mechanism failure. Maps that
 * cannot be read give their -errno (the target gone: -ESRCH). */
static int fault_or_blind(pid_t pid, uint64_t addr, size_t len)
{
	int r = range_readable(pid, addr, len);

	return r > 0 ? -EIO : r < 0 ? r : -EFAULT;
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
	 * cannot reach give: VM_IO/VM_PFNMAP mappings ([vvar]) and
	 * memfd_secret pages, which get_user_pages refuses (found by the
	 * design audit). Filed as the agent's invalid call, the attempt would
	 * be hidden behind a pass. */
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
	 * for a range that runs into one); both are the agent's EFAULT, unless
	 * the range is mapped and readable to the agent (range_readable): then
	 * EIO, a mechanism failure. Addresses above the off_t range come back
	 * as EINVAL from the lseek checks. */
	if (err == -EIO || err == -EINVAL || (err == 0 && (size_t)n != len))
		return write ? -EFAULT : fault_or_blind(pid, addr, len);
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
