#include "mountinfo.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statvfs.h>

/* 5.10: older C libraries do not name them. */
#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif
#ifndef ST_NOSYMFOLLOW
#define ST_NOSYMFOLLOW 0x2000
#endif

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else
			*w++ = *s;
	}
	*w = 0;
}

void sv_mountinfo_free(struct sv_mount *m, int n)
{
	for (int i = 0; i < n; i++) {
		free(m[i].root);
		free(m[i].mp);
		free(m[i].opts);
	}
	free(m);
}

int sv_mountinfo_read(struct sv_mount **out)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	struct sv_mount *t = NULL, *n;
	char *line = NULL;
	size_t cap = 0;
	int rc = 0, nm = 0;

	if (!f)
		return -errno;
	while (rc == 0 && getline(&line, &cap, f) > 0) {
		char *root = NULL, *mp = NULL, *opts = NULL, dev[32], type[64];
		const char *sep = strstr(line, " - ");
		int id, parent;

		/* id parent major:minor root mount-point options ... - type source opts */
		if (!sep ||
		    sscanf(line, "%d %d %31s %ms %ms %ms", &id, &parent, dev, &root, &mp, &opts) !=
			6 ||
		    sscanf(sep + 3, "%63s", type) != 1)
			rc = -EIO;
		else if (strlen(root) >= PATH_MAX || strlen(mp) >= PATH_MAX)
			rc = -ENAMETOOLONG;
		else if (!(n = realloc(t, (size_t)(nm + 1) * sizeof(*t))))
			rc = -ENOMEM;
		if (rc < 0) {
			free(root);
			free(mp);
			free(opts);
			break;
		}
		t = n;
		unescape(root);
		unescape(mp);
		t[nm] = (struct sv_mount){
		    .id = id, .parent = parent, .root = root, .mp = mp, .opts = opts};
		memcpy(t[nm].dev, dev, sizeof(dev));
		memcpy(t[nm].type, type, sizeof(type));
		nm++;
	}
	free(line);
	fclose(f);
	if (rc < 0) {
		sv_mountinfo_free(t, nm);
		return rc;
	}
	*out = t;
	return nm;
}

/* File systems through which uid 0 reaches the kernel's own knobs:
 * sysctls (kernel.core_pattern, kernel.modprobe), uevent_helper, cgroup
 * release agents, binfmt handlers, debug and trace controls, EFI variables.
 * Judged by type, not by where they are mounted: a second proc under a
 * chroot builder's tree, or the working directory the agent inherits inside
 * the old /proc, reach them as well as /proc/sys does. */
static const char *const kernel_fs[] = {"proc",       "sysfs",    "binfmt_misc", "cgroup",
					"cgroup2",    "configfs", "debugfs",     "tracefs",
					"securityfs", "efivarfs", "bpf",         "pstore"};

int sv_mountinfo_is_kernel_fs(const char *type)
{
	for (size_t i = 0; i < sizeof(kernel_fs) / sizeof(kernel_fs[0]); i++)
		if (strcmp(type, kernel_fs[i]) == 0)
			return 1;
	return 0;
}

/* Neither noatime nor relatime shown: the mount is strictatime, which a
 * remount without MS_STRICTATIME would turn into relatime (refused, EPERM,
 * where the atime flags are locked: a mount a user namespace inherited). */
static unsigned long strict_atime(unsigned long flags)
{
	return flags & (MS_NOATIME | MS_RELATIME) ? flags : flags | MS_STRICTATIME;
}

unsigned long sv_mountinfo_flags(const char *opts)
{
	static const struct {
		const char *name;
		unsigned long flag;
	} table[] = {{"ro", MS_RDONLY},         {"nosuid", MS_NOSUID},
		     {"nodev", MS_NODEV},       {"noexec", MS_NOEXEC},
		     {"noatime", MS_NOATIME},   {"nodiratime", MS_NODIRATIME},
		     {"relatime", MS_RELATIME}, {"nosymfollow", MS_NOSYMFOLLOW}};
	unsigned long flags = 0;

	while (opts && *opts) {
		size_t n = strcspn(opts, ",");

		for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
			if (strlen(table[i].name) == n && strncmp(opts, table[i].name, n) == 0)
				flags |= table[i].flag;
		opts += n + (opts[n] == ',');
	}
	return strict_atime(flags);
}

unsigned long sv_mountinfo_statvfs_flags(unsigned long f_flag)
{
	unsigned long flags = 0;

	if (f_flag & ST_RDONLY)
		flags |= MS_RDONLY;
	if (f_flag & ST_NOSUID)
		flags |= MS_NOSUID;
	if (f_flag & ST_NODEV)
		flags |= MS_NODEV;
	if (f_flag & ST_NOEXEC)
		flags |= MS_NOEXEC;
	if (f_flag & ST_NOATIME)
		flags |= MS_NOATIME;
	if (f_flag & ST_NODIRATIME)
		flags |= MS_NODIRATIME;
	if (f_flag & ST_RELATIME)
		flags |= MS_RELATIME;
	if (f_flag & ST_NOSYMFOLLOW)
		flags |= MS_NOSYMFOLLOW;
	return strict_atime(flags);
}
