/* ha24-userns.c (hostile review h-attack24): from a user and mount
 * namespace of its own (uid 0 inside = host uid 1000: mapping host uid 0
 * needs CAP_SETFCAP), the agent tries to get a writable view of a program
 * bound read-only under the declared path (rootfs.c bind_setid):
 * unmounting the bind, a non-recursive bind or open_tree clone of its
 * directory (which would leave the bind behind), mount_setattr clearing
 * MOUNT_ATTR_RDONLY, a remount read-write, an overlay whose upper layer is
 * the bind's directory (the upper mount is cloned alone). Usage: ha24-userns FILE. Each
 * step prints what the kernel said; then open(FILE, O_RDWR). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <linux/mount.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void put(pid_t pid, const char *f, const char *s)
{
	char p[64];
	int fd;

	snprintf(p, sizeof(p), "/proc/%d/%s", pid, f);
	fd = open(p, O_WRONLY);
	if (fd < 0 || write(fd, s, strlen(s)) < 0)
		printf("agent: %s: %s\n", p, strerror(errno));
	close(fd);
}

static void tryopen(const char *what, int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDWR);

	printf("agent: %s: open O_RDWR: %s\n", what,
	       fd >= 0 ? "OPENED (writable)" : strerror(errno));
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	int go[2], done[2];
	char c, dir[4096], base[4096];
	pid_t pid;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc != 2)
		return 2;
	char *slash = strrchr(argv[1], '/');

	if (!slash)
		return 2;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - argv[1]), argv[1]);
	snprintf(base, sizeof(base), "%s", slash + 1);
	if (pipe(go) || pipe(done))
		return 1;
	pid = fork();
	if (pid == 0) {
		struct mount_attr a = {.attr_clr = MOUNT_ATTR_RDONLY};
		int t;

		if (unshare(CLONE_NEWUSER | CLONE_NEWNS)) {
			perror("agent: unshare");
			_exit(1);
		}
		write(done[1], "x", 1);
		read(go[0], &c, 1);
		if (setresgid(0, 0, 0) || setresuid(0, 0, 0))
			perror("agent: setresuid");
		tryopen("in the namespace", AT_FDCWD, argv[1]);
		printf("agent: umount2 bind: %s\n",
		       umount2(argv[1], MNT_DETACH) ? strerror(errno) : "UNMOUNTED");
		printf("agent: mount_setattr clear rdonly: %s\n",
		       syscall(SYS_mount_setattr, AT_FDCWD, argv[1], 0, &a, sizeof(a))
			   ? strerror(errno)
			   : "CLEARED");
		printf("agent: remount rw: %s\n",
		       mount(NULL, argv[1], NULL, MS_REMOUNT | MS_BIND, NULL) ? strerror(errno)
									      : "REMOUNTED");
		t = (int)syscall(SYS_open_tree, AT_FDCWD, dir, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
		printf("agent: open_tree clone (non-recursive) of %s: %s\n", dir,
		       t < 0 ? strerror(errno) : "CLONED");
		if (t >= 0)
			tryopen("through the clone", t, base);
		mkdir("/tmp/ha24-m", 0755);
		printf("agent: bind (non-recursive) of %s: %s\n", dir,
		       mount(dir, "/tmp/ha24-m", NULL, MS_BIND, NULL) ? strerror(errno) : "BOUND");
		{
			char o[16384], lo[4200], wk[4200], m[4200];

			snprintf(lo, sizeof(lo), "%s/../l", dir);
			snprintf(wk, sizeof(wk), "%s/../w", dir);
			snprintf(m, sizeof(m), "%s/../m", dir);
			mkdir(lo, 0777);
			mkdir(wk, 0777);
			mkdir(m, 0777);
			snprintf(o, sizeof(o), "lowerdir=%s,upperdir=%s,workdir=%s,userxattr", lo,
				 dir, wk);
			printf("agent: overlay with the bind's directory as upper: %s\n",
			       mount("overlay", m, "overlay", 0, o) ? strerror(errno) : "MOUNTED");
			t = open(m, O_RDONLY | O_DIRECTORY);
			if (t >= 0)
				tryopen("through the overlay", t, base);
		}
		tryopen("after all that", AT_FDCWD, argv[1]);
		_exit(0);
	}
	read(done[0], &c, 1);
	put(pid, "uid_map", "0 1000 1");
	put(pid, "setgroups", "deny");
	put(pid, "gid_map", "0 1000 1");
	write(go[1], "x", 1);
	waitpid(pid, NULL, 0);
	return 0;
}
