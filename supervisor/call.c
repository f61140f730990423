#include "call.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "act.h"
#include "bytes.h"
#include "device.h"
#include "fault.h"
#include "judge.h"
#include "msghdr.h"
#include "listener.h"
#include "target.h"

int sv_call_denial_errno(const struct sv_call *c)
{
#ifdef SV_MUTANT_BROKEN_PROMISE
	/* MUTANT broken-promise: denials answer ECONNREFUSED while the report
	 * still promises EACCES. */
	(void)c;
	return ECONNREFUSED;
#else
	return c->pol && c->pol->deny_errno > 0 ? c->pol->deny_errno : SV_ERR_DENIED;
#endif
}

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

void sv_call_finish(struct sv_call *c, enum sv_bucket bucket, const char *reason,
		    enum sv_action action, int err, long long val)
{
	struct seccomp_notif_resp resp = {.id = c->req->id};
	int rc;

#ifdef SV_MUTANT_FAILURE_AS_DENIAL
	/* MUTANT failure-as-denial: a blind supervisor reports fail. */
	if (bucket == SV_MECH_FAILURE)
		bucket = SV_DENIED;
#endif
#ifndef SV_MUTANT_MMSG_DENIAL_UNDONE
	/* A sendmmsg with a message already judged denied: the agent's own
	 * mistake elsewhere in it (a first message that cannot be sent, a
	 * closed descriptor, not a socket) or its notification dying does not
	 * undo that attempt (reviews h-attack9 and h-attack10: each was filed
	 * invalid or abandoned, a pass over a decided denial). */
	if (c->decided_denial && (bucket == SV_INVALID || bucket == SV_ABANDONED)) {
		reason = c->decided_denial;
		err = sv_call_denial_errno(c);
		val = 0;
		bucket = SV_DENIED;
	}
#endif
#ifndef SV_MUTANT_PINS_AFTER_ANSWER
	/* MUTANT pins-after-answer: pins go in sv_call_release, after the
	 * answer. The act is done: a pin kept past the answer keeps bound a
	 * listener the agent closes as soon as its client is connected, and
	 * the agent's own bind of the name again failed EADDRINUSE (review
	 * h-attack31's ha31-rebind.sh: up to 389 of 1000). */
	sv_pins_drop(&c->pins);
#endif
	if (action == SV_ACT_CONTINUE)
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	else if (err)
		resp.error = -err;
	else
		resp.val = val;
	c->ev.bucket = bucket;
	c->ev.reason = reason;
	c->ev.action = action;
	c->ev.err = action == SV_ACT_CONTINUE ? 0 : err;
	c->ev.result = err ? -1 : val;
	if (action != SV_ACT_NONE) {
		rc = sv_listener_send(c->listener, &resp);
		if (rc == -ENOENT) {
			/* Nobody is waiting for the answer any more. A denial stays
			 * one (the attempt was made, and is what the oracle counts);
			 * anything else is abandoned. */
			c->ev.action = SV_ACT_NONE;
			if (bucket != SV_DENIED && bucket != SV_MECH_FAILURE) {
				c->ev.bucket = SV_ABANDONED;
				c->ev.reason = "died-before-answer";
			}
		} else if (rc < 0) {
			/* We cannot answer at all: the agent's thread stays blocked, so
			 * the run has to end. */
			c->ev.bucket = SV_MECH_FAILURE;
			c->ev.mechanism = "send";
			c->ev.mech_err = -rc;
			c->ev.action = SV_ACT_NONE;
			sv_listener_fatal();
		}
	}
	c->done = 1;
	sv_report_record(&c->ev);
}

/* ESRCH comes from a process that is exiting (its leader already gone) while
 * the waiting thread has not yet seen its SIGKILL: give the notification a
 * moment to die. One that stays alive belongs to a live thread whose leader
 * exited (pthread_exit in main): the supervisor really cannot act there. */
static int notification_dies(struct sv_call *c)
{
	const struct timespec ms = {.tv_nsec = 1000 * 1000};

	for (int i = 0; i < 50; i++) {
		int rc = sv_listener_id_valid(c->listener, c->req->id);

		if (rc == -ENOENT)
			return 1;
		if (rc < 0)
			return 0;
		nanosleep(&ms, NULL);
	}
	return 0;
}

void sv_call_mech_failure(struct sv_call *c, const char *mechanism, int err)
{
	c->ev.mechanism = mechanism;
	c->ev.mech_err = err;
	if (err == ESRCH && notification_dies(c)) {
		sv_call_finish(c, SV_ABANDONED, "target-gone", SV_ACT_NONE, 0, 0);
		return;
	}
	/* /proc/PID/mem reads nothing once the process has dropped its memory
	 * (mem_rw: mmget_not_zero fails), an EIO where process_vm_readv says
	 * ESRCH: the process is going, as for ESRCH (seen in the matrix:
	 * signal-interrupt-undeclared on no-cross-memory-attach, an
	 * interrupted connect read after its process exited). Only when its
	 * memory is gone: a live process's EIO is the supervisor's blindness,
	 * which no interruption hides. */
	if (err == EIO && mechanism && strcmp(mechanism, "proc_mem") == 0 &&
	    sv_target_mm_gone((pid_t)c->req->pid) && notification_dies(c)) {
		sv_call_finish(c, SV_ABANDONED, "target-gone", SV_ACT_NONE, 0, 0);
		return;
	}
	sv_call_finish(c, SV_MECH_FAILURE, "mechanism", SV_ACT_ERRNO, SV_ERR_MECHANISM, 0);
}

enum sv_read sv_call_read_or_fault(struct sv_call *c, uint64_t addr, void *buf, size_t len)
{
	const char *mech = NULL;
	int rc = sv_target_read(c->req->pid, addr, buf, len, &mech);

	if (rc == 0)
		return SV_READ_OK;
	if (rc == -EFAULT)
		return SV_READ_FAULT;
	sv_call_mech_failure(c, mech, -rc);
	return SV_READ_FINISHED;
}

int sv_call_read(struct sv_call *c, uint64_t addr, void *buf, size_t len)
{
	const char *mech = NULL;
	int rc = sv_target_read(c->req->pid, addr, buf, len, &mech);

	if (rc == 0)
		return 0;
	if (rc == -EFAULT) {
		sv_call_finish(c, SV_INVALID, "bad-address", SV_ACT_ERRNO, EFAULT, 0);
		return -1;
	}
#ifdef SV_MUTANT_SILENT_EPERM
	/* MUTANT silent-eperm: the original false green. */
	{
		struct seccomp_notif_resp resp = {.id = c->req->id, .error = -EPERM};

		sv_listener_send(c->listener, &resp);
		c->done = 1;
		return -1;
	}
#endif
	sv_call_mech_failure(c, mech, -rc);
	return -1;
}

int sv_call_still_valid(struct sv_call *c)
{
	int rc = sv_listener_id_valid(c->listener, c->req->id);

	if (rc == 0)
		return 0;
	if (rc == -ENOENT)
		sv_call_finish(c, SV_ABANDONED, "target-gone", SV_ACT_NONE, 0, 0);
	else
		sv_call_mech_failure(c, "id_valid", -rc);
	return -1;
}

int sv_call_denial_valid(struct sv_call *c, const char *deny)
{
	int rc = sv_listener_id_valid(c->listener, c->req->id);

	if (rc == 0)
		return 0;
	if (rc == -ENOENT) {
#ifdef SV_MUTANT_DENIAL_AS_ABANDONED
		/* MUTANT denial-as-abandoned: a decided denial whose
		 * notification died before this check is filed as abandoned. */
		sv_call_finish(c, SV_ABANDONED, "target-gone", SV_ACT_NONE, 0, 0);
		return -1;
#endif
		/* The decision was made on what the agent's thread asked for; its
		 * call ending meanwhile (a signal, its death) does not undo the
		 * attempt. Nothing is answered: nobody waits. */
		sv_call_finish(c, SV_DENIED, deny, SV_ACT_NONE, sv_call_denial_errno(c), 0);
		return -1;
	}
	sv_call_mech_failure(c, "id_valid", -rc);
	return -1;
}

int sv_call_take(struct sv_call *c, int agent_fd)
{
	const char *mech = "pidfd_getfd";

	/* A cached pidfd can belong to a process that is gone, its pid number
	 * now the waiting thread's (pidfd_getfd: ESRCH): then once afresh. */
	for (int attempt = 0; attempt < 2; attempt++) {
		if (attempt) {
			sv_act_pidfd_forget(c->pidfd_handle);
			sv_act_pidfd_put(c->pidfd, c->pidfd_handle);
			c->pidfd = -1;
		}
		c->pidfd = sv_act_pidfd_get(c->req->pid, &c->pidfd_handle, &c->check_tid);
		if (c->pidfd < 0) {
			sv_call_mech_failure(c, "pidfd_open", -c->pidfd);
			return -1;
		}
		/* The pidfd names the process of the thread that is still
		 * waiting, not one that reused its pid. */
		if (sv_call_still_valid(c))
			return -1;
		c->dup = sv_act_getfd_as(c->pidfd, c->check_tid, agent_fd, &mech);
		if (c->dup != -ESRCH || c->pidfd_handle < 0)
			break;
	}
	if (c->dup == -EBADF) {
		sv_call_finish(c, SV_INVALID, "bad-descriptor", SV_ACT_ERRNO, EBADF, 0);
		return -1;
	}
	if (c->dup < 0) {
		sv_call_mech_failure(c, mech, -c->dup);
		return -1;
	}
	return 0;
}

int sv_call_prepare(struct sv_call *c, int agent_fd)
{
	socklen_t len = sizeof(c->domain);

	if (sv_call_take(c, agent_fd))
		return -1;
	if (getsockopt(c->dup, SOL_SOCKET, SO_DOMAIN, &c->domain, &len) != 0) {
		int err = errno;

		if (err == ENOTSOCK)
			sv_call_finish(c, SV_INVALID, "not-a-socket", SV_ACT_ERRNO, ENOTSOCK, 0);
		else
			sv_call_mech_failure(c, "getsockopt", err);
		return -1;
	}
	return 0;
}

/* The socket of a call already denied, its domain, type and protocol, read
 * quietly: 0, or -1 when it cannot be looked at (no pidfd, the call gone,
 * no duplicate: then the denial stands). */
static int peek_denied_socket(struct sv_call *c, int agent_fd, int *type, int *proto)
{
	socklen_t tl = sizeof(*type), pl = sizeof(*proto), dl = sizeof(c->domain);
	const char *mech = NULL;

	/* A name the policy allowed but the socket's family does not fit
	 * (family-mismatch) has its duplicate already: never take a second
	 * one over it (each would stay open until the run ends). */
	if (c->dup < 0) {
		c->pidfd = sv_act_pidfd_get(c->req->pid, &c->pidfd_handle, &c->check_tid);
		if (c->pidfd < 0 || sv_listener_id_valid(c->listener, c->req->id) != 0)
			return -1;
		/* The calling thread's own descriptor, as for every performed
		 * call: a thread with its own table whose socket cannot be
		 * proven its own keeps the denial. */
		c->dup = sv_act_getfd_as(c->pidfd, c->check_tid, agent_fd, &mech);
		if (c->dup < 0 || getsockopt(c->dup, SOL_SOCKET, SO_DOMAIN, &c->domain, &dl) != 0)
			return -1;
	}
	if (getsockopt(c->dup, SOL_SOCKET, SO_TYPE, type, &tl) != 0 ||
	    getsockopt(c->dup, SOL_SOCKET, SO_PROTOCOL, proto, &pl) != 0)
		return -1;
	return 0;
}

int sv_call_tcp_ignores_name(struct sv_call *c, int agent_fd, int flags)
{
	int type = 0, proto = 0;

	/* net/ipv4/tcp.c, tcp_sendmsg_locked: msg_name is only used by the
	 * fast-open paths (MSG_FASTOPEN, or a deferred TCP_FASTOPEN_CONNECT
	 * connect, whose destination was set by a mediated connect()); inet_sendmsg
	 * passes it through untouched. Every other send goes to the connected
	 * peer, or fails (EPIPE) on an unconnected socket. */
	if (flags & MSG_FASTOPEN)
		return 0;
	if (peek_denied_socket(c, agent_fd, &type, &proto) < 0)
		return 0;
	if ((c->domain != AF_INET && c->domain != AF_INET6) || type != SOCK_STREAM ||
	    proto != IPPROTO_TCP)
		return 0;
	/* The name is no destination: the event says what a send to the
	 * connected peer says (no dest), so no reader takes the ignored name
	 * for where the data went. */
	c->ev.family[0] = '\0';
	c->ev.dest[0] = '\0';
	return 1;
}

/* The ports resolvers sort a name's addresses on (RFC 6724: a UDP connect
 * to each, nothing sent): glibc's getaddrinfo without a service (0), musl's
 * getaddrinfo with an IPv6 address among them (65535, lookup_name.c), and
 * Go's pure resolver (9, net/addrselect.go; review h-attack45). */
static const uint16_t sort_probe_ports[] = {0, 9, 65535};

int sv_call_sort_probe(struct sv_call *c, int agent_fd, const struct sv_dest *d, int any_port)
{
	int type = 0, proto = 0, port_fits = any_port;

#ifdef SV_MUTANT_SORT_PROBE_DENIED
	/* MUTANT sort-probe-denied: glibc's probe is a denial (a false red of
	 * every program that resolves a name of two addresses without a port,
	 * review h-realprog). */
	return 0;
#endif
#ifdef SV_MUTANT_UNSPECIFIED_PROBE_DENIED
	/* MUTANT unspecified-probe-denied: glibc's passive-lookup probe of
	 * 0.0.0.0 and :: is a denial again (review h-realprog5). */
	if (any_port)
		return 0;
#endif
	for (size_t i = 0; i < sizeof(sort_probe_ports) / sizeof(sort_probe_ports[0]); i++)
		port_fits |= d->port == sort_probe_ports[i];
	if (d->kind != SV_DEST_INET || !port_fits ||
	    peek_denied_socket(c, agent_fd, &type, &proto) < 0)
		return 0;
	return (c->domain == AF_INET || c->domain == AF_INET6) && type == SOCK_DGRAM &&
	       proto == IPPROTO_UDP;
}

/* The device lock (sv_call_device_last): shared by IPv6 datagram sends and
 * connects between the judgement of the socket's device and the act (and
 * its undo); exclusive for the IPv6 calls that can write a device or give
 * a port back themselves: a disconnect, and a datagram connect to a scoped
 * address. */
static pthread_rwlock_t device_lock = PTHREAD_RWLOCK_INITIALIZER;

void sv_call_release(struct sv_call *c)
{
	if (c->device_lock)
		pthread_rwlock_unlock(&device_lock);
	c->device_lock = 0;
	sv_act_close_quiet(c->dup);
	sv_act_close_quiet(c->peer_fd);
	sv_pins_drop(&c->pins);
	sv_act_pidfd_put(c->pidfd, c->pidfd_handle);
	c->dup = -1;
	c->peer_fd = -1;
	c->pidfd = -1;
}

int sv_call_decide(struct sv_call *c, int agent_fd, const struct sv_dest *d, int is_connect,
		   const char *refused, const char **deny, const char **why)
{
	*deny = refused ? refused : sv_judge_name(c->pol, d, is_connect, why);
	if (*deny)
		/* No descriptor needed to refuse: a process the supervisor can
		 * read but not duplicate from is still denied, and recorded. */
		return sv_call_denial_valid(c, *deny);
	if (sv_call_prepare(c, agent_fd))
		return -1;
	*deny = sv_judge_domain(c->domain, d, is_connect);
#ifdef SV_MUTANT_DEVICE_FIRST
	/* MUTANT device-first: the device is judged here, before the payload
	 * is copied, as before review h-attack16. */
	if (!*deny && sv_call_device_fits(c, d, deny) < 0)
		*deny = "output-interface";
	if (!*deny && sv_fault("device_window"))
		usleep(300 * 1000);
#endif
	return 0;
}

/* The call's send flags (0 for a connect): a fast-open send connects. */
static int send_flags(const struct sv_call *c)
{
	const __u64 *a = c->req->data.args;

	if (strcmp(c->ev.syscall, "sendto") == 0 || strcmp(c->ev.syscall, "sendmmsg") == 0)
		return (int)a[3];
	if (strcmp(c->ev.syscall, "sendmsg") == 0)
		return (int)a[2];
	return 0;
}

/* Whether an inet send would take only a link-scope route: MSG_DONTROUTE
 * in its flags, or SO_DONTROUTE on its socket (set outside the run: the
 * agent's setsockopt of it is denied). IPv4 then passes over the gateway
 * route the host chose for any route without a gateway that covers the
 * address, on whatever link (review h-attack35: a fallback default route
 * over a second link; IPv6 did not follow it there, a v4-mapped send did,
 * so both families are refused). */
static int dontroute(const struct sv_call *c)
{
	int on = 0;
	socklen_t l = sizeof(on);

#ifdef SV_MUTANT_DONTROUTE_FLAG_OPEN
	/* MUTANT dontroute-flag-open: neither is looked at. */
	(void)c;
	(void)on;
	(void)l;
	return 0;
#endif
	if (send_flags(c) & MSG_DONTROUTE)
		return 1;
	/* Unreadable counts as set, as an unreadable device counts as bound. */
	return getsockopt(c->dup, SOL_SOCKET, SO_DONTROUTE, &on, &l) != 0 || on;
}

void sv_call_nameless_send(struct sv_call *c, int agent_fd)
{
	if (send_flags(c) & MSG_DONTROUTE) {
		if (sv_call_prepare(c, agent_fd))
			return;
		if ((c->domain == AF_INET || c->domain == AF_INET6) && dontroute(c)) {
			if (sv_call_denial_valid(c, "output-interface") == 0)
				sv_call_finish(c, SV_DENIED, "output-interface", SV_ACT_ERRNO,
					       sv_call_denial_errno(c), 0);
			return;
		}
	}
	sv_call_finish(c, SV_ALLOWED, "connected-peer", SV_ACT_CONTINUE, 0, 0);
}

int sv_call_device_fits(struct sv_call *c, const struct sv_dest *d, const char **deny)
{
	struct sv_dest peer;
	int rc;

	*deny = NULL;
	/* A disconnect sends nothing, and a datagram one clears the device
	 * (review h-attack16's false red: denied after a scoped connect). */
	if ((c->domain != AF_INET && c->domain != AF_INET6) || d->kind == SV_DEST_UNSPEC)
		return 0;
	if (dontroute(c)) {
		*deny = "output-interface";
		return 0;
	}
#ifdef SV_MUTANT_DEVICE_UNCHECKED
	/* MUTANT device-unchecked: a device the socket got without a trapped
	 * call (a failed bind of a scoped address) is not looked at. */
	(void)d;
	(void)peer;
	(void)send_flags;
	(void)rc;
	return 0;
#else
	if (c->domain == AF_INET) {
		/* No untrapped call writes an IPv4 socket's device (ipv4's bind
		 * and connect never do; SO_BINDTODEVICE and SO_BINDTOIFINDEX are
		 * trapped and denied), so the socket keeps the device read here
		 * through the act: no port to give first, nothing to read after
		 * (left unjudged for sv_call_device_changed). What it holds came
		 * from outside the run (SCM_RIGHTS from a local peer). */
		if (sv_device_bound_ifindex(c->dup) != 0)
			*deny = "output-interface";
		return 0;
	}
	if (strcmp(c->ev.syscall, "connect") == 0)
		sv_device_disconnect_before_scoped(c->dup, d);
		/* A stream connect's port too: its handshake completes before the
		 * check after the act, and a writer thread of the agent's sends from
		 * then on (h-attack15's tcpwin, seen leaking under load). */
#ifdef SV_MUTANT_STREAM_CONNECT_PORTLESS
	/* MUTANT stream-connect-portless: only a fast-open send's stream gets
	 * its port first, as before. */
	rc = sv_device_give_port(c->dup, (send_flags(c) & MSG_FASTOPEN) != 0);
#else
	rc = sv_device_give_port(c->dup, (send_flags(c) & MSG_FASTOPEN) != 0 ||
					     strcmp(c->ev.syscall, "connect") == 0);
#endif
	if (rc < 0)
		return rc;
	/* No name: the kernel sends to the socket's peer, or nowhere. */
	if (d->kind == SV_DEST_NONE) {
		struct sockaddr_storage ss;
		socklen_t l = sizeof(ss);

		if (getpeername(c->dup, (struct sockaddr *)&ss, &l) != 0)
			return 0;
		sv_sockaddr_decode(&ss, l, 0, &peer);
		d = &peer;
	}
	c->bound_if = sv_device_bound_ifindex(c->dup);
	c->scope_if = sv_device_scope_of(c->dup, d);
	if (c->bound_if == 0)
		return 0;
	if (c->bound_if > 0 && sv_device_needs_scope(d) &&
	    (d->scope_id == 0 || d->scope_id == (uint32_t)c->bound_if))
		return 0;
	*deny = "output-interface";
	return 0;
#endif
}

/* Takes the device lock for an IPv6 call, held until sv_call_release. No
 * other thread's disconnect may give a port back, nor its scoped connect
 * bind the socket to a link (which it does even when it fails), between
 * this call's judgement of the device and its act or its undo (reviews
 * h-attack16, h-attack17). IPv4 has no such race (nothing untrapped or
 * mediated writes its device); a stream's send goes to its peer or
 * nowhere (a fast-open one connects first and is checked after), and a
 * stream connect has its port before its device is read, so a racing
 * failed bind is EINVAL before it writes a scope id: streams take it only
 * to disconnect, which is quick, and a blocking connect never holds it
 * (h-attack17's false hang). */
static void lock_device(struct sv_call *c, const struct sv_dest *d)
{
	int is_connect = strcmp(c->ev.syscall, "connect") == 0;
	int dgram = sv_device_socket_type(c->dup) == SOCK_DGRAM;

#ifdef SV_MUTANT_DISCONNECT_UNLOCKED
	/* MUTANT disconnect-unlocked: disconnects and scoped connects take no
	 * lock, as before reviews h-attack16 and h-attack17. */
	if (is_connect)
		return;
#endif
	if (is_connect && (d->kind == SV_DEST_UNSPEC || (dgram && sv_device_needs_scope(d)))) {
		if (pthread_rwlock_wrlock(&device_lock) == 0)
			c->device_lock = 2;
	} else if (dgram && pthread_rwlock_rdlock(&device_lock) == 0) {
		c->device_lock = 1;
	}
}

int sv_call_device_last(struct sv_call *c, const struct sv_dest *d, const char **deny)
{
#ifdef SV_MUTANT_DEVICE_FIRST
	(void)c;
	(void)d;
	*deny = NULL;
	return 0;
#endif
	int rc;

	if (c->domain == AF_INET6 && !c->device_lock)
		lock_device(c, d);
	rc = sv_call_device_fits(c, d, deny);

	if (rc < 0) {
		sv_call_mech_failure(c, "give_port", -rc);
		return -1;
	}
	/* Test seam only: widen the window between judging the device and
	 * acting, so that a racing thread's failed bind lands in it. */
	if (!*deny && sv_fault("device_window"))
		usleep(300 * 1000);
	return 0;
}

int sv_call_device_changed(struct sv_call *c, int connected)
{
#ifdef SV_MUTANT_DEVICE_UNCHECKED
	(void)c;
	(void)connected;
#else
	int now;

	if (c->bound_if == SV_BOUND_UNJUDGED || c->dup < 0)
		return 0;
	now = sv_device_bound_ifindex(c->dup);
	/* A connect to a scoped address binds the socket there itself: kept
	 * when it took, or when it failed and left no peer (a refused TCP
	 * connect keeps the device it bound before the SYN: review
	 * h-attack16's false red). A failed datagram connect that kept an old
	 * peer is not (__ip6_datagram_connect, review h-attack14): that peer
	 * would be written to out of the new link. */
	if (now == c->bound_if)
		return 0;
	if (c->bound_if == 0 && c->scope_if != 0 && now == (int)c->scope_if) {
		struct sockaddr_storage ss;
		socklen_t l = sizeof(ss);

		if (connected ||
		    (getpeername(c->dup, (struct sockaddr *)&ss, &l) != 0 && errno == ENOTCONN))
			return 0;
	}
	if (strcmp(c->ev.syscall, "connect") == 0) {
		/* Undone before the agent sends anything: a datagram socket
		 * is disconnected (__udp_disconnect clears the device too), a
		 * stream shut down. */
		struct sockaddr unspec = {.sa_family = AF_UNSPEC};

		if (sv_device_socket_type(c->dup) == SOCK_DGRAM)
			(void)connect(c->dup, &unspec, sizeof(unspec));
		else
			(void)shutdown(c->dup, SHUT_RDWR);
	}
	return 1;
#endif
	return 0;
}

enum sv_fastopen sv_call_fastopen_connect(struct sv_call *c, const void *name, uint32_t namelen,
					  int *flags, long long *rc, int *err)
{
#ifdef SV_MUTANT_FASTOPEN_IN_SYN
	/* MUTANT fastopen-in-syn: the payload rides the SYN, as before
	 * review h-attack16. */
	return SV_FASTOPEN_NOT;
#endif
	if (!(*flags & MSG_FASTOPEN) || c->domain != AF_INET6 || namelen == 0 ||
	    sv_device_socket_type(c->dup) != SOCK_STREAM)
		return SV_FASTOPEN_NOT;
	*rc = connect(c->dup, name, namelen);
	*err = *rc < 0 ? errno : 0;
	if (sv_call_device_changed(c, *rc == 0 || *err == EINPROGRESS)) {
		(void)shutdown(c->dup, SHUT_RDWR);
		sv_call_mech_failure(c, "device-binding", ESTALE);
		return SV_FASTOPEN_FINISHED;
	}
	/* The scope a connect to a link-local address bound is the device
	 * the check after the send compares with (h-attack16's false red). */
	if (c->bound_if != SV_BOUND_UNJUDGED)
		c->bound_if = sv_device_bound_ifindex(c->dup);
	if (*rc < 0)
		return SV_FASTOPEN_ANSWERED;
	*flags &= ~MSG_FASTOPEN;
	return SV_FASTOPEN_UNNAMED;
}

void sv_call_note_dest(struct sv_call *c, const unsigned char *name, size_t len, struct sv_dest *d)
{
	char num[12];

	sv_sockaddr_decode(name, len, 0, d);
	if (d->kind == SV_DEST_NONE)
		return;
	strncpy(c->ev.family, sv_dest_family_name(d, num, sizeof(num)), sizeof(c->ev.family) - 1);
	if (sv_dest_format(d, name, len, c->ev.dest, sizeof(c->ev.dest)) < 0)
		strcpy(c->ev.dest, "?");
}

void sv_call_answer_performed(struct sv_call *c, const char *why, long long rc, int err)
{
	int cerr;

	if (sv_call_device_changed(c, strcmp(c->ev.syscall, "connect") == 0 &&
					  (rc == 0 || err == EINPROGRESS))) {
		/* Sent, or connected, by a link that was not judged: the
		 * supervisor could not keep the run to its allow-list. */
		sv_call_mech_failure(c, "device-binding", ESTALE);
		return;
	}
	cerr = sv_act_close_dup(c->dup);

	c->dup = -1;
	if (cerr) {
		sv_call_mech_failure(c, "dup_close", -cerr);
		return;
	}
	sv_call_finish(c, SV_ALLOWED, why, SV_ACT_PERFORMED, rc < 0 ? err : 0, rc < 0 ? 0 : rc);
}

/* include/linux/socket.h's, which libc headers do not carry. */
#ifndef MSG_PROBE
#define MSG_PROBE 0x10
#endif

void sv_call_note_held(struct sv_call *c, int agent_flags)
{
	int corked = 0;
	socklen_t len = sizeof(corked);

#ifdef SV_MUTANT_HELD_UNMARKED
	/* MUTANT held-unmarked: a corked or probing send is reported as any
	 * other, and the appliance's oracle waits for bytes that never come
	 * (review h-attack34 finding 6, a false red). */
	(void)agent_flags;
	(void)corked;
	(void)len;
	return;
#endif
	if (agent_flags & (MSG_MORE | MSG_PROBE))
		c->ev.held = 1;
	else if ((c->domain == AF_INET || c->domain == AF_INET6) &&
		 getsockopt(c->dup, IPPROTO_UDP, UDP_CORK, &corked, &len) == 0 && corked)
		c->ev.held = 1;
}

void sv_call_forward_sigpipe(struct sv_call *c, int agent_flags, int err)
{
	if (err == EPIPE && !(agent_flags & MSG_NOSIGNAL) && c->pidfd >= 0)
		syscall(SYS_pidfd_send_signal, c->pidfd, SIGPIPE, NULL, 0);
}

long long sv_call_read_payload(struct sv_call *c, const struct sv_iov *iov, size_t niov,
			       uint64_t total, unsigned char **out, const char **invalid, int *err)
{
	int type = 0;
	socklen_t tl = sizeof(type);
	size_t want = total > SV_PAYLOAD_CAP ? SV_PAYLOAD_CAP : (size_t)total, got = 0;
	unsigned char *buf;

	if (total > SV_PAYLOAD_CAP &&
	    (getsockopt(c->dup, SOL_SOCKET, SO_TYPE, &type, &tl) != 0 || type != SOCK_STREAM)) {
		if (invalid) {
			*invalid = "too-large";
			*err = EMSGSIZE;
			return SV_PAYLOAD_INVALID;
		}
		sv_call_finish(c, SV_INVALID, "too-large", SV_ACT_ERRNO, EMSGSIZE, 0);
		return SV_PAYLOAD_FINISHED;
	}
	buf = malloc(want ? want : 1);
	if (!buf) {
		sv_call_mech_failure(c, "malloc", ENOMEM);
		return SV_PAYLOAD_FINISHED;
	}
	for (size_t i = 0; i < niov && got < want; i++) {
		size_t n = iov[i].len > want - got ? want - got : (size_t)iov[i].len;
		/* sv_call_read's 0 and -1 are SV_READ_OK and SV_READ_FINISHED. */
		enum sv_read rc = !n ? SV_READ_OK
				  : invalid
				      ? sv_call_read_or_fault(c, iov[i].base, buf + got, n)
				      : (enum sv_read)sv_call_read(c, iov[i].base, buf + got, n);

		if (rc != SV_READ_OK) {
			free(buf);
			if (rc == SV_READ_FAULT) {
				*invalid = "bad-address";
				*err = EFAULT;
				return SV_PAYLOAD_INVALID;
			}
			return SV_PAYLOAD_FINISHED;
		}
		got += n;
	}
	*out = buf;
	return (long long)got;
}
