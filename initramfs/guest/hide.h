/*
 * The guest's own state out of the run's reach (docs/guest.md, "What the
 * run cannot reach"): the mount namespace egress-envexec gives the
 * supervisor and its agent. Every function returns 0 or -errno and, on
 * failure, writes what failed into ERR.
 */
#ifndef EGRESS_GUEST_HIDE_H
#define EGRESS_GUEST_HIDE_H

#include <stddef.h>

/*
 * Moves the caller into a mount namespace of its own (root, CAP_SYS_ADMIN
 * and CAP_MKNOD) where / is read-only, every writable mount is nodev and
 * /dev is a read-only tmpfs holding only the harmless character devices
 * (null, zero, full, random, urandom, tty, userfaultfd, copied from the
 * shared devtmpfs) and the fd and std* links. Init's own view is unchanged.
 */
int ev_hide_enter(char *err, size_t errlen);

/* Covers DIR with an empty read-only tmpfs in the caller's namespace. */
int ev_hide_cover(const char *dir, char *err, size_t errlen);

/*
 * Reads back what ev_hide_enter promised, from inside the namespace: 0 when
 * no serial port, console or kernel log node is reachable under /dev and
 * every writable mount is nodev; -EEXIST with DETAIL naming the first node
 * or mount that breaks it; another -errno when it cannot be read.
 */
int ev_hide_check(char *detail, size_t len);

#endif
