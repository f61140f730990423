/* The socket options and ioctl commands the filter traps by value (filter.c
 * adds a rule per row) and the reason each is denied (mediate.c answers
 * with it). */
#ifndef SV_FILTERTAB_H
#define SV_FILTERTAB_H

#include <stddef.h>
#include <stdint.h>

/* SO_PASSRIGHTS (include/uapi/asm-generic/socket.h, 6.16): turned off on an
 * AF_UNIX socket on 0-2 (stdfds.c), and trapped so the agent cannot turn it
 * back on (filter.c). */
#define SV_SO_PASSRIGHTS 83

struct sv_filtertab_option {
	int level, name;
	const char *reason;
};

struct sv_filtertab_ioctl {
	uint32_t cmd;
	const char *reason;
};

/* The trapped socket options (level, name), n set to their count; the
 * rows a mutant removes are absent. */
const struct sv_filtertab_option *sv_filtertab_options(size_t *n);

/* The ioctl commands trapped for every agent on every ABI, n set to their
 * count. */
const struct sv_filtertab_ioctl *sv_filtertab_ioctls(size_t *n);

/* The reason a trapped setsockopt (level, name: the low 32 bits of its
 * registers) is denied ("source-route", "source-address",
 * "output-interface", "multicast-join", "descriptor-passing"), or NULL for
 * an option the filter does not trap. */
const char *sv_filtertab_option_reason(uint32_t level, uint32_t name);

/* The reason an ioctl command (its low 32 bits) that the filter traps for
 * every agent on every ABI is denied ("tun-attach", "tty-inject",
 * "module-autoload"), or NULL for any other. */
const char *sv_filtertab_ioctl_reason(uint32_t cmd);

#endif
