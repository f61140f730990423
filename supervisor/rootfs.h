/* A root agent's view of the host's files (docs/design.md, "Threat model:
 * the agent process", class 5). A root agent keeps CAP_DAC_OVERRIDE: on a
 * writable host file system it could replace a program the kernel or a root
 * service runs outside the run (the program a core_pattern pipe names,
 * kernel.modprobe's, a cron file), or write the raw block device under
 * them. So in its mount namespace every host mount is read-only and nodev,
 * /dev is a tmpfs of its own with only harmless character devices, and only
 * the paths the caller declares (--writable) are writable, still nodev. */
#ifndef SV_ROOTFS_H
#define SV_ROOTFS_H

#include <stddef.h>

/* At most this many --writable paths. */
#define SV_ROOTFS_MAX_WRITABLE 32

/* At most this many programs that run with more than their caller's ids
 * (setuid, setgid, file capabilities) under the --writable paths: each is
 * a mount of its own (sv_rootfs_open_declared). */
#define SV_ROOTFS_MAX_SETID 4096

/* Whether path may be declared writable: 0, or -EINVAL with the reason in
 * why. Pure (the command line's check): an absolute path other than /, not
 * /proc, /sys or /dev nor beneath them. The child checks the resolved path
 * again (a symbolic link may lead there). */
int sv_rootfs_check_declared(const char *path, char *why, size_t len);

/* Keeps the caller's declared paths (which must outlive the run) for every
 * later child. Called once, at set-up, before any child exists. */
void sv_rootfs_declare(const char *const *paths, int n);

/* The declared paths (sv_rootfs_declare), for the report. Returns their
 * number and sets *paths. */
int sv_rootfs_declared(const char *const **paths);

/* Opens path (O_PATH) one component at a time, following no symbolic
 * link: a root agent can leave one under a path it was given to write, for
 * a later run to follow. Returns the descriptor, -ELOOP with the path up to
 * the link in link, or -errno (with that prefix too). */
int sv_rootfs_open_nolinks(const char *path, char *link, size_t len);

/* Whether path is at or under a declared path, both resolved in our own
 * namespace (realpath). Returns 1, 0, or -errno when path cannot be
 * resolved. */
int sv_rootfs_under_declared(const char *path);

/* In a root agent's child, init of its new mount namespace, with
 * CAP_SYS_ADMIN and CAP_MKNOD, after every mount was made private and the
 * kernel's own file systems read-only (contain.c), before the new /proc is
 * mounted: every other mount that is reachable by its path and not under
 * /dev becomes read-only and nodev; /dev becomes a read-only tmpfs of its
 * own (null, zero, full, random, urandom, tty and userfaultfd where the
 * host has them, the fd and std* links, a private devpts where the host had
 * /dev/pts, a nodev tmpfs on /dev/shm). Returns 0 or the -errno of the
 * first step that failed, having said which on stderr. */
int sv_rootfs_confine(void);

/* After the new /proc: binds each declared path onto itself with what is
 * mounted under it, and makes the bind writable, nodev and nosuid (a mount
 * under it stays read-only: declare it too). Then binds each regular file
 * on that mount that is setuid, setgid and group-executable, or has file
 * capabilities, onto itself read-only, nosuid and nodev (review
 * h-attack21: the agent would rewrite it through a shared mapping and it
 * would keep its bit).
 * Returns 0 or -errno (EINVAL: a path that resolves under /proc, /sys or
 * /dev, or to /; E2BIG: more than SV_ROOTFS_MAX_SETID such files;
 * ENAMETOOLONG: a path under it of PATH_MAX or more), having said which on
 * stderr. */
int sv_rootfs_open_declared(void);

/* The new /proc's entries through which a root agent would write the
 * kernel's knobs or the host's hardware: root owns their files, and most
 * check no capability (a PCI device's config space under /proc/bus/pci,
 * an interrupt's CPUs under /proc/irq: review h-attack74). contain.c binds
 * each that exists read-only; sv_rootfs_check reads each back.
 * NULL-terminated. */
extern const char *const sv_rootfs_proc_knobs[];

/* Reads the namespace back from mountinfo, last: every mount reachable by
 * its path is read-only, except the new /proc, /dev/pts, /dev/shm and the
 * declared paths, and nodev, except /dev and /dev/pts; a declared path is
 * no kernel file system. Returns 0, or -ENOTRECOVERABLE naming the first
 * mount that breaks it on stderr, or the -errno of reading it. */
int sv_rootfs_check(void);

/* For a root agent, before it exists: the caller's descriptors 0-2 must
 * not lead past its read-only view of the host's files, since they are of
 * the caller's mounts (review h-attack18). Refused: an O_PATH descriptor,
 * a directory, a block device, and a file given for reading that has a
 * name on a writable mount outside the declared paths (the agent would
 * reopen it for writing through /proc/self/fd). Character devices are
 * every agent's check (sv_stdfds_check's, run first); sockets
 * (stdfds.h) and pipes pass. Returns 0, or -EACCES with why naming the descriptor. */
int sv_rootfs_check_stdio(char *why, size_t len);

#endif
