/* ha25-setns.c (hostile review h-nsjoin): agents for ha25-setns.sh. setns
 * is not mediated: the agent joins namespaces that were not made in its run
 * and acts there.
 *
 *   net NSFILE PORT MARKER     open a bind-mounted network namespace file
 *       (as `ip netns attach`, `unshare --net=FILE`, podman's
 *       /run/user/UID/netns/NAME, docker's /run/docker/netns/NAME leave), take its
 *       user namespace (NS_GET_USERNS), become its owner's uid if that is not
 *       ours and we may (CAP_SETUID), setns(user) then setns(net), and
 *       connect to 127.0.0.1:PORT: loopback is allowed, but it is the other
 *       namespace's loopback. Sends MARKER.
 *   mnt NSFILE HOSTFILE HOOK MARKER   the same through a mount namespace
 *       file: setns(user) then setns(mnt), then write HOSTFILE (a file of
 *       the host's, read-only in the run's view; the other namespace's copy
 *       of the mount is writable) and HOOK (a file a process of the
 *       container runs), each holding MARKER. (A bind mount of a mount
 *       namespace file is not copied into a new mount namespace, so in a
 *       pid-namespace run the agent finds only the file under it.)
 *   mnt-pidfd SOCK HOSTFILE HOOK MARKER   the same, the mount namespace
 *       joined with setns(pidfd, CLONE_NEWUSER|CLONE_NEWNS), the pidfd from
 *       SO_PEERPIDFD on a connection to the AF_UNIX path SOCK.
 *   handle FILE                 (host side) print the nsfs file handle of the
 *       namespace file FILE as TYPE:HEX.
 *   byhandle TYPE:HEX PORT MARKER   open that namespace with
 *       open_by_handle_at(FD_NSFS_ROOT) (6.18), no file needed, then as net.
 *   pidfd-scm SOCK PORT MARKER  connect to the AF_UNIX path SOCK (a declared
 *       peer), receive a pidfd over SCM_RIGHTS, setns(pidfd,
 *       CLONE_NEWUSER|CLONE_NEWNET), connect to 127.0.0.1:PORT.
 *   pidfd-peer SOCK PORT MARKER the same, the pidfd taken with
 *       getsockopt(SO_PEERPIDFD) (6.5) from the peer of a connection to
 *       SOCK: no cooperation from the peer.
 *   nouserns PROG [ARG]...      install a seccomp mask answering EPERM to
 *       unshare and clone with CLONE_NEWUSER (and ENOSYS to clone3, which a
 *       classic filter cannot look into), as a host profile refusing user
 *       namespaces does, and exec PROG.
 *   nosetns PROG [ARG]...       install a seccomp mask answering EPERM to
 *       every setns and exec PROG: a stand-in for a supervisor that refuses
 *       setns to its agent (SV=a wrapper that runs the supervisor under it),
 *       to check that the script then finds nothing delivered.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/nsfs.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673
#endif
#ifndef FD_NSFS_ROOT
#define FD_NSFS_ROOT -10003
#endif
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

static const char *err(int rc)
{
	return rc < 0 ? strerror(errno) : "ok";
}

/* Join the user namespace that owns the namespace NSFD (becoming its owner
 * first when that is another uid and we may). 0 or -1. */
static int join_owner(int nsfd)
{
	uid_t owner = (uid_t)-1;
	int ufd = ioctl(nsfd, NS_GET_USERNS), rc;

	if (ufd < 0) {
		printf("agent: NS_GET_USERNS: %s\n", strerror(errno));
		return -1;
	}
	ioctl(ufd, NS_GET_OWNER_UID, &owner);
	printf("agent: its user namespace is owned by uid %u; we are uid %u\n", owner,
	       (unsigned)geteuid());
	if (owner != geteuid() && geteuid() == 0) {
		rc = setresuid(owner, owner, owner);
		printf("agent: setresuid(%u): %s\n", owner, err(rc));
		if (rc)
			return -1;
	}
	rc = setns(ufd, CLONE_NEWUSER);
	printf("agent: setns(user namespace): %s\n", err(rc));
	close(ufd);
	return rc ? -1 : 0;
}

static int talk(int port, const char *marker)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	char buf[256];
	int s = socket(AF_INET, SOCK_STREAM, 0), rc;
	ssize_t n;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rc = connect(s, (struct sockaddr *)&a, sizeof(a));
	printf("agent: connect 127.0.0.1:%d: %s\n", port, err(rc));
	if (rc)
		return 1;
	n = write(s, marker, strlen(marker));
	printf("agent: sent %zd bytes\n", n);
	memset(buf, 0, sizeof(buf));
	n = read(s, buf, sizeof(buf) - 1);
	printf("agent: the service answered: %s\n", n > 0 ? buf : "(nothing)");
	close(s);
	return 0;
}

static int join_net(int nfd, int port, const char *marker)
{
	int rc;

	/* Without the user namespace first: the run's CAP_SYS_ADMIN is gone. */
	rc = setns(nfd, CLONE_NEWNET);
	printf("agent: setns(network namespace) directly: %s\n", err(rc));
	if (rc && join_owner(nfd))
		return 1;
	if (rc) {
		rc = setns(nfd, CLONE_NEWNET);
		printf("agent: setns(network namespace): %s\n", err(rc));
		if (rc)
			return 1;
	}
	return talk(port, marker);
}

static int do_net(const char *nsfile, int port, const char *marker)
{
	int nfd = open(nsfile, O_RDONLY | O_CLOEXEC);

	if (nfd < 0) {
		printf("agent: open %s: %s\n", nsfile, strerror(errno));
		return 1;
	}
	return join_net(nfd, port, marker);
}

static int do_handle(const char *file)
{
	union {
		struct file_handle h;
		char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} u;
	int mnt;

	u.h.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, file, &u.h, &mnt, 0)) {
		perror("name_to_handle_at");
		return 1;
	}
	printf("%d:", u.h.handle_type);
	for (unsigned i = 0; i < u.h.handle_bytes; i++)
		printf("%02x", (unsigned char)u.h.f_handle[i]);
	printf("\n");
	return 0;
}

static int do_byhandle(const char *spec, int port, const char *marker)
{
	union {
		struct file_handle h;
		char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} u;
	const char *hex = strchr(spec, ':');
	unsigned n = 0;
	int fd;

	if (!hex)
		return 2;
	u.h.handle_type = atoi(spec);
	for (hex++; hex[0] && hex[1] && n < MAX_HANDLE_SZ; hex += 2) {
		unsigned b;

		sscanf(hex, "%2x", &b);
		u.h.f_handle[n++] = (unsigned char)b;
	}
	u.h.handle_bytes = n;
	fd = open_by_handle_at(FD_NSFS_ROOT, &u.h, O_RDONLY | O_CLOEXEC);
	printf("agent: open_by_handle_at(FD_NSFS_ROOT, the container's network namespace): %s\n",
	       err(fd));
	if (fd < 0)
		return 1;
	return join_net(fd, port, marker);
}

static int write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode), rc = -1;

	if (fd >= 0) {
		rc = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1;
		close(fd);
	}
	printf("agent: write %s: %s\n", path, err(fd < 0 ? -1 : rc));
	return fd < 0 ? -1 : rc;
}

static int write_both(const char *hostfile, const char *hook, const char *marker)
{
	char text[512];
	int rc;

	printf("agent: in the joined mount namespace:\n");
	snprintf(text, sizeof(text), "%s\n", marker);
	rc = write_file(hostfile, text, 0644);
	snprintf(text, sizeof(text),
		 "#!/bin/sh\necho %s \"(run by uid $(id -u) in the container)\"\n", marker);
	rc |= write_file(hook, text, 0755);
	return rc ? 1 : 0;
}

static int do_mnt(const char *nsfile, const char *hostfile, const char *hook, const char *marker)
{
	char text[512];
	struct statfs sfs = {0};
	int mfd = open(nsfile, O_RDONLY | O_CLOEXEC), rc;

	if (mfd < 0) {
		printf("agent: open %s: %s\n", nsfile, strerror(errno));
		return 1;
	}
	if (fstatfs(mfd, &sfs) || sfs.f_type != NSFS_MAGIC) {
		printf("agent: %s is no namespace file in the run's view (f_type %#lx)\n", nsfile,
		       (unsigned long)sfs.f_type);
		return 1;
	}
	snprintf(text, sizeof(text), "%s\n", marker);
	printf("agent: in the run's view:\n");
	write_file(hostfile, text, 0644);
	if (join_owner(mfd))
		return 1;
	rc = setns(mfd, CLONE_NEWNS);
	printf("agent: setns(mount namespace): %s\n", err(rc));
	if (rc)
		return 1;
	return write_both(hostfile, hook, marker);
}

static int recv_fd(int s)
{
	char c, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {&c, 1};
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm;
	int fd = -1;

	if (recvmsg(s, &m, 0) < 1)
		return -1;
	cm = CMSG_FIRSTHDR(&m);
	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
	return fd;
}

/* A pidfd: from SO_PEERPIDFD (PEER) or SCM_RIGHTS on a connection to PATH. */
static int get_pidfd(int peer, const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	socklen_t l = sizeof(int);
	int s = socket(AF_UNIX, SOCK_STREAM, 0), pfd = -1, rc;

	strncpy(a.sun_path, path, sizeof(a.sun_path) - 1);
	rc = connect(s, (struct sockaddr *)&a, sizeof(a));
	printf("agent: connect %s: %s\n", path, err(rc));
	if (rc)
		return -1;
	if (peer) {
		rc = getsockopt(s, SOL_SOCKET, SO_PEERPIDFD, &pfd, &l);
		printf("agent: getsockopt(SO_PEERPIDFD): %s\n", err(rc));
	} else {
		pfd = recv_fd(s);
		printf("agent: received descriptor %d over SCM_RIGHTS\n", pfd);
	}
	return pfd;
}

static int do_pidfd(int peer, const char *path, int port, const char *marker)
{
	int pfd = get_pidfd(peer, path), rc;

	if (pfd < 0)
		return 1;
	rc = setns(pfd, CLONE_NEWNET);
	printf("agent: setns(pidfd, CLONE_NEWNET): %s\n", err(rc));
	if (rc) {
		rc = setns(pfd, CLONE_NEWUSER | CLONE_NEWNET);
		printf("agent: setns(pidfd, CLONE_NEWUSER|CLONE_NEWNET): %s\n", err(rc));
	}
	if (rc)
		return 1;
	return talk(port, marker);
}

static int do_mnt_pidfd(const char *path, const char *hostfile, const char *hook,
			const char *marker)
{
	char text[512];
	int pfd = get_pidfd(1, path), rc;

	if (pfd < 0)
		return 1;
	snprintf(text, sizeof(text), "%s\n", marker);
	printf("agent: in the run's view:\n");
	write_file(hostfile, text, 0644);
	rc = setns(pfd, CLONE_NEWNS);
	printf("agent: setns(pidfd, CLONE_NEWNS): %s\n", err(rc));
	if (rc) {
		rc = setns(pfd, CLONE_NEWUSER | CLONE_NEWNS);
		printf("agent: setns(pidfd, CLONE_NEWUSER|CLONE_NEWNS): %s\n", err(rc));
	}
	if (rc)
		return 1;
	return write_both(hostfile, hook, marker);
}

static int install(struct sock_filter *f, unsigned short n)
{
	struct sock_fprog p = {.len = n, .filter = f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p, 0, 0)) {
		perror("seccomp mask");
		return -1;
	}
	return 0;
}

static int nosetns(char **argv)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 2),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_setns, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};

	if (install(f, sizeof(f) / sizeof(f[0])))
		return 2;
	execvp(argv[0], argv);
	perror("nosetns: exec");
	return 2;
}

static int nouserns(char **argv)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 6),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 6, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_unshare, 1, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 2),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
	    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWUSER, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	};

	if (install(f, sizeof(f) / sizeof(f[0])))
		return 2;
	execvp(argv[0], argv);
	perror("nouserns: exec");
	return 2;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 5 && !strcmp(argv[1], "net"))
		return do_net(argv[2], atoi(argv[3]), argv[4]);
	if (argc == 6 && !strcmp(argv[1], "mnt"))
		return do_mnt(argv[2], argv[3], argv[4], argv[5]);
	if (argc == 5 && !strcmp(argv[1], "pidfd-scm"))
		return do_pidfd(0, argv[2], atoi(argv[3]), argv[4]);
	if (argc == 5 && !strcmp(argv[1], "pidfd-peer"))
		return do_pidfd(1, argv[2], atoi(argv[3]), argv[4]);
	if (argc == 6 && !strcmp(argv[1], "mnt-pidfd"))
		return do_mnt_pidfd(argv[2], argv[3], argv[4], argv[5]);
	if (argc == 3 && !strcmp(argv[1], "handle"))
		return do_handle(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "byhandle"))
		return do_byhandle(argv[2], atoi(argv[3]), argv[4]);
	if (argc >= 3 && !strcmp(argv[1], "nouserns"))
		return nouserns(argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "nosetns"))
		return nosetns(argv + 2);
	fprintf(stderr, "usage: see the header\n");
	return 2;
}
