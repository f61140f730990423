/* Unaligned little-endian loads from bytes copied out of the agent (x86_64:
 * native order). Pure, header-only. */
#ifndef SV_BYTES_H
#define SV_BYTES_H

#include <stdint.h>
#include <string.h>

static inline uint16_t sv_load16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t sv_load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t sv_load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

#endif
