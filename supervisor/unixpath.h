/* Where the kernel would find an AF_UNIX path name of the agent's
 * (docs/design.md, "A root agent's AF_UNIX peers"): its calling thread's
 * root is the root of every absolute name and symbolic link, a relative
 * name starts at the thread's working directory, and the supervisor,
 * which shares neither, must open that very object without being led
 * elsewhere by what the agent mounts, renames or moves meanwhile. Used by
 * unixpeer.c, which judges whose the socket is. */
#ifndef SV_UNIXPATH_H
#define SV_UNIXPATH_H

#include <stddef.h>
#include <sys/types.h>

/* sv_unixpath_open's answer for a name that cannot be shown to be where
 * the kernel looks (a working directory no name in the root leads to, too
 * deep to name, a lookup from the root that failed for a name leaving its
 * directory): to be denied, never answered. Above every errno. */
#define SV_UNIXPATH_UNNAMED 0x10000

/* Opens (O_PATH) the object the path name path (plen bytes, no NUL
 * needed) names for thread tid, as the kernel's connect() would find it.
 * Returns 0 with *fd, a positive errno (the kernel's own answer: ENOENT,
 * ELOOP, ...), SV_UNIXPATH_UNNAMED, or -errno when /proc or a confined
 * lookup could not be made (*mech names the step: a mechanism failure). */
int sv_unixpath_open(pid_t tid, const char *path, size_t plen, int *fd, const char **mech);

#endif
