/* ha50-agent: hostile review h-attack50's agent (see ha50-host.sh).
 *   ha50-agent DIR NAME MODE
 * MODE deep: chdir DIR, then 20 components of 240 x's below (over a page),
 *   connect NAME.
 * MODE long: chdir DIR, then 16 components of 240 x's and one of 150,
 *   connect NAME (100 characters).
 * MODE race: unshare user+mount namespaces, chdir DIR, and while a sibling
 *   thread mounts and unmounts a tmpfs over DIR (so DIR's name leads to the
 *   overmount half the time), connect NAME 200 times.
 * MODE race1: race, with one connect (the run's only call).
 * MODE chdir: chdir DIR, and while a sibling thread switches the shared
 *   working directory between DIR and "/", connect NAME 200 times.
 * MODE plain: chdir DIR, connect NAME (DIR may be a bind mount).
 * MODE late: unshare user+mount namespaces, chdir DIR, and a sibling thread
 *   mounts a tmpfs over DIR 100 ms after the connect began (inside the test
 *   build's cwd_window, between the directory's proof and the name's
 *   lookup) and leaves it there: connect NAME once.
 * MODE late-escape: late, with the working directory DIR/e (NAME leaves it:
 *   "../s.sock"). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <errno.h>

static const char *dir;
static volatile int stop;

static void *flip(void *arg)
{
	if (arg == (void *)2) {
		/* After the supervisor's proof of the directory, even on a
		 * loaded machine; a test build's cwd_window waits for it. */
		usleep(600 * 1000);
		if (mount("t", dir, "tmpfs", 0, NULL) != 0)
			perror("ha50 late mount");
		return NULL;
	}
	if (arg) {
		/* chdir: threads share the working directory (CLONE_FS). */
		while (!stop)
			if (chdir(dir) != 0 || chdir("/") != 0)
				return NULL;
		return NULL;
	}
	while (!stop) {
		mount("t", dir, "tmpfs", 0, NULL);
		umount2(dir, MNT_DETACH);
	}
	return NULL;
}

static int once(const char *name, int *err)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), rc;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", name);
	rc = connect(fd, (struct sockaddr *)&a, sizeof(a));
	*err = errno;
	if (rc == 0 && write(fd, "ha50-secret\n", 12) != 12)
		rc = -1;
	close(fd);
	return rc;
}

int main(int argc, char **argv)
{
	int err, ok = 0, e[200];
	pthread_t t;

	if (argc != 4)
		return 2;
	dir = argv[1];
	int late = strncmp(argv[3], "late", 4) == 0, esc = strcmp(argv[3], "late-escape") == 0;
	int r1 = strcmp(argv[3], "race1") == 0 || late, tries = r1 ? 1 : 200;

	if (r1)
		argv[3] = "race";
	if (strcmp(argv[3], "race") == 0 && unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
		perror("ha50 unshare");
		return 2;
	}
	if (chdir(dir) != 0 || (esc && chdir("e") != 0)) {
		perror("ha50 chdir");
		return 2;
	}
	/* deep: 20 more components of 240 x's, one relative chdir each;
	 * long: 16 of 240 and one of 150 (a name under a page, but the
	 * name with NAME appended over PATH_MAX). */
	int deep = strcmp(argv[3], "deep") == 0, lng = strcmp(argv[3], "long") == 0;
	for (int i = 0; (deep && i < 20) || (lng && i < 17); i++) {
		char c[241];
		int l = lng && i == 16 ? 150 : 240;

		memset(c, 'x', (size_t)l);
		c[l] = '\0';
		if (chdir(c) != 0) {
			perror("ha50 chdir deep");
			return 2;
		}
	}
	int chd = strcmp(argv[3], "chdir") == 0;

	if (strcmp(argv[3], "race") != 0 && !chd) {
		if (once(argv[2], &err) == 0) {
			fprintf(stderr, "ha50 connected and wrote (%s)\n", argv[3]);
			return 0;
		}
		fprintf(stderr, "ha50 connect: %s\n", strerror(err));
		return 1;
	}
	pthread_create(&t, NULL, flip, late ? (void *)2 : chd ? (void *)1 : NULL);
	if (r1 && !late)
		usleep(20000);
	for (int i = 0; i < tries; i++) {
		if (once(argv[2], &e[i]) == 0)
			ok++;
	}
	stop = 1;
	pthread_join(t, NULL);
	int acc = 0, noent = 0;

	for (int i = 0; i < tries; i++) {
		acc += e[i] == EACCES;
		noent += e[i] == ENOENT;
	}
	fprintf(stderr, "ha50 %s: %d connected %d EACCES %d ENOENT\n", argv[3], ok, acc, noent);
	return ok ? 0 : 1;
}
