/* ha51-agent: hostile review h-attack51's agent (see ha51-host.sh).
 *   ha51-agent DIR NAME MODE
 * MODE dots: chdir DIR and, while a sibling thread renames a file of its own
 *   /dev/shm back and forth (each rename moves the kernel's rename_lock
 *   sequence), connect NAME once (a relative name with ".." in it, which a
 *   scoped lookup (RESOLVE_BENEATH, RESOLVE_IN_ROOT) refuses EAGAIN when a
 *   rename anywhere raced it; the kernel's own connect never does).
 * MODE dots-quiet: the same without the renames (the control).
 * MODE chroot: unshare user+mount namespaces (uid 0 mapped to itself), a
 *   tmpfs of its own on DIR, a listener of its own at DIR/jail/run/app.sock,
 *   then chroot DIR/jail, chdir "/" and connect NAME (relative, for example
 *   "run/app.sock"): the run's own socket, allowed and connected is due.
 * MODE nochroot: the same without the chroot, from DIR/jail (the control).
 * MODE stack: unshare user+mount namespaces (a child of the run renames in
 *   /dev/shm meanwhile), chdir DIR, stack 1000 tmpfs mounts on DIR/e, then
 *   connect NAME once ("e/../s.sock": the walk crosses each mount twice, so
 *   the renames land inside it and every scoped lookup answers EAGAIN).
 * MODE stack200: the same, 200 connects, counted.
 * MODE magic: open DIR (O_PATH), chdir /proc/self/fd, connect NAME with %d
 *   replaced by the descriptor's number (for example "%d/s.sock").
 * MODE magic-proc: the same from /proc ("self/fd/%d/s.sock").
 * MODE magic-abs: the same without a chdir ("/proc/self/fd/%d/s.sock",
 *   "/dev/fd/%d/s.sock").
 * MODE ordinary: listeners of its own at /dev/shm/ha51/app.sock and
 *   /dev/shm/ha51/run/app.sock, symbolic links lnk -> run, up -> ../ha51/run
 *   and abs -> /dev/shm/ha51/run; chdir /dev/shm/ha51 and connect each of
 *   "app.sock", "run/app.sock", "./run/app.sock", "run/../run/app.sock",
 *   "lnk/app.sock", "up/app.sock", "abs/app.sock", "../ha51/run/app.sock"
 *   (false-red check: all connect). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static volatile int stop;

static void *renames(void *arg)
{
	(void)arg;
	mkdir("/dev/shm/ha51r", 0700);
	close(open("/dev/shm/ha51r/a", O_CREAT | O_WRONLY, 0600));
	while (!stop) {
		rename("/dev/shm/ha51r/a", "/dev/shm/ha51r/b");
		rename("/dev/shm/ha51r/b", "/dev/shm/ha51r/a");
	}
	return NULL;
}

static void *acceptor(void *arg)
{
	int l = (int)(long)arg;

	for (;;) {
		int c = accept(l, NULL, NULL);
		char b[64];

		if (c < 0)
			return NULL;
		ssize_t n = read(c, b, sizeof(b));
		if (n > 0)
			fprintf(stderr, "ha51 own listener got %.*s", (int)n, b);
		close(c);
	}
}

static int once(const char *name, int *err)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), rc;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", name);
	rc = connect(fd, (struct sockaddr *)&a, sizeof(a));
	*err = errno;
	if (rc == 0 && write(fd, "ha51-secret\n", 12) != 12)
		rc = -1;
	close(fd);
	return rc;
}

static void serve(int l)
{
	pthread_t t;

	pthread_create(&t, NULL, acceptor, (void *)(long)l);
}

static int listen_at(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int l = socket(AF_UNIX, SOCK_STREAM, 0);

	unlink(path);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(l, 16) != 0) {
		perror("ha51 listen");
		exit(2);
	}
	return l;
}

#if 0
static void map_self(void)
{
	int fd;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
		perror("ha51 unshare");
		exit(2);
	}
	fd = open("/proc/self/setgroups", O_WRONLY);
	if (fd >= 0 && (write(fd, "deny", 4) < 0 || close(fd) != 0))
		perror("ha51 setgroups");
	fd = open("/proc/self/uid_map", O_WRONLY);
	if (fd < 0 || write(fd, "0 0 1", 5) != 5)
		perror("ha51 uid_map");
	close(fd);
	fd = open("/proc/self/gid_map", O_WRONLY);
	if (fd < 0 || write(fd, "0 0 1", 5) != 5)
		perror("ha51 gid_map");
	close(fd);
}
#endif

static int report(const char *mode, const char *name)
{
	int err, rc = once(name, &err);

	fprintf(stderr, "ha51 %s %s: %s\n", mode, name, rc == 0 ? "connected" : strerror(err));
	return rc == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *dir, *name, *mode;
	char p[256];
	pthread_t t;
	int rc;

	if (argc != 4)
		return 2;
	dir = argv[1];
	name = argv[2];
	mode = argv[3];
	if (strncmp(mode, "stack", 5) == 0) {
		pid_t r;

		mkdir("/dev/shm/ha51r", 0700);
		close(open("/dev/shm/ha51r/a", O_CREAT | O_WRONLY, 0600));
		/* The renames from a child of the run: unshare(CLONE_NEWUSER)
		 * wants one thread, and the new namespace's overflow uid may
		 * not rename root's files. */
		r = fork();
		if (r == 0) {
			renames(NULL);
			_exit(0);
		}
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0 || chdir(dir) != 0) {
			perror("ha51 unshare/chdir");
			kill(r, SIGKILL);
			return 2;
		}
		/* Stacked on DIR/e, a walk through e, in and out, crosses each
		 * of them: a few microseconds become tens, and the renames
		 * land inside it. */
		for (int i = 0; i < 1000; i++)
			if (mount("t", "e", "tmpfs", 0, NULL) != 0) {
				perror("ha51 mount");
				break;
			}
		usleep(20000);
		if (strcmp(mode, "stack200") != 0) {
			rc = report(mode, name);
			kill(r, SIGKILL);
			return rc;
		}
		int n[3] = {0, 0, 0}, err;

		for (int i = 0; i < 200; i++) {
			rc = once(name, &err);
			n[rc == 0 ? 0 : err == EAGAIN ? 1 : 2]++;
		}
		kill(r, SIGKILL);
		fprintf(stderr, "ha51 stack200: %d connected %d EAGAIN %d other\n", n[0], n[1],
			n[2]);
		return 0;
	}
	if (strncmp(mode, "magic", 5) == 0) {
		/* DIR held open; NAME is a printf format for its number. */
		int d = open(dir, O_PATH | O_DIRECTORY);
		const char *to = strcmp(mode, "magic-proc") == 0  ? "/proc"
				 : strcmp(mode, "magic-abs") == 0 ? "."
								  : "/proc/self/fd";
		char n[128];

		if (d < 0 || chdir(to) != 0) {
			perror("ha51 magic");
			return 2;
		}
		snprintf(n, sizeof(n), name, d);
		return report(mode, n);
	}
	if (strncmp(mode, "dots", 4) == 0) {
		if (chdir(dir) != 0) {
			perror("ha51 chdir");
			return 2;
		}
		if (strcmp(mode, "dots-quiet") != 0) {
			pthread_create(&t, NULL, renames, NULL);
			usleep(20000);
		}
		if (strcmp(mode, "dots200") != 0) {
			rc = report(mode, name);
			stop = 1;
			return rc;
		}
		int n[3] = {0, 0, 0}, err;

		for (int i = 0; i < 200; i++) {
			rc = once(name, &err);
			n[rc == 0 ? 0 : err == EAGAIN ? 1 : 2]++;
		}
		stop = 1;
		fprintf(stderr, "ha51 dots200: %d connected %d EAGAIN %d other\n", n[0], n[1],
			n[2]);
		return 0;
	}
	if (strcmp(mode, "chroot") == 0 || strcmp(mode, "nochroot") == 0) {
		/* The listener first, on the run's own /dev/shm (writable, its
		 * own), open to every uid: in the new user namespace, unmapped,
		 * the agent is the overflow uid. */
		snprintf(p, sizeof(p), "%s/run", dir);
		mkdir(dir, 0755);
		mkdir(p, 0755);
		snprintf(p, sizeof(p), "%s/run/app.sock", dir);
		int l = listen_at(p);

		chmod(p, 0777);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
			perror("ha51 unshare");
			return 2;
		}
		if (strcmp(mode, "chroot") == 0 ? chroot(dir) != 0 || chdir("/") != 0
						: chdir(dir) != 0) {
			perror("ha51 chroot/chdir");
			return 2;
		}
		serve(l);
		rc = report(mode, name);
		usleep(50000);
		return rc;
	}
	if (strcmp(mode, "ordinary") == 0) {
		static const char *names[] = {
		    "app.sock",     "run/app.sock", "./run/app.sock", "run/../run/app.sock",
		    "lnk/app.sock", "up/app.sock",  "abs/app.sock",   "../ha51/run/app.sock"};
		mkdir("/dev/shm/ha51", 0755);
		mkdir("/dev/shm/ha51/run", 0755);
		unlink("/dev/shm/ha51/lnk");
		unlink("/dev/shm/ha51/up");
		unlink("/dev/shm/ha51/abs");
		if (symlink("run", "/dev/shm/ha51/lnk") != 0 ||
		    symlink("../ha51/run", "/dev/shm/ha51/up") != 0 ||
		    symlink("/dev/shm/ha51/run", "/dev/shm/ha51/abs") != 0 ||
		    chdir("/dev/shm/ha51") != 0) {
			perror("ha51 ordinary");
			return 2;
		}
		serve(listen_at("/dev/shm/ha51/run/app.sock"));
		serve(listen_at("/dev/shm/ha51/app.sock"));
		rc = 0;
		for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			rc |= report(mode, names[i]);
		usleep(50000);
		return rc;
	}
	return 2;
}
