/* /proc/self/mountinfo, read once into a table, shared by the mount
 * handling of the agent's namespace (contain.c) and its Landlock domain
 * (landlock.c). */
#ifndef SV_MOUNTINFO_H
#define SV_MOUNTINFO_H

/* One line of mountinfo. */
struct sv_mount {
	int id, parent;
	char dev[32];  /* major:minor: mounts of one file system share it */
	char *root;    /* the mount's root within its file system, unescaped */
	char *mp;      /* where it is mounted, in our root, unescaped */
	char *opts;    /* the per-mount options (field 6: "rw,nosuid,nodev,...") */
	char type[64]; /* the file system type */
};

/* Reads every line of /proc/self/mountinfo, whole however long, with its
 * paths at full length (a line cut in two, or a truncated path, would name
 * another mount). *out is malloc'ed (sv_mountinfo_free). Returns the
 * number of mounts, or -errno: EIO for a line it cannot parse,
 * ENAMETOOLONG for a path of PATH_MAX or more. */
int sv_mountinfo_read(struct sv_mount **out);

/* Frees a table sv_mountinfo_read returned. */
void sv_mountinfo_free(struct sv_mount *m, int n);

/* Whether a file system type is one through which uid 0 reaches the
 * kernel's own knobs (proc, sysfs, cgroup, bpf, ...): 1 or 0. */
int sv_mountinfo_is_kernel_fs(const char *type);

/* The MS_* flags a bind remount must be given again to keep them, from a
 * mount's per-mount options (struct sv_mount.opts; NULL: none) or from
 * statvfs's f_flag. */
unsigned long sv_mountinfo_flags(const char *opts);
unsigned long sv_mountinfo_statvfs_flags(unsigned long f_flag);

#endif
