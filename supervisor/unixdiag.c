#include "unixdiag.h"

#include <dirent.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "caps.h"

#ifndef SIOCGSKNS
#define SIOCGSKNS 0x894C /* linux/sockios.h, 4.9 */
#endif
/* The kernel's sk_state of a listening socket (TCP_LISTEN), which AF_UNIX
 * stream and seqpacket sockets share. */
#define UNIX_STATE_LISTEN 10

/* Whether socket sock lives in our network namespace: a sock_diag lookup
 * by inode answers only from the namespace it is asked in, and needs no
 * capability (our threads that act for the agent have none to spare).
 * Returns 1, 0, or -errno. */
static int in_our_netns(int s, int sock)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req r;
	} req = {.nlh = {.nlmsg_len = sizeof(req),
			 .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			 .nlmsg_flags = NLM_F_REQUEST},
		 .r = {.sdiag_family = AF_UNIX, .udiag_states = ~0u, .udiag_cookie = {~0u, ~0u}}};
	char buf[512];
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct stat st;
	ssize_t n;

	if (fstat(sock, &st) != 0)
		return -errno;
	req.r.udiag_ino = (unsigned)st.st_ino;
	do
		n = send(s, &req, sizeof(req), 0) < 0 ? -1 : recv(s, buf, sizeof(buf), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (!NLMSG_OK(h, (size_t)n))
		return -EPROTO;
	if (h->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(h);

		return e->error == -ENOENT ? 0 : e->error ? e->error : -EPROTO;
	}
	return 1;
}

struct in_netns {
	int sock;
	int fd; /* the sock_diag socket made there, or -errno */
};

static void *diag_socket_in(void *arg)
{
	struct in_netns *a = arg;
	int ns, rc = sv_caps_raise_for_lookup();

	/* This thread alone raises what it needs and enters the namespace;
	 * it acts for no one and ends there. */
	if (rc < 0) {
		a->fd = rc;
		return NULL;
	}
	ns = ioctl(a->sock, SIOCGSKNS);
	if (ns < 0 || setns(ns, CLONE_NEWNET) != 0)
		a->fd = -errno;
	else if ((a->fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG)) < 0)
		a->fd = -errno;
	if (ns >= 0)
		close(ns);
	return NULL;
}

/* A sock_diag socket in the network namespace of socket sock: a dump
 * lists only the sockets of the namespace it is asked in. Returns it, or
 * -errno. */
static int diag_socket_for(int sock)
{
	struct in_netns a = {.sock = sock, .fd = -EINVAL};
	pthread_t t;
	int s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG), rc;

	if (s < 0)
		return -errno;
	rc = in_our_netns(s, sock);
#ifdef SV_MUTANT_UNIX_DIAG_OWN_NETNS
	/* MUTANT unix-diag-own-netns: names are looked up in our namespace,
	 * whichever the agent's socket connects in. */
	rc = 1;
#endif
	if (rc == 1)
		return s;
	close(s);
	if (rc < 0)
		return rc;
	rc = pthread_create(&t, NULL, diag_socket_in, &a);
	if (rc != 0)
		return -rc;
	pthread_join(t, NULL);
	return a.fd;
}

/* Whether one diag message's attributes describe what want names. */
static int matches(const struct unix_diag_msg *m, int len, const struct sv_unix_bound *want)
{
	for (struct rtattr *a = (struct rtattr *)(m + 1); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		const unsigned char *v = RTA_DATA(a);

		/* The name as bound: sun_path's bytes, the leading NUL of
		 * an abstract name included. */
		if (want->name && a->rta_type == UNIX_DIAG_NAME)
			return RTA_PAYLOAD(a) == want->len + 1 && v[0] == '\0' &&
			       memcmp(v + 1, want->name, want->len) == 0;
		/* The socket file: the superblock's device in the kernel's
		 * encoding (major << 20 | minor). */
		if (!want->name && a->rta_type == UNIX_DIAG_VFS &&
		    RTA_PAYLOAD(a) >= sizeof(struct unix_diag_vfs)) {
			const struct unix_diag_vfs *f = RTA_DATA(a);

			return f->udiag_vfs_ino == want->ino &&
			       f->udiag_vfs_dev >> 20 == major(want->dev) &&
			       (f->udiag_vfs_dev & 0xfffff) == minor(want->dev);
		}
	}
	return 0;
}

int sv_unixdiag_bound(int sock, int type, const struct sv_unix_bound *want,
		      struct sv_unix_sock *out, int max)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req r;
	} req = {.nlh = {.nlmsg_len = sizeof(req),
			 .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			 .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP},
		 .r = {.sdiag_family = AF_UNIX,
		       .udiag_states = type == SOCK_DGRAM ? ~0u : 1u << UNIX_STATE_LISTEN,
		       .udiag_show = want->name ? UDIAG_SHOW_NAME : UDIAG_SHOW_VFS}};
	/* A dump's messages come in the reader's buffer size: one per
	 * mediating thread, kept. */
	static _Thread_local char buf[32768];
	const size_t bufsz = sizeof(buf);
	int s = diag_socket_for(sock), found = 0, rc = 0;

	if (s < 0) {
		rc = s;
		goto out;
	}
	if (send(s, &req, sizeof(req), 0) < 0) {
		rc = -errno;
		goto out;
	}
	for (;;) {
		ssize_t n = recv(s, buf, bufsz, 0);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : -EPROTO;
			goto out;
		}
		for (; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			const struct unix_diag_msg *m = NLMSG_DATA(h);

			if (h->nlmsg_type == NLMSG_DONE)
				goto out;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				rc = e->error ? e->error : -EPROTO;
				goto out;
			}
			if (m->udiag_type != type ||
			    !matches(m, (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*m)), want))
				continue;
			if (found == max) {
				rc = -E2BIG;
				goto out;
			}
			out[found].ino = m->udiag_ino;
			out[found].cookie =
			    (uint64_t)m->udiag_cookie[0] | (uint64_t)m->udiag_cookie[1] << 32;
			found++;
		}
	}
out:
	if (s >= 0)
		close(s);
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

/* The run's processes come from the /proc its reaper's mount namespace
 * has for the run's pid namespace: the agent cannot mount over that one,
 * as it could in a mount namespace of its own, where symbolic links named
 * socket:[N] would pass for descriptors. A socket only in flight
 * (SCM_RIGHTS), in an io_uring's fixed files or in the table of a thread
 * that unshared its own is not found: a denial, never a guess. */
int sv_unixdiag_run_holds(pid_t reaper, pid_t tid, unsigned ino)
{
	char base[64], link[128], ns[64], want[40], got[64];
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
