#include "unixdiag.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "caps.h"
#include "runprocs.h"

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
		 .r = {.sdiag_family = AF_UNIX, .udiag_states = ~0u}};
	char buf[512];
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct stat st;
	ssize_t n;

	uint64_t cookie = 0;
	socklen_t clen = sizeof(cookie);

	if (fstat(sock, &st) != 0 || getsockopt(sock, SOL_SOCKET, SO_COOKIE, &cookie, &clen) != 0)
		return -errno;
	/* By inode and cookie: another socket that took the same 32-bit
	 * inode number (review h-attack22) answers ESTALE, not ours. */
	req.r.udiag_ino = (unsigned)st.st_ino;
	req.r.udiag_cookie[0] = (uint32_t)cookie;
	req.r.udiag_cookie[1] = (uint32_t)(cookie >> 32);
	do
		n = send(s, &req, sizeof(req), 0) < 0 ? -1 : recv(s, buf, sizeof(buf), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (!NLMSG_OK(h, (size_t)n))
		return -EPROTO;
	if (h->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(h);

		return e->error == -ENOENT || e->error == -ESTALE ? 0
		       : e->error                                 ? e->error
								  : -EPROTO;
	}
	return 1;
}

struct in_netns {
	int sock;
	int domain, type, proto; /* of the socket to make there */
	int fd;                  /* the socket made there, or -errno */
};

static void *socket_in(void *arg)
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
	else if ((a->fd = socket(a->domain, a->type | SOCK_CLOEXEC, a->proto)) < 0)
		a->fd = -errno;
	if (ns >= 0)
		close(ns);
	return NULL;
}

/* A socket (domain, type, proto) in the network namespace of socket sock:
 * a dump lists only the sockets of the namespace it is asked in, and an
 * abstract name is bound in one. Returns it, or -errno. */
static int socket_for(int sock, int domain, int type, int proto)
{
	struct in_netns a = {
	    .sock = sock, .domain = domain, .type = type, .proto = proto, .fd = -EINVAL};
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
	if (rc == 1 && domain == AF_NETLINK && proto == NETLINK_SOCK_DIAG)
		return s;
	close(s);
	if (rc == 1)
		return (s = socket(domain, type | SOCK_CLOEXEC, proto)) < 0 ? -errno : s;
	if (rc < 0)
		return rc;
	rc = pthread_create(&t, NULL, socket_in, &a);
	if (rc != 0)
		return -rc;
	pthread_join(t, NULL);
	return a.fd;
}

/* Whether one diag message's name is the abstract name want: sun_path's
 * bytes as bound, the leading NUL included. */
static int matches(const struct unix_diag_msg *m, int len, const struct sv_unix_bound *want)
{
	for (struct rtattr *a = (struct rtattr *)(m + 1); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		const unsigned char *v = RTA_DATA(a);

		if (a->rta_type == UNIX_DIAG_NAME)
			return RTA_PAYLOAD(a) == want->len + 1 && v[0] == '\0' &&
			       memcmp(v + 1, want->name, want->len) == 0;
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
		       .udiag_show = UDIAG_SHOW_NAME}};
	/* A dump's messages come in the reader's buffer size: one per
	 * mediating thread, kept. */
	static _Thread_local char buf[32768];
	const size_t bufsz = sizeof(buf);
	int s = socket_for(sock, AF_NETLINK, SOCK_DGRAM, NETLINK_SOCK_DIAG), found = 0, rc = 0;

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

/* Whether descriptor fd of the process behind pidfd is the socket with
 * this cookie: 1 with the duplicate in *pin, 0 (another socket, or the
 * descriptor gone meanwhile), or -errno when it could not be looked at (a
 * holder we cannot see is no denial but a mechanism failure). */
static int is_socket(int pidfd, int fd, uint64_t cookie, int *pin)
{
	int dup = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0), e = errno;
	uint64_t got = 0;
	socklen_t len = sizeof(got);

	if (dup < 0)
		return e == ESRCH || e == EBADF ? 0 : -e;
	e = getsockopt(dup, SOL_SOCKET, SO_COOKIE, &got, &len) == 0 ? 0 : -errno;
	/* ENOTSOCK: the descriptor became another file since /proc showed
	 * the socket (dup2 by a thread of the agent's): not the socket. */
	if (e < 0 || got != cookie) {
		close(dup);
		return e < 0 && e != -ENOTSOCK ? e : 0;
	}
	*pin = dup;
	return 1;
}

struct holding {
	const struct sv_unix_sock *sock;
	struct sv_unix_holder *holder;
};

/* Whether the process of the run behind pidfd, named pid in our /proc,
 * holds the socket (arg): 1, 0, or -errno. */
static int process_holds(int pidfd, const char *pid, void *arg)
{
	struct holding *h = arg;
	const struct sv_unix_sock *sock = h->sock;
	char dir[48], link[96], got[64], want[40];
	struct dirent *f;
	DIR *fds;
	int held = 0;

	/* A find whose process was gone after it (runprocs.c) is looked
	 * for again: its duplicate goes. */
	if (h->holder->pin >= 0)
		close(h->holder->pin);
	h->holder->pin = -1;
	snprintf(dir, sizeof(dir), "/proc/%.16s/fd", pid);
	snprintf(want, sizeof(want), "socket:[%u]", sock->ino);
	fds = opendir(dir);
	if (!fds)
		return 0;
	while (held == 0 && (f = readdir(fds))) {
		ssize_t n;

		if (f->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%.16s", dir, f->d_name);
		n = readlink(link, got, sizeof(got) - 1);
		/* The inode number is a 32-bit counter that wraps (review
		 * h-attack22): the cookie of the socket itself decides. */
		if (n > 0 && (got[n] = '\0', strcmp(got, want) == 0)) {
#ifdef SV_MUTANT_HOLDER_UNPINNED
			/* MUTANT holder-unpinned: the holder is named by its
			 * number again for the cookie, as before review
			 * h-attack23. */
			int again = (int)syscall(SYS_pidfd_open, atoi(pid), 0);

			held = again < 0 ? 0
					 : is_socket(again, atoi(f->d_name), sock->cookie,
						     &h->holder->pin);
			if (again >= 0)
				close(again);
			continue;
#endif
			held = is_socket(pidfd, atoi(f->d_name), sock->cookie, &h->holder->pin);
			if (held == 1) {
				h->holder->pid = (pid_t)atoi(pid);
				h->holder->fd = atoi(f->d_name);
			}
		}
	}
	closedir(fds);
	return held;
}

/* A socket only in flight (SCM_RIGHTS), in an io_uring's fixed files or in
 * the table of a thread that unshared its own, or of a process whose first
 * thread has ended (its /proc/PID/fd is empty), is not found: a denial,
 * never a guess. */
int sv_unixdiag_run_holds(pid_t tid, const struct sv_unix_sock *sock, struct sv_unix_holder *holder)
{
	struct holding h = {.sock = sock, .holder = holder};
	int rc, tidns;

	holder->pin = -1;
	rc = sv_runprocs_open(tid);
	if (rc < 0)
		return rc;
	tidns = rc;
	rc = sv_runprocs_each(tidns, process_holds, &h);
	close(tidns);
	if (rc != 1 && holder->pin >= 0) {
		close(holder->pin);
		holder->pin = -1;
	}
	return rc;
}

#ifdef SV_MUTANT_BIND_PROBE
static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
#endif

int sv_unixdiag_name_refused(int sock, int type, const struct sv_unix_bound *want)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + want->len);
	int s, rc;

	if (want->len + 1 > sizeof(a.sun_path))
		return -ENAMETOOLONG;
	memcpy(a.sun_path + 1, want->name, want->len);
	s = socket_for(sock, AF_UNIX, type | SOCK_NONBLOCK, 0);
	if (s < 0)
		return s;
#ifdef SV_MUTANT_BIND_PROBE
	/* MUTANT bind-probe: the name is bound for an instant, one probe at a
	 * time, as before review h-attack31 (a name bound and not listening
	 * is "taken", and the name is ours for that instant). */
	pthread_mutex_lock(&probe_lock);
	rc = bind(s, (struct sockaddr *)&a, len) == 0 ? 1 : errno == EADDRINUSE ? 0 : -errno;
	pthread_mutex_unlock(&probe_lock);
#else
	/* A listening socket of ours connects. The kernel looks the name up
	 * first and refuses (ECONNREFUSED) when nothing is bound, or what is
	 * bound does not listen; only then does it look at our socket, whose
	 * state refuses the connect (EINVAL, or EAGAIN at a full queue) before
	 * anything is queued: a listener there sees nothing. Its name is the
	 * kernel's (autobind), never the agent's: a bind of the agent's name
	 * was the probe before, and a service binding the name in that instant
	 * failed, a name bound and not listening was a mechanism failure, and
	 * other calls' datagram dumps saw the probe (review h-attack31). A
	 * datagram connect takes no name and sends nothing (EPERM: the
	 * receiver is connected to another socket). */
	{
		sa_family_t autobind = AF_UNIX;
		int e;

		if (type != SOCK_DGRAM &&
		    (bind(s, (struct sockaddr *)&autobind, sizeof(autobind)) != 0 ||
		     listen(s, 1) != 0))
			rc = -errno;
		else {
			rc = connect(s, (struct sockaddr *)&a, len);
			e = errno;
			rc = rc == 0 || e == EINVAL || e == EAGAIN || e == EPERM ? 0
			     : e == ECONNREFUSED                                 ? 1
										 : -e;
		}
	}
#endif
	close(s);
	return rc;
}

#ifndef SV_MUTANT_CACHED_HOLDER_UNPROVEN
/* Whether the process behind pidfd is of thread tid's run (1, 0, -errno). */
static int run_has(pid_t tid, int pidfd, pid_t pid)
{
	int tidns = sv_runprocs_open(tid), rc;

	if (tidns < 0)
		return tidns;
	rc = sv_runprocs_has(tidns, pidfd, pid);
	close(tidns);
	return rc;
}
#endif

int sv_unixdiag_pin(pid_t tid, const struct sv_unix_holder *holder, uint64_t cookie)
{
	int pidfd = (int)syscall(SYS_pidfd_open, holder->pid, 0), pin = -1, rc;

	if (pidfd < 0)
		return -1;
	rc = is_socket(pidfd, holder->fd, cookie, &pin);
	/* The number the cache names may be another process's by now (the
	 * holder gone, a host process that got the socket given the pid): a
	 * holder is proven of the run, through the pidfd taken first, as
	 * sv_unixdiag_run_holds proves it (review h-attack23). */
#ifndef SV_MUTANT_CACHED_HOLDER_UNPROVEN
	/* MUTANT cached-holder-unproven: the cached pid is trusted. */
	if (rc == 1 && run_has(tid, pidfd, holder->pid) != 1) {
		close(pin);
		rc = 0;
	}
#else
	(void)tid;
#endif
	close(pidfd);
	return rc == 1 ? pin : -1;
}
