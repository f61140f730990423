#include "unixpeer.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <linux/netlink.h>
#include <linux/openat2.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "act.h"

/* The kernel's sk_state of a listening socket (TCP_LISTEN), which AF_UNIX
 * stream and seqpacket sockets share. */
#define UNIX_STATE_LISTEN 10
/* Sockets with one abstract name and type: one is bound (bind refuses a
 * second), but sock_diag lists a listener's accepted sockets with its
 * name too; the listener alone is asked for. More is refused, not guessed. */
#define MAX_NAMESAKES 8

static struct {
	int judged;
	/* The run's reaper, init of its pid namespace, once spawned. */
	_Atomic pid_t reaper;
	const char *spec[SV_UNIXPEER_MAX_DECLARED];
	dev_t dev[SV_UNIXPEER_MAX_DECLARED];
	ino_t ino[SV_UNIXPEER_MAX_DECLARED];
	int n;
} P;

static const size_t sun_off = offsetof(struct sockaddr_un, sun_path);

int sv_unixpeer_check_declared(const char *spec, char *why, size_t len)
{
	size_t n = strlen(spec);

	if (spec[0] == '@' && n >= 2 && n - 1 < sizeof(((struct sockaddr_un *)0)->sun_path))
		return 0;
	if (spec[0] == '/')
		return 0;
	snprintf(why, len, "--unix-peer '%s': want an absolute PATH or @NAME (1-107 bytes)", spec);
	return -EINVAL;
}

void sv_unixpeer_set_judged(int judged)
{
	P.judged = judged;
}

void sv_unixpeer_set_reaper(pid_t reaper)
{
	atomic_store(&P.reaper, reaper);
}

int sv_unixpeer_declare(const char *const *specs, int n, char *why, size_t len)
{
	P.n = 0;
	for (int i = 0; i < n && i < SV_UNIXPEER_MAX_DECLARED; i++) {
		struct stat st;

		P.spec[P.n] = specs[i];
		if (specs[i][0] != '@') {
			if (stat(specs[i], &st) != 0) {
				int e = errno;

				snprintf(why, len, "--unix-peer '%s': %s", specs[i], strerror(e));
				return -e;
			}
			if (!S_ISSOCK(st.st_mode)) {
				snprintf(why, len, "--unix-peer '%s': not a socket", specs[i]);
				return -ENOTSOCK;
			}
			P.dev[P.n] = st.st_dev;
			P.ino[P.n] = st.st_ino;
		}
		P.n++;
	}
	return 0;
}

int sv_unixpeer_declared(const char *const **specs)
{
	*specs = P.spec;
	return P.n;
}

static int declared_object(const struct stat *st)
{
	for (int i = 0; i < P.n; i++)
		if (P.spec[i][0] != '@' && P.dev[i] == st->st_dev && P.ino[i] == st->st_ino)
			return 1;
	return 0;
}

static int declared_abstract(const unsigned char *name, size_t len)
{
	for (int i = 0; i < P.n; i++)
		if (P.spec[i][0] == '@' && strlen(P.spec[i] + 1) == len &&
		    memcmp(P.spec[i] + 1, name, len) == 0)
			return 1;
	return 0;
}

/* The path the thread would look up, as seen from its own root: a relative
 * one under its working directory. Returns 0, a positive errno for the
 * lookup's own answer (a working directory with no name in that root), or
 * -errno when /proc could not be read. */
static int agent_path(pid_t tid, const char *path, size_t plen, char *out, size_t outlen)
{
	char link[64];
	ssize_t n = 0;

	if (path[0] != '/') {
		snprintf(link, sizeof(link), "/proc/%d/cwd", (int)tid);
		n = readlink(link, out, outlen - 1);
		if (n < 0)
			return errno == ENOENT ? -ESRCH : -errno;
		/* "(unreachable)" or a deleted directory: nothing of the
		 * thread's root is below it. */
		if (out[0] != '/' || (size_t)n >= outlen - 2)
			return ENOENT;
		out[n++] = '/';
	}
	if ((size_t)n + plen >= outlen)
		return ENAMETOOLONG;
	memcpy(out + n, path, plen);
	out[(size_t)n + plen] = '\0';
	return 0;
}

/* Opens the object a path names for thread tid, resolved in its root: the
 * thread's root is the root of every absolute name and symbolic link, and
 * ".." never climbs above it. Returns 0 with *fd the O_PATH descriptor, a
 * positive errno (the lookup's answer), or -errno (*mech names the step). */
static int open_in_agent_root(pid_t tid, const char *path, int *fd, const char **mech)
{
	struct open_how how = {.flags = O_PATH | O_CLOEXEC,
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	char link[64];
	int root, e;

	snprintf(link, sizeof(link), "/proc/%d/root", (int)tid);
	*mech = "proc_root";
	root = open(link, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	*mech = "openat2";
	*fd = (int)syscall(SYS_openat2, root, path, &how, sizeof(how));
	e = errno;
	close(root);
	if (*fd >= 0)
		return 0;
	/* Without openat2 (before 5.6) no lookup confined to the agent's
	 * root exists: a mechanism failure, never a lookup in ours. */
	if (e == ENOSYS || e == E2BIG || e == EPERM)
		return -e;
	return e;
}

static int judge_path(struct sv_call *c, const char *path, size_t plen, const char **why,
		      const char **deny, const char **mech)
{
	char full[PATH_MAX + sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct statvfs vfs;
	struct stat st;
	int fd = -1, rc;

	*mech = "proc_cwd";
	rc = agent_path((pid_t)c->req->pid, path, plen, full, sizeof(full));
	if (rc != 0)
		return rc;
	rc = open_in_agent_root((pid_t)c->req->pid, full, &fd, mech);
	if (rc != 0)
		return rc;
	c->peer_fd = fd;
	*mech = "fstat";
	if (fstat(fd, &st) != 0)
		return -errno;
	/* unix_find_bsd's answer for an inode that is no socket; for one of
	 * another type (EPROTOTYPE) the act's own. */
	if (!S_ISSOCK(st.st_mode))
		return ECONNREFUSED;
	if (declared_object(&st)) {
		*why = "declared-peer";
		return 0;
	}
	*mech = "fstatvfs";
	if (fstatvfs(fd, &vfs) != 0)
		return -errno;
	/* Only the agent's own mounts are writable in its namespace (the
	 * declared paths, its /dev/shm, its devpts; rootfs.c read that back
	 * before it ran), and a socket file can be neither linked nor bound
	 * across mounts, so a socket on a writable one was bound there by the
	 * run, or by whoever else the caller let write a declared path. */
	if (vfs.f_flag & ST_RDONLY) {
#ifdef SV_MUTANT_UNIX_PEER_OPEN
		/* MUTANT unix-peer-open: the host's sockets are local IPC, as
		 * before. */
		*why = "local";
		return 0;
#endif
		*deny = "unix-peer";
		return 0;
	}
	*why = "local";
	return 0;
}

/* The inodes of the sockets of this type bound to the abstract name (the
 * bytes after the leading NUL), listeners only for a connection-oriented
 * type. Returns their number (0: none, the kernel's ECONNREFUSED), or
 * -errno. */
static int abstract_sockets(int type, const unsigned char *name, size_t len, unsigned *inos)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req r;
	} req = {.nlh = {.nlmsg_len = sizeof(req),
			 .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			 .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP},
		 .r = {.sdiag_family = AF_UNIX,
		       .udiag_states = type == SOCK_DGRAM ? ~0u : 1u << UNIX_STATE_LISTEN,
		       .udiag_show = UDIAG_SHOW_NAME}};
	static const size_t bufsz = 32768;
	char *buf = malloc(bufsz);
	int s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG), found = 0, rc = 0;

	if (s < 0 || !buf) {
		rc = s < 0 ? -errno : -ENOMEM;
		goto out;
	}
	if (send(s, &req, sizeof(req), 0) < 0) {
		rc = -errno;
		goto out;
	}
	for (;;) {
		ssize_t n = recv(s, buf, bufsz, 0);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;

		if (n < 0) {
			rc = errno == EINTR ? 0 : -errno;
			if (rc)
				goto out;
			continue;
		}
		if (n == 0) {
			rc = -EPROTO;
			goto out;
		}
		for (; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			const struct unix_diag_msg *m = NLMSG_DATA(h);
			struct rtattr *a = (struct rtattr *)(m + 1);
			int alen = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*m));

			if (h->nlmsg_type == NLMSG_DONE)
				goto out;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				rc = e->error ? e->error : -EPROTO;
				goto out;
			}
			if (m->udiag_type != type)
				continue;
			for (; RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
				const unsigned char *v = RTA_DATA(a);

				/* The name as bound: sun_path's bytes, the
				 * leading NUL of an abstract name included. */
				if (a->rta_type != UNIX_DIAG_NAME || RTA_PAYLOAD(a) != len + 1 ||
				    v[0] != '\0' || memcmp(v + 1, name, len) != 0)
					continue;
				if (found == MAX_NAMESAKES) {
					rc = -E2BIG;
					goto out;
				}
				inos[found++] = m->udiag_ino;
			}
		}
	}
out:
	if (s >= 0)
		close(s);
	free(buf);
	return rc < 0 ? rc : found;
}

/* Whether any descriptor in the table under dir (a /proc/PID/fd) is the
 * socket want names. */
static int table_holds(const char *dir, const char *want)
{
	char link[160], got[64];
	struct dirent *f;
	DIR *fds = opendir(dir);
	int held = 0;

	if (!fds)
		return 0;
	while (!held && (f = readdir(fds))) {
		ssize_t n;

		if (f->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%.120s/%.16s", dir, f->d_name);
		n = readlink(link, got, sizeof(got) - 1);
		held = n > 0 && (got[n] = '\0', strcmp(got, want) == 0);
	}
	closedir(fds);
	return held;
}

/* Whether a process of the run holds the socket with inode ino in its
 * descriptor table. The run's processes are read from the /proc its
 * reaper's namespace mounted for the run's pid namespace (nested ones
 * included): the agent cannot mount over it there, as it could in a mount
 * namespace of its own, where symbolic links named socket:[N] would pass
 * for descriptors. Before the reaper is known, from ours: the processes
 * in the calling thread's pid namespace. A socket only in flight
 * (SCM_RIGHTS), in an io_uring's fixed files or in the table of a thread
 * that unshared its own is not found: a denial, never a guess. Returns 1,
 * 0, or -errno. */
static int run_holds(pid_t tid, unsigned ino)
{
	char base[64], link[128], ns[64], want[40], got[64];
	pid_t reaper = atomic_load(&P.reaper);
	struct dirent *e;
	ssize_t n = 0;
	DIR *proc;
	int held = 0;

	snprintf(want, sizeof(want), "socket:[%u]", ino);
	if (reaper > 0) {
		snprintf(base, sizeof(base), "/proc/%d/root/proc", (int)reaper);
	} else {
		snprintf(base, sizeof(base), "/proc");
		snprintf(link, sizeof(link), "/proc/%d/ns/pid", (int)tid);
		n = readlink(link, ns, sizeof(ns) - 1);
		if (n < 0)
			return errno == ENOENT ? -ESRCH : -errno;
		ns[n] = '\0';
	}
	proc = opendir(base);
	if (!proc)
		return errno == ENOENT ? -ESRCH : -errno;
	while (!held && (e = readdir(proc))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		if (reaper <= 0) {
			snprintf(link, sizeof(link), "/proc/%.16s/ns/pid", e->d_name);
			n = readlink(link, got, sizeof(got) - 1);
			if (n < 0 || (got[n] = '\0', strcmp(got, ns) != 0))
				continue;
		}
		snprintf(link, sizeof(link), "%s/%.16s/fd", base, e->d_name);
		held = table_holds(link, want);
	}
	closedir(proc);
	return held;
}

static int judge_abstract(struct sv_call *c, int type, const unsigned char *name, size_t len,
			  const char **why, const char **deny, const char **mech)
{
	unsigned inos[MAX_NAMESAKES];
	int n, rc;

	if (declared_abstract(name, len)) {
		*why = "declared-peer";
		return 0;
	}
	*mech = "sock_diag";
	n = abstract_sockets(type, name, len, inos);
	if (n < 0)
		return n;
	if (n == 0)
		return ECONNREFUSED;
	*mech = "proc_fd";
	for (int i = 0; i < n; i++) {
		rc = run_holds((pid_t)c->req->pid, inos[i]);
		if (rc < 0)
			return rc;
		if (rc == 0) {
#ifdef SV_MUTANT_UNIX_ABSTRACT_OPEN
			/* MUTANT unix-abstract-open: an abstract name is the
			 * run's own whoever bound it, as before. */
			break;
#endif
			*deny = "unix-peer";
			return 0;
		}
	}
	*why = "local";
	return 0;
}

int sv_unixpeer_judge(struct sv_call *c, const struct sv_dest *d, const void **name, uint32_t *len,
		      const char **why, const char **deny, int *lookup_err)
{
	const unsigned char *b = *name;
	const char *mech = "so_type";
	int type = 0, rc;
	socklen_t tl = sizeof(type);

	*deny = NULL;
	*lookup_err = 0;
	if (!P.judged || d->kind != SV_DEST_UNIX || c->domain != AF_UNIX || *len <= sun_off)
		return 0;
	/* A sendmmsg judges each message's name in turn. */
	sv_act_close_quiet(c->peer_fd);
	c->peer_fd = -1;
	if (getsockopt(c->dup, SOL_SOCKET, SO_TYPE, &type, &tl) != 0) {
		sv_call_mech_failure(c, mech, errno);
		return -1;
	}
	if (b[sun_off] == '\0')
		rc = judge_abstract(c, type, b + sun_off + 1, *len - sun_off - 1, why, deny, &mech);
	else
		rc = judge_path(c, (const char *)b + sun_off,
				strnlen((const char *)b + sun_off, *len - sun_off), why, deny,
				&mech);
	if (rc < 0) {
		sv_call_mech_failure(c, mech, -rc);
		return -1;
	}
	if (rc > 0)
		*lookup_err = rc;
	/* /proc/TID named the thread that is still waiting, not a new one
	 * that took its tid. */
	if (*deny)
		return sv_call_denial_valid(c, *deny);
	if (sv_call_still_valid(c))
		return -1;
	if (rc == 0 && c->peer_fd >= 0) {
#ifndef SV_MUTANT_UNIX_PATH_RERESOLVED
		memset(&c->peer_name, 0, sizeof(c->peer_name));
		c->peer_name.sun_family = AF_UNIX;
		snprintf(c->peer_name.sun_path, sizeof(c->peer_name.sun_path), "/proc/self/fd/%d",
			 c->peer_fd);
		*name = &c->peer_name;
		*len = (uint32_t)(sun_off + strlen(c->peer_name.sun_path) + 1);
#endif
	}
	return 0;
}
