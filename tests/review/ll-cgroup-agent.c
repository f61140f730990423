/*
 * ll-cgroup-agent: hostile review of 81467e7 (the agent's Landlock domain
 * handles WRITE_FILE, granted everywhere but beneath cgroup mounts). Run as
 * the agent of a uid-1000 supervisor whose cgroup DIR/sup is delegated to
 * uid 1000 (ll-cgroup.sh sets it up). Each attempt prints one line
 * "name rc errno [effect]"; an attempt that reaches a cgroup file for
 * writing writes "1" to the cgroup.freeze of DIR/sup/probe (an empty child
 * cgroup the agent makes) and reads back its cgroup.events, so a hole is
 * proven by its effect and harms nothing.
 *
 *     ll-cgroup-agent DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[512], sup[600], probe[700];

static void line(const char *what, long rc, int err, const char *effect)
{
	printf("%-28s rc=%ld errno=%s%s%s\n", what, rc, rc < 0 ? strerror(err) : "-",
	       effect ? " " : "", effect ? effect : "");
	fflush(stdout);
}

/* "frozen 0" or "frozen 1" of the probe cgroup. */
static const char *frozen(void)
{
	static char buf[256];
	char path[800], *p;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/cgroup.events", probe);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return "events?";
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	p = strstr(buf, "frozen");
	if (p && strchr(p, '\n'))
		*strchr(p, '\n') = 0;
	return p ? p : "frozen?";
}

/* fd open for writing on probe/cgroup.freeze (or -1): write 1, report, thaw
 * through the same fd. */
static void result(const char *what, int fd, int err)
{
	char eff[300];

	if (fd < 0) {
		line(what, fd, err, NULL);
		return;
	}
	if (write(fd, "1", 1) != 1) {
		snprintf(eff, sizeof(eff), "OPENED, write: %s", strerror(errno));
	} else {
		usleep(100000);
		snprintf(eff, sizeof(eff), "HOLE: wrote freeze, probe %s", frozen());
		(void)!write(fd, "0", 1);
	}
	line(what, fd, 0, eff);
	close(fd);
}

#define TRY(what, expr)                                                                            \
	do {                                                                                       \
		int fd_ = (expr);                                                                  \
		result(what, fd_, errno);                                                          \
	} while (0)

static int uring_open(int dfd, const char *path)
{
	struct io_uring_params p;
	struct io_uring_sqe *sqes;
	void *sq, *cq;
	unsigned *sq_tail, *sq_array, *cq_head, *cq_tail, *sq_mask, *cq_mask;
	struct io_uring_cqe *cqes;
	int ring, res;

	memset(&p, 0, sizeof(p));
	ring = (int)syscall(SYS_io_uring_setup, 4, &p);
	if (ring < 0)
		return -1;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
		return -1;
	sq_tail = (unsigned *)((char *)sq + p.sq_off.tail);
	sq_mask = (unsigned *)((char *)sq + p.sq_off.ring_mask);
	sq_array = (unsigned *)((char *)sq + p.sq_off.array);
	cq_head = (unsigned *)((char *)cq + p.cq_off.head);
	cq_tail = (unsigned *)((char *)cq + p.cq_off.tail);
	cq_mask = (unsigned *)((char *)cq + p.cq_off.ring_mask);
	cqes = (struct io_uring_cqe *)((char *)cq + p.cq_off.cqes);
	memset(&sqes[0], 0, sizeof(sqes[0]));
	sqes[0].opcode = IORING_OP_OPENAT;
	sqes[0].fd = dfd;
	sqes[0].addr = (uint64_t)(uintptr_t)path;
	sqes[0].open_flags = O_WRONLY;
	sq_array[*sq_tail & *sq_mask] = 0;
	__atomic_store_n(sq_tail, *sq_tail + 1, __ATOMIC_RELEASE);
	if (syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return -1;
	if (__atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) == *cq_head) {
		errno = EAGAIN;
		return -1;
	}
	res = cqes[*cq_head & *cq_mask].res;
	(*cq_head)++;
	if (res < 0) {
		errno = -res;
		return -1;
	}
	return res;
}

/* In a child in a new user (and mount, cgroup) namespace: fsopen a fresh
 * cgroup2, or clone the tree of DIR, and open probe's freeze through it. */
static void in_userns(const char *what, int how)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int fs, mfd, fd;
		int flags = CLONE_NEWUSER | CLONE_NEWNS | (how == 0 ? CLONE_NEWCGROUP : 0);

		if (unshare(flags) != 0) {
			line(what, -1, errno, "(unshare)");
			_exit(0);
		}
		if (how == 0) {
			fs = (int)syscall(SYS_fsopen, "cgroup2", 0);
			if (fs < 0 ||
			    syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) {
				line(what, -1, errno, "(fsopen/fsconfig)");
				_exit(0);
			}
			mfd = (int)syscall(SYS_fsmount, fs, 0, 0);
			if (mfd < 0) {
				line(what, -1, errno, "(fsmount)");
				_exit(0);
			}
			/* The cgroup ns root is DIR/sup: probe is at "probe". */
			errno = 0;
			fd = openat(mfd, "probe/cgroup.freeze", O_WRONLY);
			result(what, fd, errno);
			line("  move_mount(fsmount)",
			     syscall(SYS_move_mount, mfd, "", AT_FDCWD, "/tmp",
				     MOVE_MOUNT_F_EMPTY_PATH),
			     errno, NULL);
		} else if (how == 1) {
			mfd = (int)syscall(SYS_open_tree, AT_FDCWD, dir,
					   OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
			if (mfd < 0) {
				line(what, -1, errno, "(open_tree)");
				_exit(0);
			}
			fd = openat(mfd, "sup/probe/cgroup.freeze", O_WRONLY);
			result(what, fd, errno);
		} else {
			line(what, mount("none", "/tmp", "cgroup2", 0, NULL), errno, NULL);
		}
		_exit(0);
	}
	waitpid(pid, &st, 0);
}

static void by_handle(void)
{
	struct {
		struct file_handle h;
		unsigned char b[128];
	} fh;
	char path[800];
	int mid, mfd, fd;

	fh.h.handle_bytes = 128;
	snprintf(path, sizeof(path), "%s/cgroup.freeze", probe);
	if (syscall(SYS_name_to_handle_at, AT_FDCWD, path, &fh.h, &mid, 0) != 0) {
		line("name_to_handle_at", -1, errno, NULL);
		return;
	}
	mfd = open(dir, O_RDONLY | O_DIRECTORY);
	fd = (int)syscall(SYS_open_by_handle_at, mfd, &fh.h, O_WRONLY);
	result("open_by_handle_at", fd, errno);
	if (fork() == 0) {
		if (unshare(CLONE_NEWUSER) != 0)
			_exit(0);
		fd = (int)syscall(SYS_open_by_handle_at, mfd, &fh.h, O_WRONLY);
		result("open_by_handle_at(userns)", fd, errno);
		_exit(0);
	}
	wait(NULL);
}

static void into_cgroup(void)
{
	char esc[800];
	struct clone_args ca;
	int cfd;
	pid_t pid;

	snprintf(esc, sizeof(esc), "%s/esc", dir);
	line("mkdir DIR/esc", mkdir(esc, 0755), errno, NULL);
	cfd = open(esc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_INTO_CGROUP;
	ca.exit_signal = SIGCHLD;
	ca.cgroup = (uint64_t)cfd;
	pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid == 0) {
		char buf[512];
		int fd = open("/proc/self/cgroup", O_RDONLY);
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		char *p;

		buf[n > 0 ? n : 0] = 0;
		p = strstr(buf, "0::");
		if (p && strchr(p, '\n'))
			*strchr(p, '\n') = 0;
		printf("  clone3 child's cgroup: %s%s\n", p ? p : buf,
		       p && strstr(p, "/esc") ? "  HOLE: out of the supervisor's cgroup" : "");
		fflush(stdout);
		_exit(0);
	}
	line("clone3(CLONE_INTO_CGROUP)", pid, errno, NULL);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
	char path[800];
	int dfd, rfd;
	struct open_how how;

	if (argc != 2)
		return 2;
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	snprintf(sup, sizeof(sup), "%s/sup", dir);
	snprintf(probe, sizeof(probe), "%s/probe", sup);
	line("mkdir DIR/sup/probe", mkdir(probe, 0755), errno, NULL);
	snprintf(path, sizeof(path), "%s/cgroup.freeze", probe);
	TRY("open direct", open(path, O_WRONLY));
	snprintf(path, sizeof(path), "/proc/self/root%s/cgroup.freeze", probe);
	TRY("/proc/self/root", open(path, O_WRONLY));
	snprintf(path, sizeof(path), "/proc/%d/root%s/cgroup.freeze", (int)getppid(), probe);
	TRY("/proc/PPID/root", open(path, O_WRONLY));
	dfd = open(probe, O_PATH | O_DIRECTORY);
	snprintf(path, sizeof(path), "/proc/self/fd/%d/cgroup.freeze", dfd);
	TRY("/proc/self/fd/OPATH/x", open(path, O_WRONLY));
	TRY("openat(O_PATH dirfd)", openat(dfd, "cgroup.freeze", O_WRONLY));
	memset(&how, 0, sizeof(how));
	how.flags = O_WRONLY;
	TRY("openat2", (int)syscall(SYS_openat2, dfd, "cgroup.freeze", &how, sizeof(how)));
	snprintf(path, sizeof(path), "%s/cgroup.freeze", probe);
	rfd = open(path, O_RDONLY);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", rfd);
	TRY("reopen O_RDONLY fd O_WRONLY", open(path, O_WRONLY));
	snprintf(path, sizeof(path), "/dev/fd/%d", rfd);
	TRY("/dev/fd reopen", open(path, O_WRONLY));
	snprintf(path, sizeof(path), "%s/cgroup.freeze", probe);
	unlink("/tmp/ll-cg-link");
	line("symlink in /tmp", symlink(path, "/tmp/ll-cg-link"), errno, NULL);
	TRY("open via symlink", open("/tmp/ll-cg-link", O_WRONLY));
	unlink("/tmp/ll-cg-link");
	line("hard link to /tmp", link(path, "/tmp/ll-cg-hard"), errno, NULL);
	TRY("io_uring OPENAT", uring_open(dfd, "cgroup.freeze"));
	line("chdir probe", chdir(probe), errno, NULL);
	TRY("open relative to cwd", open("cgroup.freeze", O_WRONLY));
	TRY("open O_RDWR", open("cgroup.freeze", O_RDWR));
	TRY("open O_WRONLY|O_TRUNC", open("cgroup.freeze", O_WRONLY | O_TRUNC));
	line("truncate", truncate("cgroup.freeze", 0), errno, frozen());
	line("chmod 0666", chmod("cgroup.freeze", 0666), errno, NULL);
	TRY("open after chmod", open("cgroup.freeze", O_WRONLY));
	TRY("open cgroup.threads", open("cgroup.threads", O_WRONLY));
	TRY("v1 freezer.state", open("/sys/fs/cgroup/freezer/freezer.state", O_WRONLY));
	(void)!chdir("/");
	by_handle();
	in_userns("userns+cgns fsmount cgroup2", 0);
	in_userns("userns open_tree clone", 1);
	in_userns("userns mount cgroup2", 2);
	into_cgroup();
	return 0;
}
