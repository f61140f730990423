#include "mediate.h"

#include <errno.h>
#include <linux/audit.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "act.h"
#include "msghdr.h"
#include "notify.h"
#include "report.h"
#include "sockaddr.h"
#include "target.h"

#define X32_SYSCALL_BIT 0x40000000u
/* Payloads the supervisor copies and sends itself. Larger datagrams than
 * this do not exist on IP (65507) or, with default buffers, on AF_UNIX; a
 * stream send may legally be short. */
#define PAYLOAD_CAP (256u * 1024u)
/* net.core.optmem_max's default: the kernel refuses larger control data. */
#define CONTROL_CAP (64u * 1024u)

/* Answers given by the supervisor itself (see docs/design.md). */
#define ERR_DENIED EACCES
#define ERR_MECHANISM EPERM

struct call {
	int listener;
	const struct seccomp_notif *req;
	const struct sv_policy *pol;
	struct sv_event ev;
	int done;
};

/* Every path through sv_mediate ends here exactly once: answer, then record.
 * A notification that died before the answer is recorded as abandoned. */
static void finish(struct call *c, enum sv_bucket bucket, const char *reason, enum sv_action action,
		   int err, long long val)
{
	struct seccomp_notif_resp resp = {.id = c->req->id};
	int rc;

	if (action == SV_ACT_CONTINUE)
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	else if (err)
		resp.error = -err;
	else
		resp.val = val;
#ifdef SV_MUTANT_FAILURE_AS_DENIAL
	/* MUTANT failure-as-denial: a blind supervisor reports fail. */
	if (bucket == SV_MECH_FAILURE)
		bucket = SV_DENIED;
#endif
	c->ev.bucket = bucket;
	c->ev.reason = reason;
	c->ev.action = action;
	c->ev.err = action == SV_ACT_CONTINUE ? 0 : err;
	c->ev.result = err ? -1 : val;
	if (action != SV_ACT_NONE) {
		rc = sv_notify_send(c->listener, &resp);
		if (rc == -ENOENT) {
			c->ev.bucket = SV_ABANDONED;
			c->ev.action = SV_ACT_NONE;
			c->ev.reason =
			    bucket == SV_DENIED ? "died-before-denial" : "died-before-answer";
		} else if (rc < 0) {
			/* We cannot answer at all: the agent's thread stays blocked, so the
			 * run has to end. */
			c->ev.bucket = SV_MECH_FAILURE;
			c->ev.mechanism = "send";
			c->ev.mech_err = -rc;
			c->ev.action = SV_ACT_NONE;
			sv_notify_fatal();
		}
	}
	c->done = 1;
	sv_report_record(&c->ev);
}

/* A mechanism call failed. If the notification is already dead the failure is
 * only the target going away: abandoned. Otherwise the host took access away
 * (or the kernel lacks the call): a mechanism failure, never a quiet EPERM. */
static void mech_failure(struct call *c, const char *mechanism, int err)
{
	int rc = sv_notify_id_valid(c->listener, c->req->id);

	c->ev.mechanism = mechanism;
	c->ev.mech_err = err;
	if (rc == -ENOENT) {
		finish(c, SV_ABANDONED, "target-gone", SV_ACT_NONE, 0, 0);
		return;
	}
	finish(c, SV_MECH_FAILURE, "mechanism", SV_ACT_ERRNO, ERR_MECHANISM, 0);
}

/* Copies agent memory; on failure the call is finished (invalid for an
 * unmapped address, else a mechanism failure) and -1 returned. */
static int read_agent(struct call *c, uint64_t addr, void *buf, size_t len)
{
	const char *mech = NULL;
	int rc = sv_target_read(c->req->pid, addr, buf, len, &mech);

	if (rc == 0)
		return 0;
	if (rc == -EFAULT) {
		finish(c, SV_INVALID, "bad-address", SV_ACT_ERRNO, EFAULT, 0);
		return -1;
	}
#ifdef SV_MUTANT_SILENT_EPERM
	/* MUTANT silent-eperm: the original false green. */
	{
		struct seccomp_notif_resp resp = {.id = c->req->id, .error = -EPERM};

		sv_notify_send(c->listener, &resp);
		c->done = 1;
		return -1;
	}
#endif
	mech_failure(c, mech, -rc);
	return -1;
}

/* ID_VALID after the copy: the copy is from the thread that is still waiting,
 * not from a process that reused its pid. */
static int still_valid(struct call *c)
{
	int rc = sv_notify_id_valid(c->listener, c->req->id);

	if (rc == 0)
		return 0;
	if (rc == -ENOENT)
		finish(c, SV_ABANDONED, "target-gone", SV_ACT_NONE, 0, 0);
	else
		mech_failure(c, "id_valid", -rc);
	return -1;
}

static void set_dest(struct sv_event *ev, const struct sv_dest *d, const void *buf, size_t len)
{
	char num[12];
	const char *fam;

	if (d->kind == SV_DEST_NONE)
		return;
	fam = sv_dest_family_name(d, num, sizeof(num));
	strncpy(ev->family, fam, sizeof(ev->family) - 1);
	if (sv_dest_format(d, buf, len, ev->dest, sizeof(ev->dest)) < 0)
		strcpy(ev->dest, "?");
}

/* The policy decision on a decoded destination. Returns NULL when allowed
 * (*why says why), else the denial reason. */
static const char *judge(const struct sv_policy *pol, const struct sv_dest *d, int is_connect,
			 const char **why)
{
	switch (d->kind) {
	case SV_DEST_NONE:
		*why = "connected-peer";
		return NULL;
	case SV_DEST_INET:
		*why = "policy";
		return sv_policy_allows(pol, &d->addr, d->port) ? NULL : "policy";
	case SV_DEST_UNSPEC:
		/* connect(AF_UNSPEC) disconnects. A send with an AF_UNSPEC name is
		 * not harmless: UDP reads it as an AF_INET address. */
		*why = "disconnect";
		return is_connect ? NULL : "unsupported-family";
	case SV_DEST_UNIX:
	case SV_DEST_NETLINK:
		*why = "local";
		return NULL;
	case SV_DEST_UNSUPPORTED:
		return "unsupported-family";
	case SV_DEST_MALFORMED:
		return "malformed";
	}
	return "malformed";
}

/* Opens a pidfd for the notifying thread's process. Returns it, or -1 with the
 * call finished. The caller's ID_VALID after this proves that the pidfd names
 * the process whose thread is still waiting (not one that reused its pid). */
static int open_pidfd(struct call *c)
{
	int pidfd = sv_act_pidfd_open(c->req->pid);

	if (pidfd < 0) {
		mech_failure(c, "pidfd_open", -pidfd);
		return -1;
	}
	return pidfd;
}

/* Duplicates the agent's socket through a pidfd that ID_VALID has vouched
 * for. Returns the fd, or -1 with the call finished. */
static int dup_socket(struct call *c, int pidfd, int agent_fd)
{
	int dup = sv_act_getfd(pidfd, agent_fd);

	if (dup == -EBADF) {
		finish(c, SV_INVALID, "bad-descriptor", SV_ACT_ERRNO, EBADF, 0);
		return -1;
	}
	if (dup < 0) {
		mech_failure(c, "pidfd_getfd", -dup);
		return -1;
	}
	return dup;
}

/* Closes the duplicate and answers with the performed call's result. */
static void answer_performed(struct call *c, int dup, const char *why, long long rc, int err)
{
	int cerr = sv_act_close_dup(dup);

	if (cerr) {
		mech_failure(c, "dup_close", -cerr);
		return;
	}
	finish(c, SV_ALLOWED, why, SV_ACT_PERFORMED, rc < 0 ? err : 0, rc < 0 ? 0 : rc);
}

static int read_name(struct call *c, uint64_t addr, int64_t len, unsigned char *buf,
		     struct sv_dest *d)
{
	if (len < 0 || len > SV_SOCKADDR_MAX) {
		finish(c, SV_INVALID, "bad-length", SV_ACT_ERRNO, EINVAL, 0);
		return -1;
	}
	if (len > 0 && read_agent(c, addr, buf, (size_t)len))
		return -1;
	sv_sockaddr_decode(buf, (size_t)len, 0, d);
	set_dest(&c->ev, d, buf, (size_t)len);
	return 0;
}

static void on_connect(struct call *c, const __u64 *a)
{
	unsigned char name[SV_SOCKADDR_MAX];
	struct sv_dest d;
	const char *deny, *why;
	int64_t len = (int32_t)a[2];
	int dup, rc, pidfd = -1;

	/* Every family's connect answers EINVAL below sizeof(sa_family_t). */
	if (len >= 0 && len < 2) {
		finish(c, SV_INVALID, "bad-length", SV_ACT_ERRNO, EINVAL, 0);
		return;
	}
	if (read_name(c, a[1], len, name, &d) || (pidfd = open_pidfd(c)) < 0)
		return;
	if (still_valid(c))
		goto out;
	deny = judge(c->pol, &d, 1, &why);
	if (deny) {
		finish(c, SV_DENIED, deny, SV_ACT_ERRNO, ERR_DENIED, 0);
		goto out;
	}
#ifdef SV_MUTANT_CONTINUE_CONNECT
	/* MUTANT continue-connect: the kernel re-reads the agent's memory. */
	finish(c, SV_ALLOWED, why, SV_ACT_CONTINUE, 0, 0);
	goto out;
#endif
	dup = dup_socket(c, pidfd, (int)a[0]);
	if (dup < 0)
		goto out;
	/* The verified copy, never the agent's memory: this is why CONTINUE is
	 * not an answer here. */
	rc = connect(dup, (struct sockaddr *)name, (socklen_t)len);
	answer_performed(c, dup, why, rc, rc < 0 ? errno : 0);
out:
	sv_act_close_quiet(pidfd);
}

/* Copies a payload of len bytes for a send the supervisor performs. Returns
 * the bytes to send, or -1 with the call finished. A stream may be sent
 * short; a datagram larger than the cap is answered EMSGSIZE. */
static long long read_payload(struct call *c, int dup, const struct sv_iov *iov, size_t niov,
			      uint64_t total, unsigned char **out)
{
	int type = 0;
	socklen_t tl = sizeof(type);
	size_t want = total > PAYLOAD_CAP ? PAYLOAD_CAP : (size_t)total, got = 0;
	unsigned char *buf;

	if (total > PAYLOAD_CAP &&
	    (getsockopt(dup, SOL_SOCKET, SO_TYPE, &type, &tl) != 0 || type != SOCK_STREAM)) {
		finish(c, SV_INVALID, "too-large", SV_ACT_ERRNO, EMSGSIZE, 0);
		return -1;
	}
	buf = malloc(want ? want : 1);
	if (!buf) {
		mech_failure(c, "malloc", ENOMEM);
		return -1;
	}
	for (size_t i = 0; i < niov && got < want; i++) {
		size_t n = iov[i].len > want - got ? want - got : (size_t)iov[i].len;

		if (n && read_agent(c, iov[i].base, buf + got, n)) {
			free(buf);
			return -1;
		}
		got += n;
	}
	*out = buf;
	return (long long)got;
}

static void on_sendto(struct call *c, const __u64 *a)
{
	unsigned char name[SV_SOCKADDR_MAX], *payload = NULL;
	struct sv_dest d;
	struct sv_iov iov = {.base = a[1], .len = a[2]};
	const char *deny, *why;
	int64_t len = (int32_t)a[5];
	long long n;
	ssize_t rc;
	int dup, pidfd = -1;

	/* No destination in memory: everything the kernel will use is in
	 * registers, and the socket's peer was mediated when it connected. */
	if (a[4] == 0) {
		finish(c, SV_ALLOWED, "connected-peer", SV_ACT_CONTINUE, 0, 0);
		return;
	}
	if (read_name(c, a[4], len, name, &d) || (pidfd = open_pidfd(c)) < 0)
		return;
	if (still_valid(c))
		goto out;
	deny = judge(c->pol, &d, 0, &why);
	if (deny) {
		finish(c, SV_DENIED, deny, SV_ACT_ERRNO, ERR_DENIED, 0);
		goto out;
	}
	dup = dup_socket(c, pidfd, (int)a[0]);
	if (dup < 0)
		goto out;
	/* Copied only once the destination is allowed, and vouched for by a
	 * second ID_VALID like every copy. */
	n = read_payload(c, dup, &iov, 1, iov.len, &payload);
	if (n < 0 || still_valid(c)) {
		free(payload);
		sv_act_close_quiet(dup);
		goto out;
	}
	rc = sendto(dup, payload, (size_t)n, (int)a[3] | MSG_NOSIGNAL, (struct sockaddr *)name,
		    (socklen_t)len);
	free(payload);
	answer_performed(c, dup, why, rc, rc < 0 ? errno : 0);
out:
	sv_act_close_quiet(pidfd);
}

/* One message copied out of the agent, ready to send from our memory. */
struct copied_msg {
	struct sv_msg m;
	unsigned char name[SV_SOCKADDR_MAX];
	struct sv_dest d;
	struct sv_iov *iov;
	uint64_t total;
	unsigned char *control;
};

static void copied_free(struct copied_msg *cm)
{
	free(cm->iov);
	free(cm->control);
	cm->iov = NULL;
	cm->control = NULL;
}

/* Decodes a msghdr and copies its name. Returns 0, 1 for the agent's own bad
 * arguments (*err set, nothing finished), or -1 with the call finished. */
static int copy_msg_head(struct call *c, const void *raw, struct copied_msg *cm, int *err)
{
	int rc = sv_msghdr_decode(raw, SV_MSGHDR_SIZE, &cm->m);

	memset(&cm->d, 0, sizeof(cm->d));
	if (rc < 0) {
		*err = -rc;
		return 1;
	}
	if (!cm->m.name || !cm->m.namelen) {
		/* The kernel treats a name of length 0 as no name at all. */
		sv_sockaddr_decode(NULL, 0, 1, &cm->d);
		cm->m.namelen = 0;
		return 0;
	}
	return read_agent(c, cm->m.name, cm->name, cm->m.namelen) ? -1 : 0;
}

/* Copies iovecs and control data. Returns 0, 1 (*err set), or -1 finished. */
static int copy_msg_body(struct call *c, struct copied_msg *cm, int *err)
{
	int rc;

	if (cm->m.controllen > CONTROL_CAP) {
		*err = ENOBUFS;
		return 1;
	}
	if (cm->m.iovlen) {
		unsigned char *raw = malloc(cm->m.iovlen * 16);

		cm->iov = calloc(cm->m.iovlen, sizeof(*cm->iov));
		if (!raw || !cm->iov) {
			free(raw);
			mech_failure(c, "malloc", ENOMEM);
			return -1;
		}
		if (read_agent(c, cm->m.iov, raw, cm->m.iovlen * 16)) {
			free(raw);
			return -1;
		}
		rc = sv_msghdr_decode_iov(raw, cm->m.iovlen, cm->iov, &cm->total);
		free(raw);
		if (rc < 0) {
			*err = -rc;
			return 1;
		}
	}
	if (cm->m.controllen) {
		cm->control = malloc(cm->m.controllen);
		if (!cm->control) {
			mech_failure(c, "malloc", ENOMEM);
			return -1;
		}
		if (read_agent(c, cm->m.control, cm->control, cm->m.controllen))
			return -1;
	}
	return 0;
}

/* Sends one copied message on the duplicate. Returns the kernel's result and
 * sets *err; -2 when the call was finished on the way (a read failed). */
static long long send_copied(struct call *c, int dup, int pidfd, struct copied_msg *cm, int flags,
			     int *err)
{
	struct msghdr mh = {0};
	struct iovec one;
	unsigned char *payload = NULL;
	int *dups = NULL;
	size_t ndups = 0;
	long long n;
	ssize_t rc;

	n = read_payload(c, dup, cm->iov, cm->m.iovlen, cm->total, &payload);
	if (n < 0)
		return -2;
	if (still_valid(c)) {
		free(payload);
		return -2;
	}
	if (cm->control) {
		int trc =
		    sv_act_translate_rights(pidfd, cm->control, cm->m.controllen, &dups, &ndups);
		if (trc < 0) {
			free(payload);
			*err = -trc;
			return -1;
		}
	}
	one.iov_base = payload;
	one.iov_len = (size_t)n;
	mh.msg_name = cm->m.namelen ? cm->name : NULL;
	mh.msg_namelen = cm->m.namelen;
	mh.msg_iov = &one;
	mh.msg_iovlen = 1;
	mh.msg_control = cm->control;
	mh.msg_controllen = cm->m.controllen;
	/* Never SIGPIPE the supervisor; the agent still gets EPIPE. */
	rc = sendmsg(dup, &mh, flags | MSG_NOSIGNAL);
	*err = rc < 0 ? errno : 0;
	free(payload);
	sv_act_free_dups(dups, ndups);
	return rc;
}

static void on_sendmsg(struct call *c, const __u64 *a)
{
	unsigned char raw[SV_MSGHDR_SIZE];
	struct copied_msg cm = {0};
	const char *deny, *why;
	long long rc;
	int err = 0, dup, pidfd = -1, st;

	if (read_agent(c, a[1], raw, sizeof(raw)))
		return;
	st = copy_msg_head(c, raw, &cm, &err);
	if (st == 0 && cm.m.namelen) {
		sv_sockaddr_decode(cm.name, cm.m.namelen, 0, &cm.d);
		set_dest(&c->ev, &cm.d, cm.name, cm.m.namelen);
	}
	if (st == 0)
		st = copy_msg_body(c, &cm, &err);
	if (st == 1)
		finish(c, SV_INVALID, "bad-msghdr", SV_ACT_ERRNO, err, 0);
	if (st != 0 || (pidfd = open_pidfd(c)) < 0 || still_valid(c))
		goto out;
	deny = judge(c->pol, &cm.d, 0, &why);
#ifdef SV_MUTANT_SENDMSG_FORWARD
	/* MUTANT sendmsg-forward: a name we cannot parse goes to the kernel. */
	if (deny && strcmp(deny, "policy") != 0) {
		finish(c, SV_ALLOWED, "forwarded", SV_ACT_CONTINUE, 0, 0);
		goto out;
	}
#endif
	if (deny) {
		finish(c, SV_DENIED, deny, SV_ACT_ERRNO, ERR_DENIED, 0);
		goto out;
	}
	dup = dup_socket(c, pidfd, (int)a[0]);
	if (dup < 0)
		goto out;
	rc = send_copied(c, dup, pidfd, &cm, (int)a[2], &err);
	if (rc == -2) {
		sv_act_close_quiet(dup);
		goto out;
	}
	if (rc < 0 && err == EPERM && cm.control) {
		/* SCM_CREDENTIALS: we would send our own credentials. */
		sv_act_close_quiet(dup);
		finish(c, SV_DENIED, "credentials", SV_ACT_ERRNO, ERR_DENIED, 0);
		goto out;
	}
	answer_performed(c, dup, why, rc, err);
out:
	sv_act_close_quiet(pidfd);
	copied_free(&cm);
}

static void on_sendmmsg(struct call *c, const __u64 *a)
{
	uint64_t vlen = a[2] > SV_UIO_MAXIOV ? SV_UIO_MAXIOV : (uint32_t)a[2];
	unsigned char *raw = NULL;
	struct copied_msg *cms = NULL;
	size_t first_denied = (size_t)vlen, sent = 0;
	int dup = -1, pidfd = -1, err = 0, bad = 0;
	long long rc = 0;

	if (vlen == 0) {
		/* Nothing is read from memory for an empty batch. */
		finish(c, SV_ALLOWED, "empty", SV_ACT_CONTINUE, 0, 0);
		return;
	}
	raw = malloc(vlen * SV_MMSGHDR_SIZE);
	cms = calloc(vlen, sizeof(*cms));
	c->ev.msgs = calloc(vlen, sizeof(*c->ev.msgs));
	if (!raw || !cms || !c->ev.msgs) {
		mech_failure(c, "malloc", ENOMEM);
		goto out;
	}
	c->ev.nmsgs = (size_t)vlen;
	if (read_agent(c, a[1], raw, vlen * SV_MMSGHDR_SIZE))
		goto out;
	/* Judge every message, so the record shows each destination tried; only
	 * those before the first denied one are sent, as the kernel stops there. */
	for (size_t i = 0; i < vlen; i++) {
		struct sv_msg_event *me = &c->ev.msgs[i];
		const char *why, *deny;
		int st = copy_msg_head(c, raw + i * SV_MMSGHDR_SIZE, &cms[i], &err);

		if (st < 0)
			goto out;
		if (st == 1) {
			c->ev.nmsgs = i;
			bad = 1;
			break;
		}
		if (cms[i].m.namelen)
			sv_sockaddr_decode(cms[i].name, cms[i].m.namelen, 0, &cms[i].d);
		if (cms[i].d.kind != SV_DEST_NONE) {
			char num[12];

			strncpy(me->family, sv_dest_family_name(&cms[i].d, num, sizeof(num)),
				sizeof(me->family) - 1);
			if (sv_dest_format(&cms[i].d, cms[i].name, cms[i].m.namelen, me->dest,
					   sizeof(me->dest)) < 0)
				strcpy(me->dest, "?");
		}
		deny = judge(c->pol, &cms[i].d, 0, &why);
		me->denied = deny != NULL;
		me->reason = deny ? deny : why;
		if (deny && first_denied == vlen)
			first_denied = i;
	}
	if (bad && c->ev.nmsgs == 0) {
		finish(c, SV_INVALID, "bad-msghdr", SV_ACT_ERRNO, err, 0);
		goto out;
	}
	if (first_denied > c->ev.nmsgs)
		first_denied = c->ev.nmsgs;
	for (size_t i = 0; i < first_denied; i++) {
		int st = copy_msg_body(c, &cms[i], &err);

		if (st < 0)
			goto out;
		if (st == 1) {
			c->ev.msgs[i].err = err;
			first_denied = i;
			break;
		}
	}
	if ((pidfd = open_pidfd(c)) < 0 || still_valid(c))
		goto out;
	if (first_denied == 0 && c->ev.nmsgs > 0 && c->ev.msgs[0].denied) {
		finish(c, SV_DENIED, c->ev.msgs[0].reason, SV_ACT_ERRNO, ERR_DENIED, 0);
		goto out;
	}
	if (first_denied == 0) {
		finish(c, SV_INVALID, "bad-msghdr", SV_ACT_ERRNO, err ? err : EINVAL, 0);
		goto out;
	}
	dup = dup_socket(c, pidfd, (int)a[0]);
	if (dup < 0)
		goto out;
	for (sent = 0; sent < first_denied; sent++) {
		uint32_t len32;
		const char *mech = NULL;
		int werr;

		rc = send_copied(c, dup, pidfd, &cms[sent], (int)a[3] & ~MSG_WAITFORONE, &err);
		if (rc == -2) {
			sv_act_close_quiet(dup);
			dup = -1;
			goto out;
		}
		if (rc < 0) {
			c->ev.msgs[sent].err = err;
			break;
		}
		c->ev.msgs[sent].sent = 1;
		/* The kernel writes each message's byte count back into the vector. */
		len32 = (uint32_t)rc;
		werr = sv_target_write(c->req->pid, a[1] + sent * SV_MMSGHDR_SIZE + SV_MSGHDR_SIZE,
				       &len32, sizeof(len32), &mech);
		if (werr) {
			sv_act_close_quiet(dup);
			dup = -1;
			mech_failure(c, mech, -werr);
			goto out;
		}
	}
	{
		const char *reason = first_denied < c->ev.nmsgs && c->ev.msgs[first_denied].denied
					 ? c->ev.msgs[first_denied].reason
					 : "policy";
		int cerr = sv_act_close_dup(dup);
		int any_denied = first_denied < c->ev.nmsgs && c->ev.msgs[first_denied].denied;

		dup = -1;
		if (cerr) {
			mech_failure(c, "dup_close", -cerr);
			goto out;
		}
		if (sent == 0)
			finish(c, any_denied ? SV_DENIED : SV_ALLOWED, reason, SV_ACT_PERFORMED,
			       err, 0);
		else
			finish(c, any_denied ? SV_DENIED : SV_ALLOWED, reason, SV_ACT_PERFORMED, 0,
			       (long long)sent);
	}
out:
	sv_act_close_quiet(pidfd);
	if (cms)
		for (size_t i = 0; i < vlen; i++)
			copied_free(&cms[i]);
	free(cms);
	free(raw);
}

/* i386 and x32 calls are denied whatever their destination; reading it is
 * only for the record, so a failed read here changes nothing. */
static void note_foreign_dest(struct call *c, uint64_t addr, uint64_t len)
{
	unsigned char buf[SV_SOCKADDR_MAX];
	const char *mech;
	struct sv_dest d;

	if (!addr || len < 2 || len > sizeof(buf))
		return;
	if (sv_target_read(c->req->pid, addr, buf, (size_t)len, &mech) != 0)
		return;
	sv_sockaddr_decode(buf, (size_t)len, 0, &d);
	set_dest(&c->ev, &d, buf, (size_t)len);
}

static void on_foreign(struct call *c, int socketcall)
{
	const __u64 *a = c->req->data.args;
	uint32_t sa[6];
	const char *mech;

	if (!socketcall) {
		if (strcmp(c->ev.syscall, "connect") == 0)
			note_foreign_dest(c, a[1], a[2]);
		else if (strcmp(c->ev.syscall, "sendto") == 0)
			note_foreign_dest(c, a[4], a[5]);
	} else if ((a[0] == 3 || a[0] == 11) &&
		   sv_target_read(c->req->pid, a[1], sa, sizeof(sa), &mech) == 0) {
		/* socketcall's arguments are an array of 32-bit words in memory. */
		if (a[0] == 3)
			note_foreign_dest(c, sa[1], sa[2]);
		else
			note_foreign_dest(c, sa[4], sa[5]);
	}
	finish(c, SV_DENIED, "foreign-abi", SV_ACT_ERRNO, ERR_DENIED, 0);
}

static const char *socketcall_name(uint64_t call)
{
	switch (call) {
	case 3:
		return "socketcall(connect)";
	case 11:
		return "socketcall(sendto)";
	case 16:
		return "socketcall(sendmsg)";
	case 20:
		return "socketcall(sendmmsg)";
	default:
		return "socketcall";
	}
}

struct entry {
	int nr;
	const char *name;
	void (*native)(struct call *c, const __u64 *a);
};

/* Syscall numbers per ABI (arch/x86/entry/syscalls/syscall_{64,32}.tbl). */
static const struct entry native_table[] = {
    {42, "connect", on_connect},    {44, "sendto", on_sendto},     {46, "sendmsg", on_sendmsg},
    {307, "sendmmsg", on_sendmmsg}, {425, "io_uring_setup", NULL},
};
static const struct entry i386_table[] = {
    {102, "socketcall", NULL}, {362, "connect", NULL},  {369, "sendto", NULL},
    {370, "sendmsg", NULL},    {345, "sendmmsg", NULL}, {425, "io_uring_setup", NULL},
};
static const struct entry x32_table[] = {
    {42, "connect", NULL},   {44, "sendto", NULL},          {518, "sendmsg", NULL},
    {538, "sendmmsg", NULL}, {425, "io_uring_setup", NULL},
};

static const struct entry *lookup(const struct entry *t, size_t n, int nr)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].nr == nr)
			return &t[i];
	return NULL;
}

#define LOOKUP(t, nr) lookup(t, sizeof(t) / sizeof(t[0]), nr)

void sv_mediate(int listener, const struct seccomp_notif *req, const struct sv_policy *pol)
{
	struct call c = {.listener = listener, .req = req, .pol = pol};
	const struct entry *e = NULL;
	int nr = req->data.nr;

	c.ev.t_ms = sv_report_now_ms();
	c.ev.pid = (pid_t)req->pid;
	c.ev.syscall = "unknown";
	c.ev.abi = "unknown";
	/* Architecture first, then the number: the same number means different
	 * calls on different ABIs (102 is getuid on x86_64, socketcall on i386). */
	if (req->data.arch == AUDIT_ARCH_X86_64 && (nr & X32_SYSCALL_BIT)) {
		c.ev.abi = "x32";
		e = LOOKUP(x32_table, (int)(nr & ~X32_SYSCALL_BIT));
	} else if (req->data.arch == AUDIT_ARCH_X86_64) {
		c.ev.abi = "x86_64";
		e = LOOKUP(native_table, nr);
	} else if (req->data.arch == AUDIT_ARCH_I386) {
		c.ev.abi = "i386";
		e = LOOKUP(i386_table, nr);
	}
	if (!e) {
		/* The filter sent something the table does not know: the two
		 * disagree, which is our bug. Fail closed and say so. */
		c.ev.mechanism = "dispatch";
		c.ev.mech_err = ENOSYS;
		finish(&c, SV_MECH_FAILURE, "unknown-syscall", SV_ACT_ERRNO, ERR_MECHANISM, 0);
		return;
	}
	c.ev.syscall = e->name;
	if (strcmp(e->name, "io_uring_setup") == 0) {
		/* io_uring's own operations never pass the filter: without a ring,
		 * runtimes fall back to ordinary, mediated calls. */
		finish(&c, SV_NEUTRALIZED, "io_uring", SV_ACT_ERRNO, ENOSYS, 0);
		return;
	}
	if (strcmp(c.ev.abi, "x86_64") != 0) {
		int sc = strcmp(e->name, "socketcall") == 0;

		if (sc)
			c.ev.syscall = socketcall_name(req->data.args[0]);
		on_foreign(&c, sc);
		return;
	}
	e->native(&c, req->data.args);
	if (!c.done) {
		/* A handler returned without an answer: never leave the agent
		 * waiting and never leave the call out of the record. */
		c.ev.mechanism = "internal";
		c.ev.mech_err = ENOTRECOVERABLE;
		finish(&c, SV_MECH_FAILURE, "internal", SV_ACT_ERRNO, ERR_MECHANISM, 0);
	}
}
