/* One notification being mediated, and the steps every handler shares:
 * copy, check, decide, duplicate, answer, record. Used by mediate.c (the
 * dispatch and the single-address calls) and mediate_msg.c (sendmsg,
 * sendmmsg). Every sv_call_* that "finishes" the call answers the agent
 * (unless the notification is dead) and records exactly one event. */
#ifndef SV_CALL_H
#define SV_CALL_H

#include <errno.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/un.h>

#include "pins.h"
#include "policy.h"
#include "report.h"
#include "sockaddr.h"

/* Answers given by the supervisor itself (see docs/design.md): a denial is
 * SV_ERR_DENIED unless --deny-errno chose another (sv_call_denial_errno); a
 * mechanism failure is always EPERM, which --deny-errno may not take. */
#define SV_ERR_DENIED EACCES
#define SV_ERR_MECHANISM EPERM
/* Payloads the supervisor copies and sends itself. Larger datagrams than
 * this do not exist on IP (65507) or, with default buffers, on AF_UNIX; a
 * stream send may legally be short. */
#define SV_PAYLOAD_CAP (256u * 1024u)
/* Control data the supervisor copies and forwards. Larger is a refused
 * control message (a denial), never the agent's ENOBUFS: the kernel takes up
 * to net.core.optmem_max (128 KiB by default since 6.9). */
#define SV_CONTROL_CAP (64u * 1024u)
/* sv_call.bound_if before any judgement of the device. */
#define SV_BOUND_UNJUDGED (-2)

struct sv_call {
	int listener;
	const struct seccomp_notif *req;
	const struct sv_policy *pol;
	struct sv_event ev;
	int done;
	int pidfd;        /* -1 until sv_call_prepare */
	int pidfd_handle; /* for sv_act_pidfd_put */
	pid_t check_tid;  /* > 0: duplicates must be proven to be this thread's (act.h) */
	int dup;          /* the duplicate of the agent's socket, -1 until prepared */
	int domain;       /* the duplicate's SO_DOMAIN */
	/* The duplicate's device (SO_BINDTOIFINDEX) when the destination was
	 * judged against it (sv_call_device_fits), -1 when unreadable;
	 * SV_BOUND_UNJUDGED before. */
	int bound_if;
	/* The judged destination's own scope id when it needs one (a connect
	 * to it binds the socket there itself), else 0. */
	uint32_t scope_if;
	/* The device lock this call holds until sv_call_release: 0 none, 1
	 * shared (an IPv6 datagram send or connect, from its device's
	 * judgement to its act), 2 exclusive (an IPv6 disconnect, an IPv6
	 * datagram connect to a scoped address). */
	int device_lock;
	/* Set once a message of a sendmmsg is judged denied (its reason):
	 * whatever then ends the call as invalid or abandoned, sv_call_finish
	 * records a denial. */
	const char *decided_denial;
	/* The object an AF_UNIX path of a judged run led to (O_PATH, -1
	 * when none), and the name the act uses for it (unixpeer.h). */
	int peer_fd;
	struct sockaddr_un peer_name;
	/* The act must not wait in the kernel: its name is an abstract one
	 * judged the run's (sv_unixpeer_act). */
	int peer_nowait;
	/* The send performed now names the caller's credentials: made with
	 * CAP_SYS_ADMIN raised for its syscall alone (sv_act_sendmsg). */
	int send_raised;
	/* The sockets bound to that name, held open from the judgement to
	 * the end of the act, so no other socket can bind it meanwhile
	 * (unixpeer.c), and their cookies (sv_pins_hold). */
	struct sv_pins pins;
};

/* The errno a denied call of c answers: the policy's --deny-errno, else
 * SV_ERR_DENIED (never 0: a policy without the field still denies). The
 * report promises the same value (supervisor.denial_errno). */
int sv_call_denial_errno(const struct sv_call *c);

/* Answers and records. action SV_ACT_NONE records without answering. A
 * decided denial stays a denial even if the notification died before the
 * answer: the attempt was made. With c->decided_denial set, an invalid or
 * abandoned ending is recorded as that denial (an invalid one answered with
 * the denial errno). */
void sv_call_finish(struct sv_call *c, enum sv_bucket bucket, const char *reason,
		    enum sv_action action, int err, long long val);

/* A mechanism call failed with err. ESRCH on a dead notification is the
 * target going away (abandoned); anything else is a mechanism failure even
 * if the notification died meanwhile, so an agent cannot hide a blinded
 * supervisor by interrupting its own calls. Finishes the call. */
void sv_call_mech_failure(struct sv_call *c, const char *mechanism, int err);

/* Copies agent memory. Returns 0, or -1 with the call finished (invalid
 * EFAULT for an unmapped range, else a mechanism failure). */
int sv_call_read(struct sv_call *c, uint64_t addr, void *buf, size_t len);

/* One meaning per answer (review h-style2): what sv_call_read_or_fault
 * and sv_call_fastopen_connect answer, and sv_call_read_payload besides a
 * byte count. FINISHED always means the call is answered: stop. */
enum sv_read { SV_READ_FINISHED = -1, SV_READ_OK = 0, SV_READ_FAULT = 1 };
enum sv_fastopen {
	SV_FASTOPEN_FINISHED = -1,
	SV_FASTOPEN_NOT = 0,
	SV_FASTOPEN_ANSWERED = 1,
	SV_FASTOPEN_UNNAMED = 2
};
#define SV_PAYLOAD_FINISHED (-1LL)
#define SV_PAYLOAD_INVALID (-2LL)

/* The same, but the agent's bad address (sv_target_read's -EFAULT) is
 * returned as SV_READ_FAULT with nothing finished: for sendmmsg, where the
 * kernel sends the messages before a bad one and answers their count
 * (review h-attack4). Returns SV_READ_OK, SV_READ_FAULT, or
 * SV_READ_FINISHED with the call finished (a mechanism failure). */
enum sv_read sv_call_read_or_fault(struct sv_call *c, uint64_t addr, void *buf, size_t len);

/* ID_VALID: every copy so far came from the thread that is still waiting.
 * Returns 0, or -1 with the call finished. */
int sv_call_still_valid(struct sv_call *c);

/* ID_VALID for a call already decided as denied (reason deny). Returns 0
 * (the caller answers and records the denial), or -1 with the call finished:
 * a dead notification is still recorded as a denial (action none), since the
 * attempt was made; an ID_VALID failure is a mechanism failure. */
int sv_call_denial_valid(struct sv_call *c, const char *deny);

/* pidfd_open, ID_VALID, pidfd_getfd of the calling thread's own agent_fd
 * (whatever it is). Returns 0 with c->pidfd and c->dup set, or -1 with
 * the call finished (EBADF is the agent's own: invalid). */
int sv_call_take(struct sv_call *c, int agent_fd);

/* sv_call_take, then SO_DOMAIN. Returns 0 with c->pidfd, c->dup and
 * c->domain set, or -1 with the call finished (EBADF and ENOTSOCK are the
 * agent's own: invalid). */
int sv_call_prepare(struct sv_call *c, int agent_fd);

/* A denied name on a send that TCP would ignore: true (1) when the agent's
 * agent_fd is a TCP socket and flags has no MSG_FASTOPEN, with c->pidfd,
 * c->dup and c->domain set as by sv_call_prepare (the send is then
 * performed on the duplicate without a name, as the kernel would; the
 * event's dest and family are cleared, as for a send with no name). 0
 * otherwise, or when the socket cannot be looked at: the denial stands.
 * Never finishes the call. */
int sv_call_tcp_ignores_name(struct sv_call *c, int agent_fd, int flags);

/* A connect the policy denies that is a resolver's address-sorting probe:
 * d an inet name on a probe port and agent_fd a UDP socket. glibc's
 * getaddrinfo connects a UDP socket to each address of a name with two or
 * more (RFC 6724 sorting, to learn the source address) and sends nothing,
 * on port 0 without a service (which no rule can declare); musl's on 65535
 * and Go's resolver on 9, whatever the service. True (1) for those ports,
 * and for any port with any_port (the unspecified address, which glibc's
 * passive lookup probes on the service's port: the kernel never sends
 * there, and the refusal stands). The connect is still refused (the socket stays unconnected, so
 * nothing can follow it), but it is no attempt to send: the caller records it neutralized. 0
 * otherwise, or when the socket cannot be looked at. Never finishes the call. */
int sv_call_sort_probe(struct sv_call *c, int agent_fd, const struct sv_dest *d, int any_port);

/* A send with no name (sendto's addr NULL): the kernel sends to the
 * socket's peer, mediated when it connected, so the call goes on
 * (connected-peer) without a look at the socket, unless flags hold
 * MSG_DONTROUTE: then the socket is prepared, and an inet one is denied
 * output-interface (see sv_call_device_fits). Always finishes the call. */
void sv_call_nameless_send(struct sv_call *c, int agent_fd);

/* Closes what sv_call_prepare opened (quietly: nothing the agent sees
 * depends on it). Safe to call twice. */
void sv_call_release(struct sv_call *c);

/* The whole decision but the device: refused (a reason found earlier, or
 * NULL), then the name; an allowed name then prepares the socket
 * (sv_call_prepare) and must fit its domain. Returns 0 with *deny NULL
 * (allowed, prepared, *why set) or *deny set (ID_VALID checked: the caller
 * records the denial), or -1 with the call finished. The device is judged
 * by sv_call_device_last, after it. */
int sv_call_decide(struct sv_call *c, int agent_fd, const struct sv_dest *d, int is_connect,
		   const char *refused, const char **deny, const char **why);

/* sv_call_device_fits as the last step before the act: after every copy
 * from the agent's memory and the ID_VALID that vouches for it, so that
 * the agent cannot hold the supervisor between reading the device and
 * acting (review h-attack16: a payload page held with userfaultfd, or
 * timed by the page cache, while another thread made the socket portless
 * and a failed bind set its device). Returns 0 with *deny NULL (allowed)
 * or the denial's reason, or -1 with the call finished: a socket that
 * needed a port and could not be given one is a mechanism failure
 * (`give_port`). */
int sv_call_device_last(struct sv_call *c, const struct sv_dest *d, const char **deny);

/* The socket's device against the destination (review h-attack13): an inet
 * socket bound to a device sends there whatever the routes say, and a
 * failed bind() of a scoped IPv6 address or a connect to a link-local one
 * binds it without any call the filter traps. A portless IPv6 datagram
 * socket is given its port first (as its first send would), so no later
 * bind() can; an IPv4 socket is only read (nothing untrapped binds it) and
 * left unjudged for the check after the act. *deny is NULL when the
 * duplicate is bound to no device, or the destination (d, or the socket's
 * peer when d is no name) is a link-local (or link-scope multicast) IPv6
 * address whose scope id is 0 or names that device; else
 * "output-interface", as it is for a send with MSG_DONTROUTE or on a
 * socket with SO_DONTROUTE (a link-scope route only: review h-attack35).
 * Records the device and the one a connect to d would
 * bind for sv_call_device_changed. Returns 0, or -errno with nothing judged
 * when a portless socket could not be given its port. Needs c->dup. */
int sv_call_device_fits(struct sv_call *c, const struct sv_dest *d, const char **deny);
/* Whether the duplicate's device is no longer the one judged: another
 * thread's failed bind() between the judgement and the act, or a connect
 * that failed after binding the socket to its scope (the kernel keeps the
 * old peer, not the old device). A connect is then undone (a datagram
 * socket disconnected, a stream shut down). connected: the call was a
 * connect that took (0 or EINPROGRESS), whose scope binds the socket by
 * itself. 0 when no device was judged. */
int sv_call_device_changed(struct sv_call *c, int connected);
/* Decodes len bytes of name into *d and puts it in the event. */
void sv_call_note_dest(struct sv_call *c, const unsigned char *name, size_t len, struct sv_dest *d);

/* An IPv6 TCP send with MSG_FASTOPEN, performed as its connect, the check
 * after it, then a plain send: the kernel would put the payload in the SYN,
 * and a failed bind() of a scoped address timed between the device's
 * judgement and the act (after an untrapped shutdown() gave a SYN_SENT
 * socket's port back: review h-attack16) would send it out of another
 * link before any check. Returns SV_FASTOPEN_UNNAMED when the send is to
 * go on without its name and without MSG_FASTOPEN (*flags cleared of it);
 * SV_FASTOPEN_ANSWERED when the connect is the answer (its error:
 * EINPROGRESS for a non-blocking socket, as without a fast-open cookie,
 * EISCONN, EALREADY, ...; *rc and *err set); SV_FASTOPEN_FINISHED with the
 * call finished (the connect took the wrong link: undone, a mechanism
 * failure). Not a fast-open IPv6 stream send: SV_FASTOPEN_NOT, nothing
 * done. */
enum sv_fastopen sv_call_fastopen_connect(struct sv_call *c, const void *name, uint32_t namelen,
					  int *flags, long long *rc, int *err);

/* Closes the duplicate (a mechanism: dup_close) and answers with the
 * performed call's result rc / err. */
void sv_call_answer_performed(struct sv_call *c, const char *why, long long rc, int err);

/* Before a send the supervisor performs on c->dup with the agent's flags:
 * marks the event held when the kernel will keep the bytes back (MSG_MORE,
 * or UDP_CORK on the socket) or send nothing (MSG_PROBE). Only a note for
 * whoever counts arrivals; an option that cannot be read counts as not set
 * (the send is then counted as a delivery). */
void sv_call_note_held(struct sv_call *c, int agent_flags);

/* The agent's SIGPIPE: the supervisor sends with MSG_NOSIGNAL, so an EPIPE
 * the agent did not ask to be quiet about is signalled to it here. */
void sv_call_forward_sigpipe(struct sv_call *c, int agent_flags, int err);

/* Copies a payload described by iovecs for a send the supervisor performs.
 * Returns the byte count and *out (malloc'd), or SV_PAYLOAD_FINISHED with
 * the call finished. A stream may be sent short; a datagram over the cap is
 * EMSGSIZE. With invalid not NULL, the agent's own mistakes (a datagram
 * over the cap, a payload where nothing can be mapped) are
 * SV_PAYLOAD_INVALID with *invalid the reason and *err the errno, nothing
 * finished: a sendmmsg answers the count sent
 * before that message, as the kernel does (review h-attack5). */
struct sv_iov;
long long sv_call_read_payload(struct sv_call *c, const struct sv_iov *iov, size_t niov,
			       uint64_t total, unsigned char **out, const char **invalid, int *err);

#endif
