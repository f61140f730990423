/* The /dev of a root agent's mount namespace: a tmpfs with only what a
 * program may need. */
#ifndef SV_DEVNODES_H
#define SV_DEVNODES_H

#include <stddef.h>

/* Covers /dev with a tmpfs holding null, zero, full, random, urandom, tty
 * and userfaultfd where the caller's /dev has them under their usual
 * numbers, the fd and std* links, a /dev/shm tmpfs, a devpts of its own
 * where the caller has ptys (*pts then 1), and makes it read-only. A node
 * is made with mknod, or where the namespace may not make one (EPERM: a
 * user namespace, as a rootless container's root) bound from the caller's
 * node, opened before the tmpfs covered it. Returns 0, or -errno with
 * what failed in why (for the caller's message). */
int sv_devnodes_make(int *pts, char *why, size_t len);

/* Whether the mount at mp (a mountinfo mount point) is one of the nodes
 * sv_devnodes_make bound: 1 or 0. The read-back allows such a mount its
 * device nodes, as it allows /dev's. */
int sv_devnodes_bound(const char *mp);

#endif
