#include "mediate_sock.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "sockaddr.h"
#include "sockrule.h"

static const char *family_label(uint32_t fam, char *num, size_t len)
{
	struct sv_dest d = {.family = (int)fam};

	/* The report's family names, for a family that has no name to show. */
	return sv_dest_family_name(&d, num, len);
}

void sv_mediate_socket(struct sv_call *c, const __u64 *a)
{
	const char *why, *deny = sv_sockrule_socket(a[0], a[1], a[2], &why);
	char num[12];

	strncpy(c->ev.family, family_label((uint32_t)a[0], num, sizeof(num)),
		sizeof(c->ev.family) - 1);
	if (deny) {
		sv_call_finish(c, SV_DENIED, deny, SV_ACT_ERRNO, sv_call_denial_errno(c), 0);
		return;
	}
	/* CONTINUE is safe here, unlike for connect: nothing is read from the
	 * agent's memory, and the registers cannot change. */
	sv_call_finish(c, SV_ALLOWED, why, SV_ACT_CONTINUE, 0, 0);
}

void sv_mediate_listen(struct sv_call *c, const __u64 *a)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct sv_dest d;
	const char *deny, *why;
	int rc;

	/* The decision needs the socket itself: its bound name is in the
	 * kernel, not in the agent's memory. */
	if (sv_call_prepare(c, (int)a[0]))
		return;
	memset(&ss, 0, sizeof(ss));
	if (getsockname(c->dup, (struct sockaddr *)&ss, &len) != 0) {
		sv_call_mech_failure(c, "getsockname", errno);
		return;
	}
	if (len > sizeof(ss))
		len = sizeof(ss);
	sv_call_note_dest(c, (const unsigned char *)&ss, len, &d);
	deny = sv_sockrule_listen(c->pol, &d, &why);
	if (deny) {
		sv_call_finish(c, SV_DENIED, deny, SV_ACT_ERRNO, sv_call_denial_errno(c), 0);
		return;
	}
	/* A bound name cannot change (bind answers EINVAL once bound), so the
	 * socket we judged is the one that listens. */
	rc = listen(c->dup, (int)a[1]);
	sv_call_answer_performed(c, why, rc, rc < 0 ? errno : 0);
}

void sv_mediate_cross_process(struct sv_call *c, const __u64 *a)
{
	(void)a;
	/* No argument makes these harmless to an egress policy: each one
	 * reads, writes or takes over what another process holds, including
	 * its connected sockets. */
	sv_call_finish(c, SV_DENIED, "cross-process", SV_ACT_ERRNO, sv_call_denial_errno(c), 0);
}
