#include "mediate_msg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "act.h"
#include "judge.h"
#include "msghdr.h"
#include "target.h"
#include "unixpeer.h"

/* One message copied out of the agent, ready to send from our memory. */
struct copied_msg {
	struct sv_msg m;
	unsigned char name[SV_SOCKADDR_MAX];
	struct sv_dest d;
	struct sv_iov *iov;
	uint64_t total;
	unsigned char *control;
	int refused_control;  /* holds a control message we do not forward */
	int bad_control;      /* not CMSG_OK: the kernel's EINVAL, after the name */
	int too_many_fds;     /* over SCM_MAX_FD: AF_UNIX's EINVAL, ignored elsewhere */
	const char *peer_why; /* an AF_UNIX name's reason, once judged (unixpeer.h) */
};

static void copied_free(struct copied_msg *cm)
{
	free(cm->iov);
	free(cm->control);
	cm->iov = NULL;
	cm->control = NULL;
}

/* Reads one of a message's fields. The agent's bad address is its bad
 * argument (SV_READ_FAULT, *err EFAULT, nothing finished), as the kernel's
 * copy of that message fails: sendmmsg then stops there, after sending the
 * messages before it (review h-attack4: finishing the whole call as invalid
 * hid an undeclared first message behind a pass). Else SV_READ_OK, or
 * SV_READ_FINISHED with the call finished. */
static enum sv_read read_field(struct sv_call *c, uint64_t addr, void *buf, size_t len, int *err)
{
	enum sv_read rc;

#ifdef SV_MUTANT_MMSG_FAULT_WHOLE
	/* MUTANT mmsg-fault-whole: any message's bad pointer makes the whole
	 * call the agent's invalid one, as before review h-attack4. */
	return sv_call_read(c, addr, buf, len) ? SV_READ_FINISHED : SV_READ_OK;
#endif
	rc = sv_call_read_or_fault(c, addr, buf, len);
	if (rc == SV_READ_FAULT)
		*err = EFAULT;
	return rc;
}

/* Copies one message's name, iovec array and control data (not the payload:
 * that only once the destination is allowed). Returns SV_READ_OK;
 * SV_READ_FAULT when the agent's own arguments are bad (a pointer to where
 * nothing can be mapped among them, a malformed msghdr), with the kernel's
 * errno in *err (nothing finished); or SV_READ_FINISHED with the call
 * finished. */
static enum sv_read copy_msg(struct sv_call *c, const void *raw, struct copied_msg *cm, int *err)
{
	int rc = sv_msghdr_decode(raw, SV_MSGHDR_SIZE, &cm->m);
	enum sv_read st;

	if (rc < 0) {
		*err = -rc;
		return SV_READ_FAULT;
	}
	if (cm->m.namelen &&
	    (st = read_field(c, cm->m.name, cm->name, cm->m.namelen, err)) != SV_READ_OK)
		return st;
	/* The kernel treats a name of length 0 as no name at all. */
	sv_sockaddr_decode(cm->m.namelen ? cm->name : NULL, cm->m.namelen, 1, &cm->d);
	if (cm->m.controllen > SV_CONTROL_CAP) {
#ifdef SV_MUTANT_CONTROL_CAP_INVALID
		/* MUTANT control-cap-invalid: over the cap is the agent's
		 * ENOBUFS, as before review h-attack4. */
		*err = ENOBUFS;
		return SV_READ_FAULT;
#endif
		/* Not the agent's mistake: the kernel takes control data up to
		 * net.core.optmem_max (128 KiB by default since 6.9, any value
		 * the admin sets), and UDP skips a message of a level it does
		 * not handle, so it sends (review h-attack4: filed as ENOBUFS,
		 * an undeclared datagram hid behind a pass). The supervisor
		 * forwards no such buffer: a refused control message, which
		 * decides before the name, unread. */
		cm->refused_control = 1;
		cm->m.controllen = 0;
	}
	if (cm->m.iovlen) {
		unsigned char *iraw = malloc(cm->m.iovlen * 16);

		cm->iov = calloc(cm->m.iovlen, sizeof(*cm->iov));
		if (!iraw || !cm->iov) {
			free(iraw);
			sv_call_mech_failure(c, "malloc", ENOMEM);
			return SV_READ_FINISHED;
		}
		if ((st = read_field(c, cm->m.iov, iraw, cm->m.iovlen * 16, err)) != SV_READ_OK) {
			free(iraw);
			return st;
		}
		rc = sv_msghdr_decode_iov(iraw, cm->m.iovlen, cm->iov, &cm->total);
		free(iraw);
		if (rc < 0) {
			*err = -rc;
			return SV_READ_FAULT;
		}
	}
	if (cm->m.controllen) {
		cm->control = malloc(cm->m.controllen);
		if (!cm->control) {
			sv_call_mech_failure(c, "malloc", ENOMEM);
			return SV_READ_FINISHED;
		}
		if ((st = read_field(c, cm->m.control, cm->control, cm->m.controllen, err)) !=
		    SV_READ_OK)
			return st;
		/* Checked now, translated at send time. */
		rc = sv_msghdr_check_control(cm->control, cm->m.controllen,
					     cm->d.kind == SV_DEST_INET &&
						 sv_addr_is_loopback(&cm->d.addr));
		if (rc == -ETOOMANYREFS) {
			/* Only an AF_UNIX socket takes descriptors and counts
			 * them (scm_fp_copy); every other family ignores
			 * SCM_RIGHTS (__sock_cmsg_send), so this stops
			 * nothing before the socket is known (review
			 * h-attack5: a UDP sendmmsg stopped here, and the
			 * undeclared messages after it, which the kernel
			 * sends, were never judged). */
			cm->too_many_fds = 1;
#ifdef SV_MUTANT_RIGHTS_ANY_FAMILY
			rc = -EINVAL;
#else
			rc = 0;
#endif
		}
		if (rc == -EINVAL) {
#ifdef SV_MUTANT_BAD_CONTROL_FIRST
			/* MUTANT bad-control-first: a malformed control is the
			 * agent's EINVAL before its name is judged, as before
			 * review h-attack4. */
			*err = EINVAL;
			return SV_READ_FAULT;
#endif
			/* The kernel walks control data in the protocol, after a
			 * TCP fast-open send has connected to the name
			 * (tcp_sendmsg_locked): the name is judged first, and
			 * only an undenied one is the agent's EINVAL (review
			 * h-attack4: a fast-open connect hid behind a pass). */
			cm->bad_control = 1;
		}
		cm->refused_control = rc == -EPERM;
	}
	return SV_READ_OK;
}

/* A refused control message decides before the name does. */
static const char *refusal(const struct copied_msg *cm)
{
	return cm->refused_control ? "control-message" : NULL;
}

int sv_mediate_caller_creds(struct sv_call *c, struct ucred *cr)
{
#ifndef SV_MUTANT_PERFORMED_CREDS_OWN
	/* MUTANT performed-creds-own: a performed send carries our own
	 * credentials, pid 0 to a receiver in the run. */
	int32_t pid;
	uint32_t uid, gid;
	int rc;

	if (c->domain != AF_UNIX)
		return 0;
	rc = sv_act_caller_creds((pid_t)c->req->pid, &pid, &uid, &gid);
	if (rc == 0) {
		*cr = (struct ucred){.pid = pid, .uid = uid, .gid = gid};
		return 1;
	}
#ifndef SV_MUTANT_CREDS_READ_ERROR_OURS
	/* MUTANT creds-read-error-ours: ids we could not read send ours,
	 * pid 0 and uid 0 to the receiver (h-attack56's storm). */
	if (rc != -ENOTSUP)
		return rc;
#endif
#else
	(void)c;
	(void)cr;
#endif
	return 0;
}

#if defined(SV_MUTANT_CREDS_RAISE_FAILED_OURS) || defined(SV_MUTANT_CREDS_EPERM_RETRY)
/* The mutants' retry with our credentials: ECANCELED (a capability not
 * raised) as before review h-attack59, and with creds-eperm-retry the
 * kernel's EPERM too, as in 9e16898 (a message the kernel refused was sent
 * again with ours). */
static int retried_with_ours(int err)
{
#ifdef SV_MUTANT_CREDS_EPERM_RETRY
	if (err == EPERM)
		return 1;
#endif
	return err == ECANCELED;
}
#endif

long long sv_mediate_send(struct sv_call *c, struct msghdr *mh, int flags, const void *name,
			  uint32_t namelen, int raised, void *plain, size_t plain_len)
{
	long long sent;

	/* A capability we could not raise sends nothing (ECANCELED). The
	 * kernel's EPERM to a raised send is never ours (CAP_SYS_ADMIN names
	 * any pid, CAP_SETUID and CAP_SETGID any ids: scm_check_creds) but
	 * unix_may_send's, the agent's answer, never sent again: without ours
	 * a receiver the agent disconnected meanwhile read pid 0 and uid 0
	 * (review h-attack54, ha54-run.sh epermrace). */
	c->send_raised = raised;
	sent = c->peer_nowait ? sv_unixpeer_act(c, mh, flags, name, namelen)
			      : sv_act_sendmsg(c->dup, mh, flags, raised);
#ifndef SV_MUTANT_CREDS_RAISE_FAILED_OURS
	/* MUTANT creds-raise-failed-ours: sent again with ours, pid 0 and
	 * uid 0 to the receiver. The probe proved the capability; one that
	 * cannot be raised now names no one: a mechanism failure, as ids we
	 * could not read (review h-attack59). */
	if (sent == -1 && raised && errno == ECANCELED) {
		c->send_raised = 0;
		sv_call_mech_failure(c, "capset", EPERM);
		return SV_SEND_FINISHED;
	}
#endif
#if defined(SV_MUTANT_CREDS_RAISE_FAILED_OURS) || defined(SV_MUTANT_CREDS_EPERM_RETRY)
	if (sent == -1 && raised && retried_with_ours(errno)) {
		c->send_raised = 0;
		mh->msg_control = plain;
		mh->msg_controllen = (socklen_t)plain_len;
		sent = c->peer_nowait ? sv_unixpeer_act(c, mh, flags, name, namelen)
				      : sv_act_sendmsg(c->dup, mh, flags, 0);
	}
#else
	(void)plain;
	(void)plain_len;
#endif
	c->send_raised = 0;
	return sent;
}

/* The control data a performed send carries: the agent's, and without
 * descriptors the caller's credentials (have_cr: sv_mediate_caller_creds)
 * before it,
 * never after (sv_msghdr_prepend_creds: review h-attack53), so a receiver
 * with SO_PASSCRED learns the sender the kernel would name (ours gave pid 0
 * inside the run, and our own pid outside it: review h-realprog2; systemd
 * refuses an sd_notify from a pid not the service's). With descriptors
 * ours stay: naming the caller there would lift the in-flight limit
 * (sv_caps_raise_for_creds). The agent's own SCM_CREDENTIALS were refused
 * before this as a control message. Returns cm->control, or a new buffer
 * also in *owned (the caller frees it and sends it with sv_mediate_send,
 * raised), with its length in *len. */
static void *with_caller_creds(struct copied_msg *cm, int have_cr, const struct ucred *cr,
			       size_t ndups, void **owned, size_t *len)
{
	*owned = NULL;
	*len = cm->m.controllen;
	if (have_cr && ndups == 0 &&
	    sv_msghdr_prepend_creds(cm->control, cm->m.controllen, cr->pid, cr->uid, cr->gid, owned,
				    len) == 0)
		return *owned;
	return cm->control;
}

/* What send_copied and send_batch answer besides the kernel's result, one
 * meaning each (review h-style2; SV_SEND_FINISHED, the call finished, is
 * sv_mediate_send's too). */
#define SENT_INVALID (-3LL)
#define SENT_REFUSED (-4LL)

/* Sends one copied message on the prepared duplicate. Returns the kernel's
 * result with *err; SENT_INVALID with *invalid and *err for the agent's own
 * mistake the kernel finds while sending (a payload where nothing can be
 * mapped, a datagram over the cap, a closed or too many descriptors to
 * pass), nothing sent or finished; SENT_REFUSED with *invalid the denial's
 * reason when the socket's device, judged last (sv_call_device_last),
 * refuses the destination, nothing sent or finished; or SV_SEND_FINISHED
 * with the call finished (a copy or a descriptor duplication failed). */
static long long send_copied(struct sv_call *c, struct copied_msg *cm, int flags, int *err,
			     const char **invalid)
{
	struct msghdr mh = {0};
	struct iovec one;
	const void *name = cm->name;
	uint32_t namelen = cm->m.namelen;
	unsigned char *payload = NULL;
	int *dups = NULL, getfd_err = 0, lookup_err = 0, rc, quiet;
	void *owned = NULL;
	size_t ndups = 0, clen;
	struct ucred cr = {0};
	int have_cr;
	long long n, fo;
	ssize_t sent;

	if (cm->too_many_fds && c->domain == AF_UNIX) {
		/* scm_fp_copy's answer, before the data or any descriptor is
		 * looked at. */
		*invalid = "bad-msghdr";
		*err = EINVAL;
		return SENT_INVALID;
	}
	n = sv_call_read_payload(c, cm->iov, cm->m.iovlen, cm->total, &payload, invalid, err);
	if (n == SV_PAYLOAD_INVALID)
		return SENT_INVALID;
	if (n < 0)
		return SV_SEND_FINISHED;
	have_cr = sv_mediate_caller_creds(c, &cr);
	if (sv_call_still_valid(c)) {
		free(payload);
		return SV_SEND_FINISHED;
	}
	if (have_cr < 0) {
		free(payload);
		sv_call_mech_failure(c, "proc_status", -have_cr);
		return SV_SEND_FINISHED;
	}
	/* Descriptors are passed by AF_UNIX alone: every other family ignores
	 * SCM_RIGHTS without looking at the numbers (inet: __sock_cmsg_send)
	 * or refuses it first (netlink: __scm_send's EINVAL), so there the
	 * bytes go as they are. Translating them made a closed descriptor the
	 * agent's EBADF where the kernel sends (review h-attack5: a sendmmsg
	 * filed invalid, its later undeclared message hidden behind a pass). */
#ifdef SV_MUTANT_RIGHTS_ANY_FAMILY
	/* MUTANT rights-any-family: descriptors translated, and counted
	 * against SCM_MAX_FD, on every family, as before review h-attack5. */
	if (cm->control) {
#else
	if (cm->control && c->domain == AF_UNIX) {
#endif
		const char *mech = "pidfd_getfd";

		rc = sv_act_translate_rights(c->pidfd, c->check_tid, cm->control, cm->m.controllen,
					     &dups, &ndups, &getfd_err, &mech);
		if (rc < 0) {
			free(payload);
			if (rc == -ECANCELED && getfd_err == -EBADF) {
				*invalid = "bad-descriptor";
				*err = EBADF;
				return SENT_INVALID;
			}
			sv_call_mech_failure(c, rc == -ECANCELED ? mech : "pidfd_getfd",
					     rc == -ECANCELED ? -getfd_err : -rc);
			return SV_SEND_FINISHED;
		}
	}
	/* The device last, after every read of the agent's memory (review
	 * h-attack16); a name TCP ignores is no destination: the peer is. */
	if (sv_call_device_last(c, cm->m.namelen ? &cm->d : &(struct sv_dest){.kind = SV_DEST_NONE},
				invalid)) {
		free(payload);
		sv_act_free_dups(dups, ndups);
		return SV_SEND_FINISHED;
	}
	if (*invalid) {
		free(payload);
		sv_act_free_dups(dups, ndups);
		return SENT_REFUSED;
	}
	/* An AF_UNIX name last of all, as the act's own lookup. */
	c->peer_nowait = 0;
	if (cm->m.namelen &&
	    sv_unixpeer_judge(c, &cm->d, &name, &namelen, &cm->peer_why, invalid, &lookup_err)) {
		free(payload);
		sv_act_free_dups(dups, ndups);
		return SV_SEND_FINISHED;
	}
	if (*invalid || lookup_err) {
		free(payload);
		sv_act_free_dups(dups, ndups);
		*err = lookup_err;
		return *invalid ? SENT_REFUSED : -1;
	}
	rc = sv_call_fastopen_connect(c, cm->name, cm->m.namelen, &flags, &fo, err);
	if (rc == SV_FASTOPEN_FINISHED || rc == SV_FASTOPEN_ANSWERED) {
		free(payload);
		sv_act_free_dups(dups, ndups);
		return rc == SV_FASTOPEN_FINISHED ? SV_SEND_FINISHED : fo;
	}
	one.iov_base = payload;
	one.iov_len = (size_t)n;
	/* A fast-open send connected above goes to its peer, unnamed. */
	if (cm->m.namelen && sv_judge_sends_name(&cm->d) && rc != SV_FASTOPEN_UNNAMED) {
		mh.msg_name = (void *)name;
		mh.msg_namelen = namelen;
	}
	mh.msg_iov = &one;
	mh.msg_iovlen = 1;
	mh.msg_control = with_caller_creds(cm, have_cr, &cr, ndups, &owned, &clen);
	mh.msg_controllen = (socklen_t)clen;
	if (have_cr && ndups == 0 && !owned) {
		/* No memory for ours naming the caller: sent as it is, the
		 * receiver would read pid 0. */
		free(payload);
		sv_act_free_dups(dups, ndups);
		sv_call_mech_failure(c, "malloc", ENOMEM);
		return SV_SEND_FINISHED;
	}
	/* Never SIGPIPE the supervisor (the agent's SIGPIPE is forwarded), and
	 * never zero-copy from a buffer we free right after. */
	/* The raw call: musl's sendmsg() copies control data into a 1056-byte
	 * buffer and answers ENOMEM for more, a refusal the kernel never makes
	 * (review h-attack5: 254 descriptors on UDP came back ENOMEM). The
	 * bytes are the kernel's layout already, checked by the walk. */
	quiet = (flags & ~MSG_ZEROCOPY) | MSG_NOSIGNAL;
	sv_call_note_held(c, flags);
	sent = sv_mediate_send(c, &mh, quiet, name, namelen, owned != NULL, cm->control,
			       cm->m.controllen);
	*err = sent < 0 ? errno : 0;
	free(owned);
	if (sent == SV_SEND_FINISHED) {
		free(payload);
		sv_act_free_dups(dups, ndups);
		return SV_SEND_FINISHED;
	}
	free(payload);
	sv_act_free_dups(dups, ndups);
	sv_call_forward_sigpipe(c, flags, *err);
	return sent;
}

void sv_mediate_sendmsg(struct sv_call *c, const __u64 *a)
{
	unsigned char raw[SV_MSGHDR_SIZE];
	struct copied_msg cm = {0};
	const char *deny, *why = NULL, *invalid = NULL;
	long long rc;
	int err = 0;
	enum sv_read st;

	if (sv_call_read(c, a[1], raw, sizeof(raw)))
		return;
	st = copy_msg(c, raw, &cm, &err);
	if (cm.m.namelen)
		sv_call_note_dest(c, cm.name, cm.m.namelen, &cm.d);
	if (st == SV_READ_FAULT)
		sv_call_finish(c, SV_INVALID, err == EFAULT ? "bad-address" : "bad-msghdr",
			       SV_ACT_ERRNO, err, 0);
	if (st != SV_READ_OK || sv_call_decide(c, (int)a[0], &cm.d, 0, refusal(&cm), &deny, &why))
		goto out;
#ifdef SV_MUTANT_SENDMSG_FORWARD
	/* MUTANT sendmsg-forward: a name we cannot parse goes to the kernel. */
	if (deny && strcmp(deny, "policy") != 0) {
		sv_call_finish(c, SV_ALLOWED, "forwarded", SV_ACT_CONTINUE, 0, 0);
		goto out;
	}
#endif
	if (deny && !refusal(&cm) && cm.m.namelen &&
	    sv_call_tcp_ignores_name(c, (int)a[0], (int)a[2])) {
		/* The kernel ignores this name: so do we (no false denial). */
		deny = NULL;
		why = "tcp-ignores-name";
		cm.m.namelen = 0;
	}
	if (deny) {
		sv_call_finish(c, SV_DENIED, deny, SV_ACT_ERRNO, sv_call_denial_errno(c), 0);
		goto out;
	}
	if (cm.bad_control) {
		sv_call_finish(c, SV_INVALID, "bad-msghdr", SV_ACT_ERRNO, EINVAL, 0);
		goto out;
	}
	rc = send_copied(c, &cm, (int)a[2], &err, &invalid);
	if (rc == SENT_REFUSED)
		sv_call_finish(c, SV_DENIED, invalid, SV_ACT_ERRNO, sv_call_denial_errno(c), 0);
	else if (rc == SENT_INVALID)
		sv_call_finish(c, SV_INVALID, invalid, SV_ACT_ERRNO, err, 0);
	else if (rc != SV_SEND_FINISHED)
		sv_call_answer_performed(c, cm.peer_why ? cm.peer_why : why, rc, err);
out:
	copied_free(&cm);
}

/* Copies and judges up to vlen messages into cms / the event's message list.
 * Returns how many were copied (it stops at the first one with bad
 * arguments, with the kernel's errno in *err; a malformed control message
 * is no such stop), or -1 with the call finished. *first_denied is the
 * index of the first denied message, or the count when none was. */
static long judge_batch(struct sv_call *c, const unsigned char *raw, size_t vlen,
			struct copied_msg *cms, int *err, size_t *first_denied)
{
	size_t n = 0;

	for (; n < vlen; n++) {
		enum sv_read st = copy_msg(c, raw + n * SV_MMSGHDR_SIZE, &cms[n], err);

		if (st == SV_READ_FINISHED)
			return -1;
		if (st == SV_READ_FAULT)
			break;
#ifdef SV_MUTANT_MMSG_STOP_AT_BAD_CONTROL
		/* MUTANT mmsg-stop-at-bad-control: the messages after a
		 * malformed control are never judged, as before review
		 * h-attack5. */
		if (cms[n].bad_control) {
			*err = EINVAL;
			n++;
			break;
		}
#endif
		/* A malformed control message stops the kernel's batch only
		 * where the protocol walks it, and UDP does not when the
		 * socket holds a pending datagram (MSG_MORE, UDP_CORK: it
		 * appends, and the next message goes to its own name): every
		 * message after it is judged too (review h-attack5: a corked
		 * socket's undeclared next message was never judged, the call
		 * filed invalid, pass). */
	}
	*first_denied = n;
	if (n == 0)
		return 0;
	c->ev.msgs = calloc(n, sizeof(*c->ev.msgs));
	if (!c->ev.msgs) {
		sv_call_mech_failure(c, "malloc", ENOMEM);
		return -1;
	}
	c->ev.nmsgs = n;
	for (size_t i = 0; i < n; i++) {
		struct sv_msg_event *me = &c->ev.msgs[i];
		const char *why = NULL, *deny = refusal(&cms[i]);
		char num[12];

		if (!deny)
			deny = sv_judge_name(c->pol, &cms[i].d, 0, &why);

		if (cms[i].d.kind != SV_DEST_NONE) {
			strncpy(me->family, sv_dest_family_name(&cms[i].d, num, sizeof(num)),
				sizeof(me->family) - 1);
			if (sv_dest_format(&cms[i].d, cms[i].name, cms[i].m.namelen, me->dest,
					   sizeof(me->dest)) < 0)
				strcpy(me->dest, "?");
		}
		me->denied = deny != NULL;
		me->reason = deny ? deny : why;
		if (deny && *first_denied == n) {
			*first_denied = i;
			c->decided_denial = deny;
		}
	}
	/* Only what is to be sent needs the socket: a batch denied from its
	 * first message is refused without a duplicate, like a single call. */
	if (*first_denied == 0)
		return sv_call_denial_valid(c, c->ev.msgs[0].reason) ? -1 : (long)n;
	if (sv_call_prepare(c, (int)c->req->data.args[0]))
		return -1;
	/* The device is judged when each message is sent (send_copied). */
	for (size_t i = 0; i < *first_denied; i++) {
		const char *deny = sv_judge_domain(c->domain, &cms[i].d, 0);

		if (deny) {
			c->ev.msgs[i].denied = 1;
			c->ev.msgs[i].reason = deny;
			*first_denied = i;
			c->decided_denial = deny;
		}
	}
	return (long)n;
}

/* Sends messages [0, upto) and writes each one's byte count back into the
 * agent's vector, as the kernel does. Returns the number sent; SENT_INVALID
 * with *invalid and *err when the first message is the agent's own mistake
 * (send_copied), nothing finished; or SV_SEND_FINISHED with the call
 * finished. *err is
 * the error that stopped it (0 when none). A message whose device is
 * judged denied when it is sent stops the batch there as a judged denial
 * (*first_denied becomes its index). */
static long send_batch(struct sv_call *c, struct copied_msg *cms, size_t upto, int *err,
		       const char **invalid, size_t *first_denied)
{
	const __u64 *a = c->req->data.args;
	size_t sent = 0;

	*err = 0;
	for (; sent < upto; sent++) {
		const char *mech = NULL;
		uint32_t len32;
		long long rc =
		    send_copied(c, &cms[sent], (int)a[3] & ~MSG_WAITFORONE, err, invalid);
		int werr;

		if (rc == SV_SEND_FINISHED)
			return SV_SEND_FINISHED;
		if (cms[sent].peer_why)
			c->ev.msgs[sent].reason = cms[sent].peer_why;
		if (rc == SENT_REFUSED) {
			c->ev.msgs[sent].denied = 1;
			c->ev.msgs[sent].reason = *invalid;
			c->decided_denial = *invalid;
			*first_denied = sent;
			*invalid = NULL;
			*err = 0;
			break;
		}
#ifndef SV_MUTANT_MMSG_LATE_INVALID
		/* A later message's own mistake stops the kernel's batch there,
		 * and it answers the count sent before it (review h-attack5:
		 * finished as invalid, the agent was told EFAULT or EBADF
		 * after messages had gone). */
		if (rc == SENT_INVALID && sent > 0) {
			c->ev.msgs[sent].err = *err;
			break;
		}
#endif
		if (rc == SENT_INVALID)
			return SENT_INVALID;
		if (rc < 0) {
			c->ev.msgs[sent].err = *err;
			break;
		}
#ifndef SV_MUTANT_MMSG_LEN_UNSENT
		/* It went, whatever becomes of its msg_len: a vector the
		 * kernel cannot write back to (read-only) still sends the
		 * message, uncounted (review h-attack6: recorded as not sent
		 * while the datagram arrived). */
		c->ev.msgs[sent].sent = 1;
#endif
		len32 = (uint32_t)rc;
		werr = sv_target_write(c->req->pid, a[1] + sent * SV_MMSGHDR_SIZE + SV_MSGHDR_SIZE,
				       &len32, sizeof(len32), &mech);
		if (werr == -EFAULT) {
			/* The kernel stops there too, without counting it. */
			*err = EFAULT;
			c->ev.msgs[sent].err = EFAULT;
			break;
		}
		if (werr) {
			sv_call_mech_failure(c, mech, -werr);
			return SV_SEND_FINISHED;
		}
#ifdef SV_MUTANT_MMSG_LEN_UNSENT
		/* MUTANT mmsg-len-unsent: a message counts as sent only once
		 * its msg_len is written back, as before review h-attack6. */
		c->ev.msgs[sent].sent = 1;
#endif
	}
	return (long)sent;
}

void sv_mediate_sendmmsg(struct sv_call *c, const __u64 *a)
{
	/* The kernel takes vlen as unsigned int and clamps it to UIO_MAXIOV. */
	uint32_t vlen32 = (uint32_t)a[2];
	size_t vlen = vlen32 > SV_UIO_MAXIOV ? SV_UIO_MAXIOV : vlen32, first_denied = 0;
	unsigned char *raw = NULL;
	struct copied_msg *cms = NULL;
	long n, sent;
	int err = 0, any_denied, rc;
	const char *invalid = NULL;
	size_t readable, upto;

	if (vlen == 0) {
		/* Nothing is read from memory for an empty batch. */
		sv_call_finish(c, SV_ALLOWED, "empty", SV_ACT_CONTINUE, 0, 0);
		return;
	}
	raw = malloc(vlen * SV_MMSGHDR_SIZE);
	cms = calloc(vlen, sizeof(*cms));
	if (!raw || !cms) {
		sv_call_mech_failure(c, "malloc", ENOMEM);
		goto out;
	}
	rc = sv_call_read_or_fault(c, a[1], raw, vlen * SV_MMSGHDR_SIZE);
	if (rc == SV_READ_FAULT) {
		/* The kernel copies the vector one msghdr at a time (not the
		 * msg_len after it, which it writes after the send): those
		 * before the first it cannot read are sent (a vector that runs
		 * past the user address space, with 5-level paging). A
		 * msg_len it cannot write stops send_batch as it stops the
		 * kernel. */
		for (readable = 0; readable < vlen; readable++) {
			rc =
			    sv_call_read_or_fault(c, a[1] + readable * SV_MMSGHDR_SIZE,
						  raw + readable * SV_MMSGHDR_SIZE, SV_MSGHDR_SIZE);
			if (rc != SV_READ_OK)
				break;
		}
		vlen = readable;
		err = EFAULT;
		rc = rc == SV_READ_FINISHED ? SV_READ_FINISHED : SV_READ_OK;
	}
	if (rc == SV_READ_FINISHED)
		goto out;
	n = vlen ? judge_batch(c, raw, vlen, cms, &err, &first_denied) : 0;
	if (n < 0)
		goto out;
	if (n == 0) {
		sv_call_finish(c, SV_INVALID, err == EFAULT ? "bad-address" : "bad-msghdr",
			       SV_ACT_ERRNO, err, 0);
		goto out;
	}
	any_denied = first_denied < (size_t)n;
	if (first_denied == 0) {
		sv_call_finish(c, SV_DENIED, c->ev.msgs[0].reason, SV_ACT_ERRNO,
			       sv_call_denial_errno(c), 0);
		goto out;
	}
	upto = first_denied;
	for (size_t i = 0; i < upto; i++) {
		if (!cms[i].bad_control)
			continue;
		/* Sent up to a malformed control: the kernel sends the
		 * messages before it and answers EINVAL for it (on a corked
		 * socket it would go on: a denial after it still decides the
		 * bucket). */
		c->ev.msgs[i].err = EINVAL;
		upto = i;
		break;
	}
	if (upto == 0) {
		/* A later message judged denied makes this a denial
		 * (c->decided_denial, in sv_call_finish). */
		sv_call_finish(c, SV_INVALID, "bad-msghdr", SV_ACT_ERRNO, EINVAL, 0);
		goto out;
	}
	sent = send_batch(c, cms, upto, &err, &invalid, &first_denied);
	if (sent == SV_SEND_FINISHED)
		goto out;
	any_denied = first_denied < (size_t)n;
	if (sent == 0 && first_denied == 0) {
		/* Its first message's device was denied: nothing went. */
		sv_call_finish(c, SV_DENIED, c->ev.msgs[0].reason, SV_ACT_ERRNO,
			       sv_call_denial_errno(c), 0);
		goto out;
	}
	if (sent == SENT_INVALID) {
		/* The first message failed at send time: nothing was sent and
		 * the kernel's error is the call's, unless a later message was
		 * judged denied (c->decided_denial: sv_call_finish records the
		 * denial). */
		sv_call_finish(c, SV_INVALID, invalid, SV_ACT_ERRNO, err, 0);
		goto out;
	}
	if (sv_call_device_changed(c, 0)) {
		sv_call_mech_failure(c, "device-binding", ESTALE);
		goto out;
	}
	{
		int cerr = sv_act_close_dup(c->dup);
		const char *reason = any_denied ? c->ev.msgs[first_denied].reason : "policy";

		c->dup = -1;
		if (cerr)
			sv_call_mech_failure(c, "dup_close", -cerr);
		else if (sent == 0)
			sv_call_finish(c, any_denied ? SV_DENIED : SV_ALLOWED, reason,
				       SV_ACT_PERFORMED, err, 0);
		else
			sv_call_finish(c, any_denied ? SV_DENIED : SV_ALLOWED, reason,
				       SV_ACT_PERFORMED, 0, sent);
	}
out:
	if (cms)
		for (size_t i = 0; i < vlen; i++)
			copied_free(&cms[i]);
	free(cms);
	free(raw);
}
