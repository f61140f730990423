/* Shared by the libFuzzer targets: the entry point's prototype (the build's
 * -Wmissing-prototypes wants one), a property check that stops the run with
 * the broken property named, and an exact-size copy of the input. */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* abort() is what libFuzzer reports as a crash and saves the input for:
 * a broken contract is a finding like an ASan report. */
#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: property does not hold: %s\n", __FILE__, __LINE__, \
				#cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* A malloc'd copy of exactly n bytes: ASan flags a read even one byte past
 * n (under ASan malloc(0) is a valid pointer to nothing, so a 0-byte name is
 * checked too). malloc alignment gives the 8-byte alignment the control
 * walker requires. */
static inline uint8_t *fuzz_dup(const uint8_t *p, size_t n)
{
	uint8_t *b = malloc(n);

	if (b == NULL)
		abort();
	if (n)
		memcpy(b, p, n);
	return b;
}

#endif
