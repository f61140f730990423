/*
 * The cell file as egress-envexec reads it (the contract: docs/guest.md,
 * "The cell file"): the keys envexec acts on, parsed into a struct; the
 * others the contract defines are accepted and left to the guest init,
 * which has validated every key before envexec runs.
 */
#ifndef EGRESS_GUEST_CELLFILE_H
#define EGRESS_GUEST_CELLFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "caller.h"

#define EV_CELL_MAX_ITEMS 128
#define EV_CELL_MAX_BYTES 65536

/* mask=SYSCALL:ERRNO, resolved for the native x86_64 table. */
struct ev_mask_rule {
	const char *name;
	int nr;
	int err;
};

struct ev_cell {
	uid_t uid;
	gid_t gid; /* the uid's own group without gid=, like a login */
	int loopback;
	uint64_t drop; /* capability bits to drop */
	const char *allow[EV_CELL_MAX_ITEMS];
	int nallow;
	const char *agent[EV_CELL_MAX_ITEMS]; /* NULL-terminated, at least one */
	int nagent;
	struct ev_mask_rule mask[EV_CELL_MAX_ITEMS];
	int nmask;
	struct ev_stdio stdio[3]; /* stdio=: what the caller puts on 0-2 */
	int nstdio;
	const char *mount[4]; /* mount=: what the caller has mounted */
	int nmount;
	const char *writable[4]; /* writable=: directories the agent may write */
	int nwritable;
	const char *unix_peer[4]; /* unix_peer=: declared AF_UNIX peers */
	int nunix_peer;
	char text[EV_CELL_MAX_BYTES + 1]; /* the file; the strings above point into it */
};

/*
 * Reads the cell file PATH into C. Returns 0, or -errno with ERR saying what
 * is wrong and on which line, for the caller to prefix with PATH (-EINVAL: a
 * line the contract does not allow, or a file of EV_CELL_MAX_BYTES or more;
 * else the open or read's errno).
 */
int ev_cell_parse(const char *path, struct ev_cell *c, char *err, size_t errlen);

#endif
