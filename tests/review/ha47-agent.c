/* ha47-agent: hostile review h-attack47 (what Linux 6.10-7.3 added).
 * Built by tests/review/ha47-guest.sh into tests/review/ha47-guest/.
 *   probe DIR   one line per call this kernel added or widened, each in a
 *               child of its own (a namespace or root change stays there):
 *               listns, fchroot (failfs and a directory), unshare's
 *               UNSHARE_EMPTY_MNTNS, open_tree's OPEN_TREE_NAMESPACE in a
 *               user namespace of its own, TCP_AO_ADD_KEY with an
 *               algorithm name of its choosing (the name would reach
 *               kernel.modprobe as crypto-NAME where the kernel allocates
 *               it by name), file_setattr, setxattrat security.capability,
 *               process_madvise of its parent, F_SETDELEG (the control of
 *               h-attack43's fix). DIR is a writable directory.
 *   failfs DIR  fchroot(FD_FAILFS_ROOT) and then an AF_UNIX connect by a
 *               relative name to DIR/s, a socket the agent binds first:
 *               the kernel resolves it from the working directory, which
 *               the new root no longer contains.
 *   failfs-send IP PORT  one UDP datagram to IP:PORT (undeclared: denied),
 *               then fchroot(FD_FAILFS_ROOT) and an AF_UNIX connect to
 *               "/ha47-none": a root agent's name is looked up through
 *               /proc/TID/root, which failfs will not open.
 * Never sends to the network. Guest only: outside a run, probe changes the
 * attributes of "/" (file_setattr +NODUMP) and makes DIR/ha47-f immutable.
 * Lines start "ha47 " on stdout. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#define NR_listns 470
#define NR_fchroot 472
#define NR_setxattrat 463
#define NR_file_getattr 468
#define NR_file_setattr 469
#define NR_open_tree 428
#define NR_process_madvise 440
#define NR_pidfd_open 434
#define FD_FAILFS_ROOT (-10004)
#define OPEN_TREE_NAMESPACE 2
#define AT_RECURSIVE_ 0x8000
#define UNSHARE_EMPTY_MNTNS 0x00100000
#define F_SETDELEG_ 1040
#define TCP_AO_ADD_KEY 38
#define FS_XFLAG_NODUMP 0x00000080
#define FS_XFLAG_IMMUTABLE 0x00000008

struct ns_id_req {
	uint32_t size, spare;
	uint64_t ns_id;
	uint32_t ns_type, spare2;
	uint64_t user_ns_id;
};

struct xattr_args {
	uint64_t value;
	uint32_t size, flags;
};

struct file_attr {
	uint64_t fa_xflags;
	uint32_t fa_extsize, fa_nextents, fa_projid, fa_cowextsize;
};

struct tcp_ao_add {
	struct sockaddr_storage addr;
	char alg_name[64];
	int32_t ifindex;
	uint32_t flags;
	uint16_t reserved2;
	uint8_t prefix, sndid, rcvid, maclen, keyflags, keylen;
	uint8_t key[80];
} __attribute__((aligned(8)));

static void say(const char *what, long rc)
{
	printf("ha47 %s: %ld%s%s\n", what, rc, rc < 0 ? " " : "", rc < 0 ? strerror(errno) : "");
	fflush(stdout);
}

/* Runs fn in a child and waits for it: a root or namespace change made
 * there never reaches the next probe. */
static void in_child(void (*fn)(const char *), const char *dir)
{
	pid_t p = fork();

	if (p == 0) {
		fn(dir);
		fflush(stdout);
		_exit(0);
	}
	if (p > 0)
		waitpid(p, NULL, 0);
}

static void p_listns(const char *dir)
{
	struct ns_id_req req = {.size = sizeof(req)};
	uint64_t ids[512];
	long n = syscall(NR_listns, &req, ids, 512, 0);

	(void)dir;
	say("listns (every type, every owner)", n);
}

static void p_fchroot_failfs(const char *dir)
{
	long rc = syscall(NR_fchroot, FD_FAILFS_ROOT, 0);
	char cwd[256];

	(void)dir;
	say("fchroot(FD_FAILFS_ROOT)", rc);
	if (rc == 0) {
		say("  then open(\"/etc/passwd\")", open("/etc/passwd", O_RDONLY));
		say("  then open(\"./\" in the old cwd)", open(".", O_RDONLY | O_DIRECTORY));
		printf("ha47   getcwd: %s\n", getcwd(cwd, sizeof(cwd)) ? cwd : strerror(errno));
	}
}

static void p_fchroot_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY);

	say("fchroot(fd of DIR)", syscall(NR_fchroot, fd, 0));
}

static void p_empty_mntns(const char *dir)
{
	(void)dir;
	say("unshare(UNSHARE_EMPTY_MNTNS)", syscall(SYS_unshare, UNSHARE_EMPTY_MNTNS));
}

static void p_open_tree_ns(const char *dir)
{
	char link[64], target[128];
	long fd;
	ssize_t n;

	(void)dir;
	say("unshare(CLONE_NEWUSER)", syscall(SYS_unshare, CLONE_NEWUSER));
	fd = syscall(NR_open_tree, AT_FDCWD, "/", OPEN_TREE_NAMESPACE | AT_RECURSIVE_);
	say("open_tree(\"/\", OPEN_TREE_NAMESPACE|AT_RECURSIVE)", fd);
	if (fd >= 0) {
		snprintf(link, sizeof(link), "/proc/self/fd/%ld", fd);
		n = readlink(link, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		printf("ha47   the descriptor: %s\n", target);
	}
}

static void p_tcp_ao(const char *dir)
{
	struct tcp_ao_add k;
	struct sockaddr_in *a = (struct sockaddr_in *)&k.addr;
	int s = socket(AF_INET, SOCK_STREAM, 0);

	(void)dir;
	memset(&k, 0, sizeof(k));
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(0xc0000201);
	k.prefix = 32;
	k.sndid = k.rcvid = 1;
	k.keylen = 16;
	memset(k.key, 'k', 16);
	strcpy(k.alg_name, "hmac(ha47secret)");
	say("setsockopt(TCP_AO_ADD_KEY, alg hmac(ha47secret))",
	    setsockopt(s, IPPROTO_TCP, TCP_AO_ADD_KEY, &k, sizeof(k)));
	strcpy(k.alg_name, "hmac(sha256)");
	say("setsockopt(TCP_AO_ADD_KEY, alg hmac(sha256))",
	    setsockopt(s, IPPROTO_TCP, TCP_AO_ADD_KEY, &k, sizeof(k)));
}

static void p_file_setattr(const char *dir)
{
	char path[256];
	struct file_attr fa;
	int fd;

	say("file_getattr(\"/\")", syscall(NR_file_getattr, AT_FDCWD, "/", &fa, sizeof(fa), 0));
	fa.fa_xflags |= FS_XFLAG_NODUMP;
	say("file_setattr(\"/\", +NODUMP)",
	    syscall(NR_file_setattr, AT_FDCWD, "/", &fa, sizeof(fa), 0));
	snprintf(path, sizeof(path), "%s/ha47-f", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0755);
	close(fd);
	memset(&fa, 0, sizeof(fa));
	fa.fa_xflags = FS_XFLAG_IMMUTABLE;
	say("file_setattr(DIR/ha47-f, IMMUTABLE)",
	    syscall(NR_file_setattr, AT_FDCWD, path, &fa, sizeof(fa), 0));
}

static void p_setxattrat(const char *dir)
{
	/* VFS_CAP_REVISION_2, cap_setuid|cap_setgid effective and permitted. */
	uint32_t cap[5] = {0x02000001, (1u << 6) | (1u << 7), 0, 0, 0};
	struct xattr_args args = {.value = (uintptr_t)cap, .size = sizeof(cap)};
	char path[256];

	snprintf(path, sizeof(path), "%s/ha47-f", dir);
	say("setxattrat(DIR/ha47-f, security.capability)",
	    syscall(NR_setxattrat, AT_FDCWD, path, 0, "security.capability", &args, sizeof(args)));
	args.value = (uintptr_t) "x";
	args.size = 1;
	say("setxattrat(DIR/ha47-f, trusted.ha47)",
	    syscall(NR_setxattrat, AT_FDCWD, path, 0, "trusted.ha47", &args, sizeof(args)));
}

static void p_madvise(const char *dir)
{
	static char page[4096] __attribute__((aligned(4096)));
	struct iovec v = {.iov_base = page, .iov_len = sizeof(page)};
	long pfd = syscall(NR_pidfd_open, getppid(), 0);

	(void)dir;
	say("process_madvise(parent, MADV_COLD)", syscall(NR_process_madvise, pfd, &v, 1, 20, 0));
}

static void p_deleg(const char *dir)
{
	struct {
		uint32_t d_flags;
		uint16_t d_type, pad;
	} d = {0, F_RDLCK, 0};
	int fd = open(dir, O_RDONLY | O_DIRECTORY);

	say("fcntl(DIR, F_SETDELEG, F_RDLCK)", fcntl(fd, F_SETDELEG_, &d));
}

/* A socket of the agent's own under DIR, then fchroot to failfs and a
 * relative connect to it: what the supervisor answers when the working
 * directory is outside the thread's root. */
static int failfs(const char *dir)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int l = socket(AF_UNIX, SOCK_STREAM, 0), c;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s/s", dir);
	unlink(a.sun_path);
	say("bind DIR/s", bind(l, (struct sockaddr *)&a, sizeof(a)));
	say("listen", listen(l, 4));
	say("chdir DIR", chdir(dir));
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	strcpy(a.sun_path, "s");
	say("connect \"s\" (before)", connect(c, (struct sockaddr *)&a, sizeof(a)));
	close(c);
	say("fchroot(FD_FAILFS_ROOT)", syscall(NR_fchroot, FD_FAILFS_ROOT, 0));
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	say("connect \"s\" (after)", connect(c, (struct sockaddr *)&a, sizeof(a)));
	return 0;
}

static int failfs_send(const char *ip, int port)
{
	struct sockaddr_in in = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
	struct sockaddr_un a = {.sun_family = AF_UNIX, .sun_path = "/ha47-none"};
	int u = socket(AF_INET, SOCK_DGRAM, 0), c;

	inet_pton(AF_INET, ip, &in.sin_addr);
	say("sendto IP:PORT", sendto(u, "ha47", 4, 0, (struct sockaddr *)&in, sizeof(in)));
	say("fchroot(FD_FAILFS_ROOT)", syscall(NR_fchroot, FD_FAILFS_ROOT, 0));
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	say("connect \"/ha47-none\"", connect(c, (struct sockaddr *)&a, sizeof(a)));
	return 0;
}

int main(int argc, char **argv)
{
	static void (*const probes[])(const char *) = {
	    p_listns, p_fchroot_failfs, p_fchroot_dir, p_empty_mntns, p_open_tree_ns,
	    p_tcp_ao, p_file_setattr,   p_setxattrat,  p_madvise,     p_deleg,
	};

	if (argc < 3)
		return 2;
	printf("ha47 uid %d\n", (int)getuid());
	if (strcmp(argv[1], "failfs-send") == 0 && argc > 3)
		return failfs_send(argv[2], atoi(argv[3]));
	if (strcmp(argv[1], "failfs") == 0)
		return failfs(argv[2]);
	if (strcmp(argv[1], "probe") != 0)
		return 2;
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		in_child(probes[i], argv[2]);
	return 0;
}
