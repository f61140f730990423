/*
 * io-uring-inherited: uses an io_uring ring it did not create and submits one
 * IORING_OP_CONNECT to DEST on it with io_uring_enter (the connect itself
 * never passes a seccomp filter). The ring comes from ring-giver:
 *   io-uring-inherited PATH DEST              over the AF_UNIX socket PATH
 *   io-uring-inherited --fd N PARAMS DEST     inherited as fd N, its
 *                                             io_uring_params in file PARAMS
 * Logs each step. Exits 0 when no connect was submitted: io_uring_enter was
 * answered ENOSYS (neutralized), or no ring reached the agent (EBADF on an
 * inherited descriptor someone closed, or a kernel that refuses to pass a
 * ring with SCM_RIGHTS); 1 when the connect was submitted.
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <linux/io_uring.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef SYS_io_uring_enter
#define SYS_io_uring_enter 426
#endif

static int get_ring(const char *path, struct io_uring_params *p)
{
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = {.iov_base = p, .iov_len = sizeof(*p)};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl.buf,
			    .msg_controllen = sizeof(ctl.buf)};
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), ring = -1;
	long r;

	strncpy(un.sun_path, path, sizeof(un.sun_path) - 1);
	r = connect(s, (struct sockaddr *)&un, sizeof(un));
	agent_log("connect", path, r, errno, NULL);
	if (r < 0)
		return -1;
	r = recvmsg(s, &mh, MSG_CMSG_CLOEXEC);
	agent_log("recvmsg", path, r, errno, NULL);
	close(s);
	if (r != (long)sizeof(*p) || mh.msg_controllen < CMSG_LEN(sizeof(int)) ||
	    ctl.h.cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&ring, CMSG_DATA(&ctl.h), sizeof(int));
	return ring;
}

int main(int argc, char **argv)
{
	struct io_uring_params p;
	struct agent_dest d;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqe;
	unsigned char *sq, *cq;
	unsigned tail, head;
	size_t sq_len, cq_len;
	int ring, fd;
	long r;

	agent_init("io-uring-inherited");
	if (argc == 5 && strcmp(argv[1], "--fd") == 0 && agent_parse_dest(argv[4], &d) == 0) {
		int in = open(argv[3], O_RDONLY | O_CLOEXEC);

		ring = (int)agent_parse_count(argv[2]);
		if (in < 0 || read(in, &p, sizeof(p)) != (ssize_t)sizeof(p))
			return 2;
		close(in);
		if (fcntl(ring, F_GETFD) < 0) {
			agent_log("inherited", argv[2], -1, errno, NULL);
			return 0;
		}
	} else if (argc == 3 && agent_parse_dest(argv[2], &d) == 0) {
		ring = get_ring(argv[1], &p);
		if (ring < 0)
			return 0;
	} else {
		return agent_usage("PATH DEST | --fd N PARAMS DEST");
	}
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
		  IORING_OFF_SQ_RING);
	cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
		  IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) {
		agent_log("io_uring_mmap", d.text, -1, errno, NULL);
		return 1;
	}
	fd = socket(d.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 1;
	tail = atomic_load_explicit((_Atomic unsigned *)(sq + p.sq_off.tail), memory_order_acquire);
	memset(&sqes[0], 0, sizeof(sqes[0]));
	sqes[0].opcode = IORING_OP_CONNECT;
	sqes[0].fd = fd;
	sqes[0].addr = (unsigned long)&d.ss;
	sqes[0].off = d.len; /* IORING_OP_CONNECT takes the address length in off */
	((unsigned *)(sq + p.sq_off.array))[tail & *(unsigned *)(sq + p.sq_off.ring_mask)] = 0;
	atomic_store_explicit((_Atomic unsigned *)(sq + p.sq_off.tail), tail + 1,
			      memory_order_release);
	r = syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0);
	agent_log("io_uring_enter", d.text, r, errno, NULL);
	if (r < 0)
		return errno == ENOSYS ? 0 : 1;
	head = atomic_load_explicit((_Atomic unsigned *)(cq + p.cq_off.head), memory_order_acquire);
	cqe = (struct io_uring_cqe *)(cq + p.cq_off.cqes) +
	      (head & *(unsigned *)(cq + p.cq_off.ring_mask));
	agent_log("io_uring_connect", d.text, cqe->res, -cqe->res, NULL);
	return 1;
}
