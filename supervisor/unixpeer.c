#include "unixpeer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "act.h"
#include "fault.h"
#include "pins.h"
#include "unixdiag.h"
#include "unixpath.h"

/* Sockets bound as one name or file and type: one (bind refuses a second),
 * but sock_diag lists a listener's accepted sockets with its name too; the
 * listener alone is asked for. More is refused, not guessed. */
#define MAX_NAMESAKES SV_PINS_MAX
/* Listeners proven the run's, by cookie, with where they were found: a
 * socket of the run stays the run's, and repeated connects to one (a
 * database the job started) pay the walk of /proc once; each still takes
 * a pin, through the same holder while it keeps it. */
#define HELD_CACHE 64

static struct {
	pthread_mutex_t lock;
	uint64_t cookie[HELD_CACHE];
	struct sv_unix_holder holder[HELD_CACHE];
	unsigned next;
} held_cache = {.lock = PTHREAD_MUTEX_INITIALIZER};

static struct {
	int judged;
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

/* Whether cookie was proven the run's, with where it was found. */
static int cached(uint64_t cookie, struct sv_unix_holder *holder)
{
	int hit = 0;

	pthread_mutex_lock(&held_cache.lock);
	for (unsigned i = 0; i < HELD_CACHE && !hit; i++)
		if (cookie && held_cache.cookie[i] == cookie) {
			*holder = held_cache.holder[i];
			hit = 1;
		}
	pthread_mutex_unlock(&held_cache.lock);
	return hit;
}

static void cache(uint64_t cookie, const struct sv_unix_holder *holder)
{
	pthread_mutex_lock(&held_cache.lock);
	held_cache.holder[held_cache.next % HELD_CACHE] = *holder;
	held_cache.cookie[held_cache.next++ % HELD_CACHE] = cookie;
	pthread_mutex_unlock(&held_cache.lock);
}

/* What a second look says of a listed socket no process of the run holds. */
enum listed {
	LISTED_GONE,   /* a second dump no longer lists it: closed since */
	LISTED_BOUND,  /* still listed: someone outside the run holds it */
	LISTED_PINNED, /* only a pin of ours (another call's) keeps it: the run closed it */
};

/* Whether the listed socket u, which no process of the run holds, still
 * counts as bound for the judgement: an enum listed, or -errno with *mech
 * naming the step. A second dump, not a lookup by inode: that answers for
 * the first socket with the number, which after a wrap may be another one
 * (ESTALE, or before 5.19 ENOENT for one in another namespace; review
 * h-attack29). */
static int still_bound(struct sv_call *c, int type, const struct sv_unix_bound *want,
		       const struct sv_unix_sock *u, const char **mech)
{
	struct sv_unix_sock again[MAX_NAMESAKES];
	int n;

#ifdef SV_MUTANT_UNIX_CLOSED_IS_PEER
	/* MUTANT unix-closed-is-peer: a socket only our pins keep bound, or
	 * one closed since the dump, is a host's, as before review
	 * h-attack28. */
	return LISTED_BOUND;
#endif
	if (sv_pins_held(u->cookie))
		return LISTED_PINNED;
	*mech = "sock_diag";
	n = sv_fault("unix_dump_again");
	if (n == 0)
		n = sv_unixdiag_bound(c->dup, type, want, again, MAX_NAMESAKES);
	for (int i = 0; i < n; i++)
		if (again[i].cookie == u->cookie)
			return LISTED_BOUND;
	return n < 0 ? n : LISTED_GONE;
}

/* The sockets one dump listed as bound to want, each held by a process of
 * the run (then pinned, and counted in *held), or only by another call's
 * pin (counted in *kept), or gone since; any other sets *deny. Returns 0
 * or -errno with *mech naming the step. */
static int judge_listed(struct sv_call *c, int type, const struct sv_unix_bound *want,
			const struct sv_unix_sock *socks, int n, const char **deny, int *held,
			int *kept, const char **mech)
{
	int rc;

	for (int i = 0; i < n; i++) {
		struct sv_unix_holder h = {.pin = -1};

		*mech = "proc_fd";
		/* Its duplicate keeps the socket open before it is counted. */
		sv_pins_proof_begin();
		if (cached(socks[i].cookie, &h))
			h.pin = sv_unixdiag_pin((pid_t)c->req->pid, &h, socks[i].cookie);
		if (h.pin < 0) {
			rc = sv_unixdiag_run_holds((pid_t)c->req->pid, &socks[i], &h);
			if (rc <= 0)
				sv_pins_proof_end();
			if (rc < 0)
				return rc;
			if (rc == 0) {
#ifdef SV_MUTANT_UNIX_ABSTRACT_OPEN
				/* MUTANT unix-abstract-open: an abstract name
				 * is the run's own whoever bound it, as
				 * before. */
				(*held)++;
				break;
#endif
				/* Closed since the dump, or kept bound only by
				 * another call's pin: the run let it go, and
				 * the kernel would not find it. */
				rc = still_bound(c, type, want, &socks[i], mech);
				if (rc < 0)
					return rc;
				*kept += rc == LISTED_PINNED;
				if (rc != LISTED_BOUND)
					continue;
				*deny = "unix-peer";
				return 0;
			}
			cache(socks[i].cookie, &h);
		}
		(*held)++;
#ifdef SV_MUTANT_UNIX_ABSTRACT_UNPINNED
		/* MUTANT unix-abstract-unpinned: the judged socket is let go
		 * before the act, as before review h-attack27. */
		sv_act_close_quiet(h.pin);
		h.pin = -1;
#endif
#ifdef SV_MUTANT_UNIX_ABSTRACT_WAITS
		/* MUTANT unix-abstract-waits: let go too, as before review
		 * h-attack25. */
		sv_act_close_quiet(h.pin);
		h.pin = -1;
#endif
		*mech = "pin";
		rc = h.pin >= 0 ? sv_pins_hold(&c->pins, h.pin, socks[i].cookie) : 0;
		sv_pins_proof_end();
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* How many times a name the dumps saw no listener on, but the kernel's
 * connect found one on, is judged again before the call is a mechanism
 * failure: a server of the run that listens in between is seen by the
 * next dump. */
#define UNBOUND_TRIES 3

/* The socket bound to the abstract name want must be held by a process of
 * the run. */
static int judge_bound(struct sv_call *c, int type, const struct sv_unix_bound *want,
		       const char **why, const char **deny, const char **mech)
{
	struct sv_unix_sock socks[MAX_NAMESAKES];
	int n, rc, held, kept;

	for (int tries = 1;; tries++) {
		/* Each socket bound to the name stays open in our hands until
		 * the act is done: while it is, no other socket can bind the
		 * name, so the kernel's own lookup in the act finds what was
		 * judged (review h-attack27: a host service that binds the
		 * name the moment the run's listener closes, between the
		 * judgement and the act). A call judged again (wait_again) lets
		 * its own pins go first: they must not keep a listener the run
		 * closed meanwhile bound for the dump (review h-attack28). */
#ifndef SV_MUTANT_UNIX_CLOSED_IS_PEER
		sv_pins_drop(&c->pins);
#endif
		*mech = "sock_diag";
		n = sv_unixdiag_bound(c->dup, type, want, socks, MAX_NAMESAKES);
		if (n < 0)
			return n;
#ifdef SV_MUTANT_UNIX_CLOSED_IS_PEER
		sv_pins_drop(&c->pins);
#endif
		held = kept = 0;
		rc = judge_listed(c, type, want, socks, n, deny, &held, &kept, mech);
		if (rc < 0 || *deny)
			return rc;
		if (held || kept)
			break;
		/* No socket seen bound. A dump is not one look: it resumes by
		 * position in each hash bucket, so sockets the agent closes
		 * while it runs move a host's listener past it (review
		 * h-attack30's ha30-dumpskip.sh: refused, allowed, a pass).
		 * The kernel's own lookup, a connect that can reach nothing,
		 * says whether the agent's would be refused; if not, the name
		 * is judged again, and after UNBOUND_TRIES dumps that saw
		 * nothing where the kernel found something, the call is a
		 * mechanism failure. */
		*mech = "connect_probe";
#ifdef SV_MUTANT_DUMP_TRUSTED
		/* MUTANT dump-trusted: a dump that lists nothing means nothing
		 * is bound, as before review h-attack30. */
		break;
#endif
		rc = sv_unixdiag_name_refused(c->dup, type, want);
		if (rc < 0)
			return rc;
		if (rc == 1)
			break;
		if (tries == UNBOUND_TRIES)
			return -EAGAIN;
	}
	/* No socket bound to it in the namespace the agent's socket
	 * connects in, or none listening, or only ones the run has closed:
	 * the kernel's own answer. */
	if (held == 0)
		return ECONNREFUSED;
	/* The window a test build widens between the judgement and the
	 * act, so a rebind lands in it every time. */
	if (sv_fault("unix_window"))
		usleep(300 * 1000);
	*why = "local";
	return 0;
}

static int judge_abstract(struct sv_call *c, int type, const unsigned char *name, size_t len,
			  const char **why, const char **deny, const char **mech)
{
	const struct sv_unix_bound want = {.name = name, .len = len};

	if (declared_abstract(name, len)) {
		*why = "declared-peer";
		return 0;
	}
	return judge_bound(c, type, &want, why, deny, mech);
}

static int judge_path(struct sv_call *c, const char *path, size_t plen, const char **why,
		      const char **deny, const char **mech)
{
	struct statvfs vfs;
	struct stat st;
	int fd = -1, rc;

	rc = sv_unixpath_open((pid_t)c->req->pid, path, plen, &fd, mech);
	if (rc == SV_UNIXPATH_UNNAMED) {
		*deny = "unix-peer";
		return 0;
	}
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
#ifdef SV_MUTANT_UNIX_PEER_OPEN
	/* MUTANT unix-peer-open: the host's sockets are local IPC, as before. */
	*why = "local";
	return 0;
#endif
	/* Only the agent's own mounts are writable in its namespace (the
	 * declared paths, its /dev/shm, its devpts; rootfs.c read that back
	 * before it ran), and a socket file can be neither linked nor renamed
	 * across mounts: one on a read-only mount is none of the run's. */
	if (vfs.f_flag & ST_RDONLY) {
		*deny = "unix-peer";
		return 0;
	}
	/* One on a writable mount is the run's, or a server of whoever else
	 * the caller let write a declared path (a root tmux under a declared
	 * /tmp: review h-attack21). Which, nothing tells soundly: sock_diag
	 * gives a socket file's inode in 32 bits and lists one network
	 * namespace, while a path connects across them (review h-attack22). */
	*why = "local";
	return 0;
}

int sv_unixpeer_judge(struct sv_call *c, const struct sv_dest *d, const void **name, uint32_t *len,
		      const char **why, const char **deny, int *lookup_err)
{
	const unsigned char *b = *name;
	const char *mech = "so_type";
	int type = 0, rc, too_long;
	socklen_t tl = sizeof(type);

	*deny = NULL;
	*lookup_err = 0;
	if (!P.judged || d->kind != SV_DEST_UNIX || c->domain != AF_UNIX || *len <= sun_off)
		return 0;
	/* A sendmmsg judges each message's name in turn. */
	sv_act_close_quiet(c->peer_fd);
	c->peer_fd = -1;
	sv_pins_drop(&c->pins);
	c->peer_nowait = 0;
	if (getsockopt(c->dup, SOL_SOCKET, SO_TYPE, &type, &tl) != 0) {
		sv_call_mech_failure(c, mech, errno);
		return -1;
	}
	/* The kernel's own answer to a name longer than sockaddr_un, before
	 * any lookup (unix_validate_addr; unix_mkname before 5.16): no probe
	 * can ask for such a name (an audit found it a mechanism failure, a
	 * fail made a capability-error at will). */
	too_long = *len > sizeof(struct sockaddr_un);
#ifdef SV_MUTANT_UNIX_LONG_NAME_LOOKED_UP
	/* MUTANT unix-long-name-looked-up: looked up as any other. */
	too_long = 0;
#endif
	if (too_long)
		rc = EINVAL;
	else if (b[sun_off] == '\0')
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
#ifndef SV_MUTANT_UNIX_ABSTRACT_WAITS
	/* MUTANT unix-abstract-waits: the act on a name the run holds may wait
	 * in the kernel, which then looks the name up again (review
	 * h-attack25). */
	c->peer_nowait = rc == 0 && b[sun_off] == '\0' && strcmp(*why, "local") == 0;
#endif
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

/* The act met EAGAIN without waiting. Where the agent's call would have
 * waited (a blocking socket, no MSG_DONTWAIT in flags) and its
 * SO_SNDTIMEO has not run out since start, waits a little (for room in
 * the socket's own buffer; a full queue at an unconnected peer cannot be
 * polled), checks that the call still waits and judges the name again.
 * Returns 1 to act again, 0 to answer EAGAIN, or -1 with the call
 * finished (gone, its name no longer the run's, or nothing bound to it). */
static int wait_again(struct sv_call *c, const unsigned char *name, uint32_t len, int flags,
		      const struct timespec *start)
{
	struct pollfd p = {.fd = c->dup, .events = POLLOUT};
	const struct timespec pause = {.tv_nsec = 2 * 1000 * 1000};
	const char *why = NULL, *deny = NULL, *mech = "so_sndtimeo";
	struct timeval limit = {0};
	struct timespec now;
	socklen_t tl = sizeof(limit);
	int type = 0, rc;

	if ((flags & MSG_DONTWAIT) || !sv_act_is_blocking(c->dup))
		return 0;
	if (getsockopt(c->dup, SOL_SOCKET, SO_SNDTIMEO, &limit, &tl) != 0)
		goto mech_failure;
	clock_gettime(CLOCK_MONOTONIC, &now);
	/* Compared in seconds first: the kernel gives back a limit of up to
	 * MAX_SCHEDULE_TIMEOUT jiffies, whose microseconds overflow a long
	 * (review h-attack28). */
	if ((limit.tv_sec || limit.tv_usec) && now.tv_sec - start->tv_sec >= limit.tv_sec &&
	    (now.tv_sec - start->tv_sec - limit.tv_sec) * 1000000L +
		    (now.tv_nsec - start->tv_nsec) / 1000 >=
		limit.tv_usec)
		return 0;
	if (poll(&p, 1, 10) > 0)
		nanosleep(&pause, NULL);
	if (sv_call_still_valid(c))
		return -1;
	mech = "so_type";
	tl = sizeof(type);
	if (getsockopt(c->dup, SOL_SOCKET, SO_TYPE, &type, &tl) != 0)
		goto mech_failure;
	rc = judge_abstract(c, type, name + sun_off + 1, len - sun_off - 1, &why, &deny, &mech);
	if (rc < 0) {
		errno = -rc;
		goto mech_failure;
	}
	if (deny) {
		if (sv_call_denial_valid(c, deny) == 0)
			sv_call_finish(c, SV_DENIED, deny, SV_ACT_ERRNO, sv_call_denial_errno(c),
				       0);
		return -1;
	}
	if (rc > 0) {
		sv_call_answer_performed(c, "local", -1, rc);
		return -1;
	}
	return sv_call_still_valid(c) ? -1 : 1;
mech_failure:
	sv_call_mech_failure(c, mech, errno);
	return -1;
}

/* Held while a connect runs with O_NONBLOCK we set on a description the
 * agent shares, and while the agent's own call that could clear it is
 * performed: the connect's kernel reads the flag once, at its start. */
static pthread_mutex_t flags_lock = PTHREAD_MUTEX_INITIALIZER;

void sv_unixpeer_set_flags(struct sv_call *c, const __u64 *a, int fionbio)
{
	int on = 0, rc, err;

	if (sv_call_take(c, (int)a[0]))
		return;
	if (fionbio && sv_call_read(c, a[2], &on, sizeof(on)))
		return;
	if (sv_call_still_valid(c))
		return;
	pthread_mutex_lock(&flags_lock);
	rc = fionbio ? ioctl(c->dup, FIONBIO, &on) : fcntl(c->dup, F_SETFL, (int)a[2]);
	err = rc < 0 ? errno : 0;
	pthread_mutex_unlock(&flags_lock);
	sv_call_answer_performed(c, "file-flags", rc, err);
}

long long sv_unixpeer_act(struct sv_call *c, const struct msghdr *msg, int flags, const void *name,
			  uint32_t len)
{
	struct timespec start;
	long long rc;
	int w;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		if (msg) {
			rc = sv_act_sendmsg(c->dup, msg, flags | MSG_DONTWAIT, c->send_raised);
		} else {
			/* A connect has no flag of its own: the description's,
			 * shared with the agent, for the length of the call. */
			int fl, e;

			pthread_mutex_lock(&flags_lock);
			fl = fcntl(c->dup, F_GETFL);
			/* A connect that may wait is never made: a flag we
			 * could not read or set is a mechanism failure. */
			if (fl < 0 ||
			    (!(fl & O_NONBLOCK) && fcntl(c->dup, F_SETFL, fl | O_NONBLOCK) != 0)) {
				e = errno;
				pthread_mutex_unlock(&flags_lock);
				sv_call_mech_failure(c, "fcntl", e);
				return -2;
			}
			rc = connect(c->dup, name, len);
			e = errno;
			if (!(fl & O_NONBLOCK))
				(void)fcntl(c->dup, F_SETFL, fl);
			pthread_mutex_unlock(&flags_lock);
			errno = e;
		}
		if (rc >= 0 || errno != EAGAIN)
			return rc;
		w = wait_again(c, name, len, flags, &start);
		if (w <= 0) {
			errno = EAGAIN;
			return w < 0 ? -2 : -1;
		}
	}
}
