/*
 * reset-plant: leaves state behind for the batch reset to find (docs/guest.md
 * "The reset and its proof"). Test-only: the scenarios in scenarios/tests/
 * run it as a service (root, in init's own namespaces, started before the
 * supervisor), between other cells of one batch (make batch-reset-test).
 *
 *   reset-plant repairable   what the reset must put back and then pass:
 *                            a sysctl, an address on lo, a mount on a new
 *                            point, a device node, a file in /tmp, an empty
 *                            cgroup, the cell cgroup's cgroup.kill given to
 *                            uid 1000 (as cgroup=delegated does); not a
 *                            module: sctp, once autoloaded, stays in use
 *                            after its socket is closed, EAGAIN, so a cell
 *                            that loads it ends its batch
 *   reset-plant leftovers    what the reset must refuse, one per check: a
 *                            process that left its cgroup (in a cgroup of its
 *                            own, holding an sctp socket, so the module stays
 *                            in use), a mount over one of the boot's mount
 *                            points, immutable files in /tmp and /dev, a file
 *                            in the root filesystem, lo's MTU, ptrace_scope=3
 *                            and lo's stable_secret (neither can be put back),
 *                            a System V shared memory segment
 *
 * Each plant is logged ("plant" with its target and errno). Then it listens
 * on 127.0.0.1 (init's readiness test) and waits to be killed.
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/fs.h>

static void plant(const char *what, int rc)
{
	agent_log("plant", what, rc, rc < 0 ? errno : 0, NULL);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	int err = errno;

	close(fd);
	errno = err;
	return n < 0 ? -1 : 0;
}

/* A file that not even root can remove until the flag is cleared. */
static int immutable_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
	int flags = FS_IMMUTABLE_FL;

	if (fd < 0)
		return -1;
	int rc = ioctl(fd, FS_IOC_SETFLAGS, &flags);
	int err = errno;

	close(fd);
	errno = err;
	return rc;
}

/* busybox ARGS... (ip); its exit status, or -1. */
static int busybox(const char *const *argv)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		execv("/bin/busybox", (char *const *)argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	errno = EINVAL;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int sctp_socket(void)
{
	return socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP);
}

static void repairable(void)
{
	static const char *const addr[] = {"ip",  "addr", "add", "192.0.2.200/32",
					   "dev", "lo",   NULL};

	plant("/proc/sys/net/ipv4/ip_default_ttl",
	      write_file("/proc/sys/net/ipv4/ip_default_ttl", "77\n"));
	plant("lo 192.0.2.200/32", busybox(addr));
	mkdir("/tmp/egress-planted-mnt", 0755);
	plant("/tmp/egress-planted-mnt",
	      mount("egress-planted", "/tmp/egress-planted-mnt", "tmpfs", 0, "size=64k"));
	plant("/dev/egress-planted", mknod("/dev/egress-planted", S_IFCHR | 0666, makedev(1, 3)));
	plant("/tmp/egress-planted", write_file("/tmp/egress-planted", "planted\n"));
	plant("/sys/fs/cgroup/egress-planted-empty",
	      mkdir("/sys/fs/cgroup/egress-planted-empty", 0755));
	plant("/sys/fs/cgroup/egress-cell/cgroup.kill",
	      chown("/sys/fs/cgroup/egress-cell/cgroup.kill", 1000, 1000));
}

/* A child in a cgroup of its own, out of init's helper cgroup, in a session
 * of its own, holding an sctp socket. */
static void escaped_child(void)
{
	if (mkdir("/sys/fs/cgroup/egress-planted", 0755) < 0 && errno != EEXIST)
		plant("/sys/fs/cgroup/egress-planted", -1);
	pid_t pid = fork();

	if (pid != 0) {
		plant("escaped child", pid < 0 ? -1 : (int)pid);
		return;
	}
	setsid();
	plant("/sys/fs/cgroup/egress-planted/cgroup.procs",
	      write_file("/sys/fs/cgroup/egress-planted/cgroup.procs", "0\n"));
	int fd = sctp_socket();

	plant("sctp held", fd);
	for (;;)
		pause();
}

static void leftovers(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	escaped_child();
	plant("/run", mount("egress-planted", "/run", "tmpfs", 0, "size=64k"));
	plant("/tmp/egress-planted-immutable", immutable_file("/tmp/egress-planted-immutable"));
	plant("/dev/egress-planted-immutable", immutable_file("/dev/egress-planted-immutable"));
	plant("/egress-planted", write_file("/egress-planted", "planted\n"));
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	ifr.ifr_mtu = 1280;
	plant("lo mtu 1280", s < 0 ? -1 : ioctl(s, SIOCSIFMTU, &ifr));
	if (s >= 0)
		close(s);
	plant("/proc/sys/kernel/yama/ptrace_scope",
	      write_file("/proc/sys/kernel/yama/ptrace_scope", "3\n"));
	plant("/proc/sys/net/ipv6/conf/lo/stable_secret",
	      write_file("/proc/sys/net/ipv6/conf/lo/stable_secret", "2001:db8::1\n"));
	plant("shm", shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600));
}

int main(int argc, char **argv)
{
	agent_init("reset-plant");
	if (argc != 2 || (strcmp(argv[1], "repairable") && strcmp(argv[1], "leftovers")))
		return agent_usage("repairable|leftovers");
	if (strcmp(argv[1], "repairable") == 0)
		repairable();
	else
		leftovers();
	/* Ready: init waits for a listening socket of ours. */
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};

	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 1) < 0)
		plant("listen", -1);
	for (;;)
		pause();
}
