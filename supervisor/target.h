/* Reading (and, for sendmmsg's msg_len, writing) the agent's memory. Needs
 * ptrace-level access (PTRACE_MODE_ATTACH_REALCREDS for process_vm_readv,
 * PTRACE_MODE_ATTACH at open for /proc/PID/mem): exactly what hardened hosts
 * take away, so every failure is returned precisely, never guessed at. */
#ifndef SV_TARGET_H
#define SV_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Reads vm.mmap_min_addr, below which the agent can never map. Set-up only,
 * before any read. Returns 0 or -errno; on failure no low address counts as
 * never mappable (stricter: such a read is then a mechanism failure). */
int sv_target_init(void);

/* The vm.mmap_min_addr sv_target_init read, for the report: 1 with *out
 * set, or 0 when it could not be read. */
int sv_target_min_mappable(uint64_t *out);

/* Copies len bytes at addr in process (thread) pid into buf. Uses
 * process_vm_readv; once that answers ENOSYS (CONFIG_CROSS_MEMORY_ATTACH=n)
 * every later read goes through /proc/PID/mem. Returns 0, or -EFAULT when part
 * of the range lies where no mapping can ever be (below vm.mmap_min_addr,
 * past the user address space: the agent's own mistake), or -EIO for any
 * other range that could not be read (mapped or not: the supervisor cannot
 * tell a page it cannot reach from a pointer the agent made stale), or the
 * -errno of the failing mechanism, with *mechanism naming it
 * ("process_vm_readv" or "proc_mem") in both of the last two cases. */
int sv_target_read(pid_t pid, uint64_t addr, void *buf, size_t len, const char **mechanism);

/* The same for writing len bytes from buf to addr ("process_vm_writev" or
 * "proc_mem"). */
int sv_target_write(pid_t pid, uint64_t addr, const void *buf, size_t len, const char **mechanism);

/* Whether thread tid has no memory any more (its /proc status shows no
 * VmSize: exit_mm has run, or it is gone): /proc/PID/mem then reads
 * nothing, an EIO that is not blindness. Returns 1 or 0. */
int sv_target_mm_gone(pid_t tid);

/* For the probe: one read through each route, without the fallback.
 * Return 0 or -errno. */
int sv_target_read_vm(pid_t pid, uint64_t addr, void *buf, size_t len);
int sv_target_read_procmem(pid_t pid, uint64_t addr, void *buf, size_t len);

#endif
