#include "addrspace.h"

/* Linear address masking: with LAM_U57 enabled for its mm (the only mode
 * Linux offers: LAM_U48's bits 62:48 would overlap 5-level user addresses)
 * the kernel strips bits 62:57 of an agent's pointer before any access
 * (untagged_addr). Without LAM such a pointer is non-canonical and the
 * kernel refuses it: judging it as mappable is then stricter than the
 * kernel (a mechanism failure, never a hidden attempt). */
#define LAM_MASKABLE (UINT64_C(0x3f) << 57)

int sv_addrspace_never_mapped(uint64_t addr, size_t len, uint64_t min_mappable)
{
	uint64_t a = addr & ~LAM_MASKABLE;

	if (len == 0)
		return 0;
	/* Bit 63 is the kernel's half: no user page, tagged or not. */
	if (addr >> 63)
		return 1;
	return a < min_mappable || len > SV_USER_ADDR_END || a > SV_USER_ADDR_END - len;
}
