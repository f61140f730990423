/* Where an agent's pointer can never point: pure arithmetic on x86_64's
 * user address space, so that a failed read of the agent's memory is filed
 * by the address alone (target.c), never by what the agent's mappings look
 * like afterwards. */
#ifndef SV_ADDRSPACE_H
#define SV_ADDRSPACE_H

#include <stddef.h>
#include <stdint.h>

/* The end of the largest user address space on x86_64 (5-level paging:
 * TASK_SIZE_MAX is 2^56 less a page). */
#define SV_USER_ADDR_END ((UINT64_C(1) << 56) - 4096)

/* 1 when a byte of [addr, addr+len) lies where no mapping of the agent can
 * ever be, so the kernel's own copy would fail whatever the agent's threads
 * do: below min_mappable (vm.mmap_min_addr; the agent has no
 * CAP_SYS_RAWIO), past SV_USER_ADDR_END, or a range that wraps. The
 * address is judged without the bits linear address masking (LAM_U57,
 * 6.4+) lets the kernel ignore (62:57): a tagged pointer stands for the
 * page it names. 0 otherwise, and for len 0. */
int sv_addrspace_never_mapped(uint64_t addr, size_t len, uint64_t min_mappable);

#endif
