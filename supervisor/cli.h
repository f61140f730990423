/* The command line. Pure: parses, never touches the system. */
#ifndef SV_CLI_H
#define SV_CLI_H

#include <stddef.h>

#include "policy.h"
#include "rootfs.h"
#include "unixpeer.h"

struct sv_cli {
	struct sv_policy policy; /* owned; sv_policy_free when done */
	const char *report;      /* --report FILE, or NULL */
	int report_fd;           /* --report-fd N (>= 3), or -1 */
	int probe_only;          /* --probe */
	/* --writable PATH: what a root agent may write (rootfs.h) */
	const char *writable[SV_ROOTFS_MAX_WRITABLE];
	int nwritable;
	/* --unix-peer PATH|@NAME: a root agent's declared AF_UNIX peers (unixpeer.h) */
	const char *unix_peer[SV_UNIXPEER_MAX_DECLARED];
	int nunix_peer;
	int help;    /* --help */
	char **argv; /* the agent's argv (points into the input), NULL with --probe */
};

/* Parses argv (argv[0] is our own name). Returns 0, or -EINVAL with a message
 * naming the offending argument in err; -ENOMEM when memory ran out. */
int sv_cli_parse(int argc, char **argv, struct sv_cli *out, char *err, size_t errlen);

/* The usage text. */
extern const char sv_cli_usage[];

#endif
