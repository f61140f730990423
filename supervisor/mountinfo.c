#include "mountinfo.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		char *root = NULL, *mp = NULL, dev[32], type[64];
		const char *sep = strstr(line, " - ");
		int id, parent;

		/* id parent major:minor root mount-point options ... - type source opts */
		if (!sep ||
		    sscanf(line, "%d %d %31s %ms %ms", &id, &parent, dev, &root, &mp) != 5 ||
		    sscanf(sep + 3, "%63s", type) != 1)
			rc = -EIO;
		else if (strlen(root) >= PATH_MAX || strlen(mp) >= PATH_MAX)
			rc = -ENAMETOOLONG;
		else if (!(n = realloc(t, (size_t)(nm + 1) * sizeof(*t))))
			rc = -ENOMEM;
		if (rc < 0) {
			free(root);
			free(mp);
			break;
		}
		t = n;
		unescape(root);
		unescape(mp);
		t[nm] = (struct sv_mount){.id = id, .parent = parent, .root = root, .mp = mp};
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
