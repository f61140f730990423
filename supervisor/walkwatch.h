/* What may change under unixpath.c's walk as the kernel's while it walks
 * (docs/design.md, "A root agent's AF_UNIX peers"): the directories it
 * stands in (inotify) and the thread's mount table (/proc/TID/mounts), and
 * whether the walk's root and start are mounts that table lists at all. A
 * walk whose answer any of them puts in doubt is denied. */
#ifndef SV_WALKWATCH_H
#define SV_WALKWATCH_H

#include <sys/types.h>

#define SV_WALKWATCH_MAX_DIRS 256

struct sv_walkwatch {
	int ino;
	int slot;
	int nwd;
	int wd[SV_WALKWATCH_MAX_DIRS];
};

/* Makes the receivers' shared inotify instances before the agent runs, so
 * that an agent with uid 0's allowance (a root agent counts against the
 * root supervisor's fs.inotify.max_user_instances, user namespace or not)
 * cannot take them first. Returns 0 or -errno (then walks make theirs
 * when they need one, and a refusal is a mechanism failure). */
int sv_walkwatch_init(void);

/* Takes an instance for one walk (waiting while every one is in use):
 * 0, or -errno (a mechanism failure of the walk's caller). */
int sv_walkwatch_begin(struct sv_walkwatch *w);

/* Watches directory fd (an O_PATH descriptor) for an entry made, removed
 * or moved in it, or its own move or removal. 0; 1 when the walk has
 * watched SV_WALKWATCH_MAX_DIRS directories already (it cannot vouch for
 * more: denied); or -errno (ENOSPC, ENOMEM: uid 0's watches used up, a
 * mechanism failure). */
int sv_walkwatch_dir(struct sv_walkwatch *w, int fd);

/* Whether any watched directory changed since sv_walkwatch_begin: 1 (an
 * event, an overflow, or poll could not tell) or 0. */
int sv_walkwatch_changed(struct sv_walkwatch *w);

/* Removes the walk's watches, drains the instance and gives it back. */
void sv_walkwatch_end(struct sv_walkwatch *w);

/* A watch on thread tid's mount table: a descriptor whose poll says
 * POLLPRI once any mount of the thread's namespace was made, moved,
 * changed or removed after the open (mounts_poll's event count), or
 * -errno (-ESRCH for a thread gone). */
int sv_walkwatch_mounts_open(pid_t tid);

/* Whether the mount table watched by fd changed since the open: 1 (or
 * poll cannot tell) or 0. */
int sv_walkwatch_mounts_changed(int fd);

/* Whether the mounts descriptors root and start are on are listed in
 * thread tid's /proc/TID/mountinfo: 1, or 0 (not, or it cannot be
 * told). The mount watch and the overmount check see the thread's
 * namespace only. */
int sv_walkwatch_mounts_in_ns(pid_t tid, int root, int start);

#endif
