/* ha76-agent: hostile review h-attack76 (what Linux 6.13-7.3 added, the
 * calls h-attack47 read but did not run). Built by tests/review/ha76-guest.sh
 * into tests/review/ha76-guest/ (or by hand for the host, see the README).
 *   probe DIR   one line per call, each in a child of its own:
 *     otattr      open_tree_attr (6.15) clearing MOUNT_ATTR_RDONLY, NOSUID
 *                 and NODEV on a clone of "/", "/sys/fs/cgroup" and DIR,
 *                 first in the run's namespaces, then in a user and mount
 *                 namespace of the agent's own (uid 0 there); MOUNT_ATTR_IDMAP
 *                 on DIR's clone; where a cgroup clone comes back writable,
 *                 an open of its cgroup.kill for writing (never written).
 *     fsmountns   fsmount(FSMOUNT_NAMESPACE) of a tmpfs in that namespace.
 *     nsfs        every namespace listns (6.19) names, reopened through
 *                 open_by_handle_at(FD_NSFS_ROOT): how many open, and how
 *                 many of those are not the agent's own (/proc/self/ns).
 *     pidfs       open_by_handle_at(FD_PIDFS_ROOT) of the 4000 pidfs inode
 *                 numbers below the agent's own (older processes, the
 *                 host's among them): how many open, and PIDFD_GET_INFO's
 *                 pid and cgroup id of each.
 *     reaper      pidfd_open(1): PIDFD_GET_INFO, and
 *                 pidfd_send_signal(sig 0, PIDFD_SIGNAL_PROCESS_GROUP).
 *     passrights  SO_PASSRIGHTS set on a socketpair of its own.
 *     uprobe      the uretprobe (335) and uprobe (336) calls, not from a
 *                 trampoline.
 *     reaper-kill SIGKILL to the reaper's process group by its pidfd
 *                 (PIDFD_SIGNAL_PROCESS_GROUP), then whether it lives.
 *   own off|none  SO_PASSRIGHTS turned off on a socketpair of its own, as
 *               systemd's notification receiver does (none: left alone),
 *               then one datagram over the pair; exit 0 when it arrives.
 * The reaper probes run only when the agent is pid 2 (under a supervisor
 * with a pid namespace, pid 1 is its reaper), so a run outside one (the
 * host script's control) signals no one.
 * Never sends to the network and writes nothing outside DIR. Lines start
 * "ha76 " on stdout. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NR_open_tree_attr 467
#define NR_listns 470
#define NR_pidfd_open 434
#define NR_pidfd_send_signal 424
#define NR_fsopen 430
#define NR_fsconfig 431
#define NR_fsmount 432
#define OPEN_TREE_CLONE_ 1
#define AT_RECURSIVE_ 0x8000
#define MOUNT_ATTR_RDONLY_ 0x1
#define MOUNT_ATTR_NOSUID_ 0x2
#define MOUNT_ATTR_NODEV_ 0x4
#define MOUNT_ATTR_IDMAP_ 0x00100000
#define FSCONFIG_CMD_CREATE_ 6
#define FSMOUNT_NAMESPACE_ 2
#define FD_PIDFS_ROOT_ (-10002)
#define FD_NSFS_ROOT_ (-10003)
#define FILEID_KERNFS_ 0xfe
#define FILEID_NSFS_ 0xf1
#define SO_PASSRIGHTS_ 83
#define PIDFD_SIGNAL_PROCESS_GROUP_ (1u << 2)

struct mount_attr_ {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

struct ns_id_req {
	uint32_t size, spare;
	uint64_t ns_id;
	uint32_t ns_type, spare2;
	uint64_t user_ns_id;
};

struct pidfd_info_ {
	uint64_t mask, cgroupid;
	uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	int32_t exit_code;
	uint32_t coredump_mask, coredump_signal, coredump_code, pad;
	uint64_t supported_mask;
};
#define PIDFD_GET_INFO_ _IOWR(0xFF, 11, struct pidfd_info_)

struct handle {
	unsigned int bytes;
	int type;
	unsigned char f[32];
};

static void say(const char *what, long rc)
{
	printf("ha76 %s: %ld%s%s\n", what, rc, rc < 0 ? " " : "", rc < 0 ? strerror(errno) : "");
	fflush(stdout);
}

static void in_child(void (*fn)(const char *), const char *dir)
{
	pid_t p = fork();
	int st = 0;

	if (p == 0) {
		fn(dir);
		fflush(stdout);
		_exit(0);
	}
	if (p > 0 && waitpid(p, &st, 0) == p && WIFSIGNALED(st))
		printf("ha76   (child killed by signal %d)\n", WTERMSIG(st));
	fflush(stdout);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n < 0 ? -1 : 0;
}

/* A user and mount namespace of the agent's own, its uid 0 there. */
static int own_userns(void)
{
	char map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		return -1;
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)uid);
	if (write_file("/proc/self/uid_map", map) < 0)
		return -1;
	write_file("/proc/self/setgroups", "deny\n");
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)gid);
	return write_file("/proc/self/gid_map", map);
}

/* The agent's own cgroup's kill, freeze and procs files, opened for writing
 * (never written) through the clone at root, and by their path. */
static void cgroup_files(const char *tag, int root, const char *top)
{
	static const char *const files[] = {"cgroup.kill", "cgroup.freeze", "cgroup.procs"};
	char line[512] = "", rel[600], what[700];
	FILE *f = fopen("/proc/self/cgroup", "r");

	while (f && fgets(line, sizeof(line), f) && strncmp(line, "0::", 3) != 0)
		;
	line[strcspn(line, "\n")] = 0;
	if (f)
		fclose(f);
	printf("ha76 %s   own cgroup: %s\n", tag, line);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *p = strncmp(line, "0::/", 4) == 0 ? line + 4 : "";

		snprintf(rel, sizeof(rel), "%s%s%s", p, *p ? "/" : "", files[i]);
		snprintf(what, sizeof(what), "%s   openat(clone, %s, O_WRONLY)", tag, rel);
		say(what, openat(root, rel, O_WRONLY));
		snprintf(rel, sizeof(rel), "%s/%s%s%s", top, p, *p ? "/" : "", files[i]);
		snprintf(what, sizeof(what), "%s   open(%s, O_WRONLY)", tag, rel);
		say(what, open(rel, O_WRONLY));
	}
}

static void otattr_on(const char *tag, const char *path)
{
	struct mount_attr_ a = {.attr_clr =
				    MOUNT_ATTR_RDONLY_ | MOUNT_ATTR_NOSUID_ | MOUNT_ATTR_NODEV_};
	char what[256];
	long fd = syscall(NR_open_tree_attr, AT_FDCWD, path, OPEN_TREE_CLONE_ | AT_RECURSIVE_, &a,
			  sizeof(a));

	snprintf(what, sizeof(what), "%s open_tree_attr(%s, clone, clear rdonly|nosuid|nodev)", tag,
		 path);
	say(what, fd);
	if (fd >= 0 && strstr(path, "cgroup"))
		cgroup_files(tag, (int)fd, path);
	if (fd >= 0)
		close((int)fd);
	/* Read-only alone (a cgroup2 mount is nosuid and nodev where systemd
	 * or the guest's init mounts it, and those locks refuse the above). */
	a.attr_clr = MOUNT_ATTR_RDONLY_;
	fd = syscall(NR_open_tree_attr, AT_FDCWD, path, OPEN_TREE_CLONE_ | AT_RECURSIVE_, &a,
		     sizeof(a));
	snprintf(what, sizeof(what), "%s open_tree_attr(%s, clone, clear rdonly)", tag, path);
	say(what, fd);
	if (fd >= 0)
		close((int)fd);
	/* The plain clone: a mount that was writable stays so, and its files
	 * are reached by a path no rule of the run's was made for. */
	fd = syscall(NR_open_tree_attr, AT_FDCWD, path, OPEN_TREE_CLONE_ | AT_RECURSIVE_, NULL, 0);
	snprintf(what, sizeof(what), "%s open_tree_attr(%s, clone, no attr)", tag, path);
	say(what, fd);
	if (fd >= 0 && strstr(path, "cgroup"))
		cgroup_files(tag, (int)fd, path);
}

static void p_otattr(const char *dir)
{
	struct mount_attr_ a = {.attr_set = MOUNT_ATTR_IDMAP_};
	long fd;

	otattr_on("run-ns", "/");
	otattr_on("run-ns", "/sys/fs/cgroup");
	otattr_on("run-ns", "/sys/fs/cgroup/unified");
	otattr_on("run-ns", dir);
	say("unshare(user|mnt), uid 0 there", own_userns());
	otattr_on("own-ns", "/");
	otattr_on("own-ns", "/sys/fs/cgroup");
	otattr_on("own-ns", "/sys/fs/cgroup/unified");
	otattr_on("own-ns", dir);
	a.userns_fd = (uint64_t)open("/proc/self/ns/user", O_RDONLY);
	fd = syscall(NR_open_tree_attr, AT_FDCWD, dir, OPEN_TREE_CLONE_, &a, sizeof(a));
	say("own-ns open_tree_attr(DIR, clone, idmap to its own userns)", fd);
}

static void p_fsmountns(const char *dir)
{
	long fs, m;

	(void)dir;
	say("unshare(user|mnt), uid 0 there", own_userns());
	fs = syscall(NR_fsopen, "tmpfs", 0);
	say("fsopen(tmpfs)", fs);
	if (fs < 0)
		return;
	say("fsconfig(create)", syscall(NR_fsconfig, fs, FSCONFIG_CMD_CREATE_, NULL, NULL, 0));
	m = syscall(NR_fsmount, fs, FSMOUNT_NAMESPACE_, 0);
	say("fsmount(FSMOUNT_NAMESPACE)", m);
}

/* The inode of /proc/self/ns/NAME, for each type listns may name. */
static int is_own_ns(ino_t ino)
{
	static const char *const names[] = {"cgroup",
					    "ipc",
					    "mnt",
					    "net",
					    "pid",
					    "time",
					    "user",
					    "uts",
					    "pid_for_children",
					    "time_for_children"};
	char path[64];
	struct stat st;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "/proc/self/ns/%s", names[i]);
		if (stat(path, &st) == 0 && st.st_ino == ino)
			return 1;
	}
	return 0;
}

static void p_nsfs(const char *dir)
{
	struct ns_id_req req = {.size = sizeof(req)};
	uint64_t ids[1024];
	long n = syscall(NR_listns, &req, ids, 1024, 0);
	int ok = 0, foreign = 0, eperm = 0, other = 0;

	(void)dir;
	say("listns (every type, every owner)", n);
	for (long i = 0; i < n; i++) {
		struct handle h = {.bytes = 16, .type = FILEID_NSFS_};
		struct stat st;
		int fd;

		memcpy(h.f, &ids[i], 8);
		fd = open_by_handle_at(FD_NSFS_ROOT_, (void *)&h, O_RDONLY);
		if (fd < 0) {
			if (errno == EPERM)
				eperm++;
			else
				other++;
			continue;
		}
		ok++;
		if (fstat(fd, &st) == 0 && !is_own_ns(st.st_ino)) {
			foreign++;
			printf("ha76   foreign namespace opened: id %llu ino %lu\n",
			       (unsigned long long)ids[i], (unsigned long)st.st_ino);
		}
		close(fd);
	}
	printf("ha76 nsfs handles: %d opened (%d not the agent's own), %d EPERM, %d other\n", ok,
	       foreign, eperm, other);
}

static void p_pidfs(const char *dir)
{
	struct handle h = {.bytes = sizeof(h.f)};
	int mnt = 0, self = (int)syscall(NR_pidfd_open, getpid(), 0), ok = 0, odd = 0;
	uint64_t ino;

	(void)dir;
	if (name_to_handle_at(self, "", (void *)&h, &mnt, AT_EMPTY_PATH) < 0) {
		say("name_to_handle_at(own pidfd)", -1);
		return;
	}
	memcpy(&ino, h.f, 8);
	printf("ha76 own pidfs handle: type %#x bytes %u ino %llu\n", h.type, h.bytes,
	       (unsigned long long)ino);
	say("  control: open_by_handle_at(FD_PIDFS_ROOT, own handle)",
	    open_by_handle_at(FD_PIDFS_ROOT_, (void *)&h, O_RDONLY));
	for (uint64_t i = ino > 4000 ? ino - 4000 : 1; i < ino; i++) {
		struct handle t = {.bytes = 8, .type = FILEID_KERNFS_};
		struct pidfd_info_ info = {.mask = 1 | 2 | 4};
		int fd;

		memcpy(t.f, &i, 8);
		fd = open_by_handle_at(FD_PIDFS_ROOT_, (void *)&t, O_RDONLY);
		if (fd < 0)
			continue;
		ok++;
		if (ioctl(fd, PIDFD_GET_INFO_, &info) == 0)
			printf("ha76   pidfs ino %llu: pid %u ppid %u uid %u cgroup %llu\n",
			       (unsigned long long)i, info.pid, info.ppid, info.ruid,
			       (unsigned long long)info.cgroupid);
		else
			odd++;
		close(fd);
	}
	printf("ha76 pidfs handles below the agent's own: %d opened (%d without info)\n", ok, odd);
}

static void p_reaper(const char *dir)
{
	struct pidfd_info_ info = {.mask = 1 | 2 | 4};
	int fd = (int)syscall(NR_pidfd_open, 1, 0);

	(void)dir;
	say("pidfd_open(1)", fd);
	if (fd < 0)
		return;
	if (ioctl(fd, PIDFD_GET_INFO_, &info) == 0)
		printf("ha76 reaper info: pid %u ppid %u uid %u cgroup %llu\n", info.pid, info.ppid,
		       info.ruid, (unsigned long long)info.cgroupid);
	printf("ha76 reaper getpgid %d getsid %d; own getpgid %d getsid %d\n", (int)getpgid(1),
	       (int)getsid(1), (int)getpgid(0), (int)getsid(0));
	say("pidfd_send_signal(reaper, 0, PROCESS_GROUP)",
	    syscall(NR_pidfd_send_signal, fd, 0, NULL, PIDFD_SIGNAL_PROCESS_GROUP_));
}

/* SIGKILL to the reaper's process group through its pidfd: the reaper
 * leads its own group (and session), and as the namespace's init it takes
 * no signal from inside it has no handler for. Alive after: signal 0 says. */
static void p_reaper_kill(const char *dir)
{
	int fd = (int)syscall(NR_pidfd_open, 1, 0);

	(void)dir;
	say("pidfd_send_signal(reaper, SIGKILL, PROCESS_GROUP)",
	    syscall(NR_pidfd_send_signal, fd, SIGKILL, NULL, PIDFD_SIGNAL_PROCESS_GROUP_));
	usleep(200000);
	say("  then pidfd_send_signal(reaper, 0)", syscall(NR_pidfd_send_signal, fd, 0, NULL, 0));
}

static void p_passrights(const char *dir)
{
	int sv[2], one = 1;

	(void)dir;
	say("socketpair(AF_UNIX)", socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	say("setsockopt(SO_PASSRIGHTS, 1) on its own pair",
	    setsockopt(sv[0], SOL_SOCKET, SO_PASSRIGHTS_, &one, sizeof(one)));
}

static void p_uretprobe(const char *dir)
{
	(void)dir;
	say("uretprobe (335) outside a trampoline", syscall(335));
}

static void p_uprobe(const char *dir)
{
	(void)dir;
	say("uprobe (336) outside a trampoline", syscall(336));
}

/* What systemd's notification receiver (v258+, notify-recv.c) and its
 * .socket units with AcceptFileDescriptors=no do: SO_PASSRIGHTS turned off
 * on an AF_UNIX socket of the program's own, so that no peer can make it
 * hold a descriptor. "none" leaves the option alone (the control). */
static int own(const char *how)
{
	int sv[2], zero = 0;
	char buf[16];

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
		return 1;
	if (strcmp(how, "off") == 0)
		say("setsockopt(SO_PASSRIGHTS, 0) on its own pair",
		    setsockopt(sv[1], SOL_SOCKET, SO_PASSRIGHTS_, &zero, sizeof(zero)));
	if (send(sv[0], "READY=1", 7, 0) != 7 || recv(sv[1], buf, sizeof(buf), 0) != 7)
		return 1;
	say("notification received", 0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "own") == 0)
		return own(argv[2]);
	static void (*const probes[])(const char *) = {p_otattr,    p_fsmountns, p_nsfs,
						       p_pidfs,     p_reaper,    p_passrights,
						       p_uretprobe, p_uprobe,    p_reaper_kill};

	if (argc != 3 || strcmp(argv[1], "probe") != 0) {
		fprintf(stderr, "usage: ha76-agent probe DIR | own off|none\n");
		return 2;
	}
	printf("ha76 uid %u pid %d\n", (unsigned)geteuid(), (int)getpid());
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		/* Pid 1 is the reaper only when the agent is pid 2 of a pid
		 * namespace of the run's: never signal anyone else's pid 1. */
		if ((probes[i] == p_reaper || probes[i] == p_reaper_kill) && getpid() != 2) {
			printf("ha76 reaper probes skipped: pid %d, no reaper\n", (int)getpid());
			continue;
		}
		in_child(probes[i], argv[2]);
	}
	return 0;
}
