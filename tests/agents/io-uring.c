/*
 * io-uring: io_uring_setup through the raw syscall (no liburing) and logs
 * its answer (ENOSYS under the supervisor). If a ring is granted and DEST is
 * given, it submits one IORING_OP_CONNECT, which no seccomp filter sees.
 */
#include "agentlib.h"

#include <errno.h>
#include <linux/io_uring.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#define SYS_io_uring_enter 426
#endif

static void ring_connect(int ring, const struct io_uring_params *p, const struct agent_dest *d)
{
	size_t sq_len = p->sq_off.array + p->sq_entries * sizeof(unsigned);
	size_t cq_len = p->cq_off.cqes + p->cq_entries * sizeof(struct io_uring_cqe);
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqe;
	unsigned char *sq, *cq;
	unsigned tail, head;
	long r;
	int fd;

	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
		  IORING_OFF_SQ_RING);
	cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
		  IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p->sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) {
		agent_log("io_uring_mmap", d->text, -1, errno, NULL);
		return;
	}
	fd = socket(d->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		agent_log("socket", d->text, fd, errno, NULL);
		return;
	}
	tail =
	    atomic_load_explicit((_Atomic unsigned *)(sq + p->sq_off.tail), memory_order_acquire);
	memset(&sqes[0], 0, sizeof(sqes[0]));
	sqes[0].opcode = IORING_OP_CONNECT;
	sqes[0].fd = fd;
	sqes[0].addr = (unsigned long)&d->ss;
	sqes[0].off = d->len; /* IORING_OP_CONNECT takes the address length in off */
	((unsigned *)(sq + p->sq_off.array))[tail & *(unsigned *)(sq + p->sq_off.ring_mask)] = 0;
	atomic_store_explicit((_Atomic unsigned *)(sq + p->sq_off.tail), tail + 1,
			      memory_order_release);
	r = syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0);
	if (r < 0) {
		agent_log("io_uring_enter", d->text, r, errno, NULL);
		return;
	}
	head =
	    atomic_load_explicit((_Atomic unsigned *)(cq + p->cq_off.head), memory_order_acquire);
	cqe = (struct io_uring_cqe *)(cq + p->cq_off.cqes) +
	      (head & *(unsigned *)(cq + p->cq_off.ring_mask));
	agent_log("io_uring_connect", d->text, cqe->res, -cqe->res, NULL);
	close(fd);
}

int main(int argc, char **argv)
{
	struct io_uring_params p;
	struct agent_dest d;
	long ring;

	agent_init("io-uring");
	if (argc > 2 || (argc == 2 && agent_parse_dest(argv[1], &d) < 0))
		return agent_usage("[DEST]");
	memset(&p, 0, sizeof(p));
	ring = syscall(SYS_io_uring_setup, 4, &p);
	agent_log("io_uring_setup", NULL, ring, errno, NULL);
	if (ring >= 0 && argc == 2)
		ring_connect((int)ring, &p, &d);
	return 0;
}
