/* fs-probe: what a root agent can do to the files and devices it sees
 * (issue 11 class 5). Each argument is one attempt, logged as one line:
 *
 *   write:PATH    open(O_WRONLY|O_CREAT|O_TRUNC) and write a line
 *   open-wr:PATH  open(O_WRONLY) and close at once: nothing is written
 *                 (a device node: the question is only whether it opens)
 *   mknod:PATH    mknod(S_IFCHR 0600, 1:3), the numbers of /dev/null
 *   list:DIR      one "entry" line per name in DIR, its type in extra
 *                 ("blk", "chr", "dir", "lnk", "other")
 *
 *     fs-probe OP:PATH...
 */
#include "agentlib.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static void list(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d) {
		agent_log("list", dir, -1, errno, NULL);
		return;
	}
	while ((e = readdir(d))) {
		char path[512], extra[64];
		struct stat st;
		const char *kind = "other";

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st) == 0)
			kind = S_ISBLK(st.st_mode)   ? "blk"
			       : S_ISCHR(st.st_mode) ? "chr"
			       : S_ISDIR(st.st_mode) ? "dir"
			       : S_ISLNK(st.st_mode) ? "lnk"
						     : "other";
		snprintf(extra, sizeof(extra), ",\"kind\":\"%s\"", kind);
		agent_log("entry", path, 0, 0, extra);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	agent_init("fs-probe");
	if (argc < 2)
		return agent_usage("OP:PATH... (write, open-wr, mknod, list)");
	for (int i = 1; i < argc; i++) {
		const char *colon = strchr(argv[i], ':'), *path;
		char op[16];
		long r;
		int fd;

		if (!colon || colon - argv[i] >= (long)sizeof(op))
			return agent_usage("OP:PATH... (write, open-wr, mknod, list)");
		snprintf(op, sizeof(op), "%.*s", (int)(colon - argv[i]), argv[i]);
		path = colon + 1;
		if (strcmp(op, "write") == 0) {
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
			r = fd >= 0 && write(fd, "fs-probe\n", 9) == 9 ? 0 : -1;
			agent_log("write", path, r, errno, NULL);
			if (fd >= 0)
				close(fd);
		} else if (strcmp(op, "open-wr") == 0) {
			fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
			agent_log("open_wr", path, fd >= 0 ? 0 : -1, errno, NULL);
			if (fd >= 0)
				close(fd);
		} else if (strcmp(op, "mknod") == 0) {
			r = mknod(path, S_IFCHR | 0600, makedev(1, 3));
			agent_log("mknod", path, r, errno, NULL);
		} else if (strcmp(op, "list") == 0) {
			list(path);
		} else {
			return agent_usage("OP:PATH... (write, open-wr, mknod, list)");
		}
	}
	return 0;
}
