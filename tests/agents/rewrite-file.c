/*
 * rewrite-file: for each PATH, reads the file and writes the same bytes back
 * (so a success changes nothing), logging call "rewrite" with the path as
 * dest and the errno of the first failing step. A root agent that can do it
 * to a sysctl (kernel/core_pattern) could as well write `|prog` there and
 * have the kernel start prog as full root outside the supervised tree.
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	agent_init("rewrite-file");
	if (argc < 2)
		return agent_usage("PATH...");
	for (int i = 1; i < argc; i++) {
		char buf[4096];
		ssize_t n = -1, w = -1;
		int fd = open(argv[i], O_RDONLY | O_CLOEXEC), err = 0;

		if (fd < 0) {
			agent_log("rewrite", argv[i], -1, errno, NULL);
			continue;
		}
		n = read(fd, buf, sizeof(buf));
		err = n < 0 ? errno : 0;
		close(fd);
		if (n >= 0) {
			fd = open(argv[i], O_WRONLY | O_CLOEXEC);
			if (fd < 0) {
				err = errno;
			} else {
				w = write(fd, buf, (size_t)n);
				err = w < 0 ? errno : 0;
				close(fd);
			}
		}
		agent_log("rewrite", argv[i], err ? -1 : w, err, NULL);
	}
	return 0;
}
