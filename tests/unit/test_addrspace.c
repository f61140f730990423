/* addrspace.c: where an agent's pointer can never point. Derived from x86_64:
 * mmap below vm.mmap_min_addr needs CAP_SYS_RAWIO (security/commoncap.c
 * cap_mmap_addr), the user half ends at TASK_SIZE_MAX (2^56 less a page
 * with 5-level paging), and with LAM the kernel ignores pointer bits 62:57
 * (untagged_addr): a tagged pointer names the page under its tag. */
#include <stdint.h>

#include "addrspace.h"
#include "harness.h"

#define MIN 65536ull /* Debian's vm.mmap_min_addr */
#define END SV_USER_ADDR_END
#define TAG57 (1ull << 57)

struct addr_case {
	unsigned long long addr, len, min;
	int never; /* 1: the agent's own EFAULT; 0: could be mapped (EIO) */
	const char *why;
};

static const struct addr_case addr_cases[] = {
    {8, 16, MIN, 1, "page 0 (invalid-args' pointer)"},
    {MIN - 1, 16, MIN, 1, "starts below the minimum"},
    {MIN, 16, MIN, 0, "at the minimum"},
    {0x7f0000000000ull, 16, MIN, 0, "a stale pointer in the mmap area"},
    {0x7f0000000000ull, 16, 0, 0, "the same with the minimum unread"},
    {8, 16, 0, 0, "page 0 with the minimum unread: stricter"},
    {END - 16, 16, MIN, 0, "ends at the last user byte"},
    {END - 15, 16, MIN, 1, "one byte past the user half"},
    {END, 1, MIN, 1, "past the user half"},
    {0xfffffffffffffff0ull, 32, MIN, 1, "wraps"},
    {0xffff800000000000ull, 16, MIN, 1, "kernel half"},
    {0x8000000000000010ull, 16, MIN, 1, "bit 63 with a low address"},
    {TAG57 | 0x7f0000000000ull, 16, MIN, 0, "LAM-tagged pointer to a mappable page"},
    {(0x3full << 57) | 0x7f0000000000ull, 16, MIN, 0, "every LAM_U57 tag bit"},
    {(1ull << 48) | 0x7f0000000000ull, 16, MIN, 0, "bit 48: a 5-level address, no tag"},
    {TAG57 | 8, 16, MIN, 1, "LAM-tagged pointer to page 0"},
    {0x7f0000000000ull, 0, MIN, 0, "nothing to read"},
    {0x7f0000000000ull, END + 1, MIN, 1, "longer than the user half"},
};

TEST(read_failure_is_the_agents_only_where_nothing_can_ever_be_mapped)
{
	for (size_t i = 0; i < sizeof(addr_cases) / sizeof(addr_cases[0]); i++) {
		const struct addr_case *k = &addr_cases[i];

		th_case("case %zu: %s", i, k->why);
		EXPECT_EQ(sv_addrspace_never_mapped(k->addr, (size_t)k->len, k->min), k->never);
	}
}
