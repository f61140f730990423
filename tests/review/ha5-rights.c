/*
 * ha5-rights: SCM_RIGHTS on an inet socket hides a later undeclared message
 * of a sendmmsg. The kernel ignores SCM_RIGHTS on every inet socket
 * (ip_cmsg_send -> __sock_cmsg_send: "SCM_RIGHTS and SCM_CREDENTIALS are
 * semantically in SOL_UNIX", break): neither the descriptor numbers nor
 * their count (SCM_MAX_FD, scm_fp_copy's, AF_UNIX only) are looked at.
 * sendmmsg on a UDP socket with two messages: the first to OK (declared)
 * carrying SCM_RIGHTS, the second to BAD (undeclared). The kernel sends both
 * and answers 2.
 *   MODE many:   254 descriptors (one over SCM_MAX_FD): the supervisor's
 *                walk calls the control malformed, the batch stops at the
 *                first message (upto 0): invalid EINVAL, the second message
 *                never copied nor judged.
 *   MODE badfd:  one closed descriptor (999): both messages are judged (the
 *                second denied), but the first one's translation fails
 *                EBADF while it is sent: invalid bad-descriptor.
 *   MODE payload: no control; the second message goes to OK with a payload
 *                pointer below vm.mmap_min_addr and a third to BAD: the
 *                kernel sends the first, stops at the second (EFAULT) and
 *                answers 1; the supervisor sends the first and answers
 *                EFAULT (invalid), a count that differs from what it sent.
 *   MODE single-badfd: sendmsg of the badfd message to OK alone (the
 *                kernel sends; the supervisor answers EBADF).
 *
 *     ha5-rights MODE OK BAD
 */
#include "agentlib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define NFDS 254

int main(int argc, char **argv)
{
	static char payload[] = "ha5";
	static union {
		struct cmsghdr h;
		unsigned char b[CMSG_SPACE(NFDS * sizeof(int))];
	} ctl;
	struct iovec iov = {.iov_base = payload, .iov_len = 3};
	struct iovec badiov = {.iov_base = (void *)16, .iov_len = 3};
	struct mmsghdr m[3];
	struct agent_dest ok, bad;
	struct cmsghdr *cm = &ctl.h;
	unsigned int n = 2;
	char extra[40];
	int s, nfds = 0;
	long r;

	agent_init("ha5-rights");
	if (argc != 4 || agent_parse_dest(argv[2], &ok) < 0 || agent_parse_dest(argv[3], &bad) < 0)
		return agent_usage("many|badfd|payload|single-badfd OK BAD");
	memset(m, 0, sizeof(m));
	for (int i = 0; i < 3; i++) {
		m[i].msg_hdr.msg_name = i == 0 ? &ok.ss : &bad.ss;
		m[i].msg_hdr.msg_namelen = i == 0 ? ok.len : bad.len;
		m[i].msg_hdr.msg_iov = &iov;
		m[i].msg_hdr.msg_iovlen = 1;
	}
	if (strcmp(argv[1], "many") == 0)
		nfds = NFDS;
	else if (strcmp(argv[1], "badfd") == 0 || strcmp(argv[1], "single-badfd") == 0)
		nfds = 1;
	else if (strcmp(argv[1], "payload") == 0) {
		m[1].msg_hdr.msg_name = &ok.ss;
		m[1].msg_hdr.msg_namelen = ok.len;
		m[1].msg_hdr.msg_iov = &badiov;
		n = 3;
	} else
		return agent_usage("many|badfd|payload|single-badfd OK BAD");
	if (nfds) {
		int *fds = (int *)CMSG_DATA(cm);

		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		for (int i = 0; i < nfds; i++)
			fds[i] = nfds == 1 ? 999 : 0;
		m[0].msg_hdr.msg_control = cm;
		m[0].msg_hdr.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
	}
	s = socket(ok.family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (strcmp(argv[1], "single-badfd") == 0)
		r = syscall(SYS_sendmsg, s, &m[0].msg_hdr, 0);
	else
		/* The raw call: musl's sendmmsg is a loop of sendmsg calls. */
		r = syscall(SYS_sendmmsg, s, m, n, 0);
	snprintf(extra, sizeof(extra), ",\"mode\":\"%.16s\"", argv[1]);
	agent_log(strcmp(argv[1], "single-badfd") == 0 ? "sendmsg" : "sendmmsg", bad.text, r,
		  r < 0 ? errno : 0, extra);
	_exit(0);
}
