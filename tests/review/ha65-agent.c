/* ha65-agent.c: hostile review h-attack65 (starvation of the supervisor,
 * interference between runs). One static program, modes:
 *   hog HOLD_MS                 fork children (each pause()) until fork
 *                               fails; hold them HOLD_MS; kill them; exit.
 *   hogcall HOLD_MS ADDR PORT K fork until refused, then K UDP connects to
 *                               ADDR:PORT from the main thread (the supervisor
 *                               must start a receiver for each: it cannot);
 *                               kill the children, exit.
 *   hogthr HOLD_MS ADDR PORT K  the same, but the slots are taken by threads
 *                               and the K connects are made by K threads
 *                               started while one slot is freed at a time.
 *   pulse FULL FREE TOTAL       for TOTAL ms: take every slot, hold FULL ms,
 *                               let them all go for FREE ms, again (the uid's process
 *                               count full, then free, by turns).
 *   call ADDR PORT              an honest program: one UDP connect + send, and
 *                               one TCP connect, to ADDR:PORT; prints errno.
 *   userns HOLD_MS [KIND]       namespaces made (a child unshares a user
 *                               namespace, and KIND: pid, ipc or mnt, in it;
 *                               we keep /proc/CHILD/ns/...) until refused;
 *                               held HOLD_MS. Default KIND: user alone.
 *   pipes N HOLD_MS             N pipes held (the uid's pipe-user-pages).
 *   shmhost KEY WAIT_MS         an outsider: a 0600 SysV segment KEY, read
 *                               after WAIT_MS (what a run's agent wrote).
 *   shmput KEY TEXT             the agent: TEXT into the segment KEY.
 * Every mode prints one line: what it took and the errno that stopped it. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXKIDS 200000

static pid_t kids[MAXKIDS];
static int nkids;

static void ms(long n)
{
	struct timespec t = {.tv_sec = n / 1000, .tv_nsec = (n % 1000) * 1000000L};

	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
}

static int hog(void)
{
	while (nkids < MAXKIDS) {
		pid_t p = fork();

		if (p == 0) {
			for (;;)
				pause();
		}
		if (p < 0)
			return errno;
		kids[nkids++] = p;
	}
	return 0;
}

static void unhog(void)
{
	for (int i = 0; i < nkids; i++)
		kill(kids[i], SIGKILL);
	for (int i = 0; i < nkids; i++)
		waitpid(kids[i], NULL, 0);
	nkids = 0;
}

static int udp_connect(const char *addr, int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc;

	if (s < 0)
		return errno;
	inet_pton(AF_INET, addr, &a.sin_addr);
	rc = connect(s, (struct sockaddr *)&a, sizeof(a)) == 0 ? 0 : errno;
	if (rc == 0 && send(s, "ha65", 4, 0) < 0)
		rc = errno;
	close(s);
	return rc;
}

static int tcp_connect(const char *addr, int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), rc;

	if (s < 0)
		return errno;
	inet_pton(AF_INET, addr, &a.sin_addr);
	rc = connect(s, (struct sockaddr *)&a, sizeof(a)) == 0 ? 0 : errno;
	close(s);
	return rc;
}

static const char *g_addr;
static int g_port;

static void *conn_thread(void *arg)
{
	(void)arg;
	int e = udp_connect(g_addr, g_port);

	printf("thread connect %s:%d: %s\n", g_addr, g_port, e ? strerror(e) : "ok");
	return NULL;
}

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && strcmp(argv[1], "hog") == 0) {
		int e = hog();

		printf("hog: %d children, stopped by %s\n", nkids, strerror(e));
		ms(atol(argv[2]));
		unhog();
		return 0;
	}
	if (argc >= 6 && strcmp(argv[1], "hogcall") == 0) {
		int e = hog(), k = atoi(argv[5]);

		printf("hogcall: %d children, stopped by %s\n", nkids, strerror(e));
		ms(atol(argv[2]));
		for (int i = 0; i < k; i++) {
			int c = udp_connect(argv[3], atoi(argv[4]));

			printf("connect %s:%s: %s\n", argv[3], argv[4], c ? strerror(c) : "ok");
		}
		unhog();
		return 0;
	}
	if (argc >= 6 && strcmp(argv[1], "hogthr") == 0) {
		/* Slots taken by threads; then K threads connect at once. */
		int k = atoi(argv[5]), n = 0, e = 0;
		pthread_attr_t at;
		pthread_t t[64];

		g_addr = argv[3];
		g_port = atoi(argv[4]);
		pthread_attr_init(&at);
		pthread_attr_setstacksize(&at, 65536);
		e = hog();
		/* Free K slots for our connect threads, none left for the
		 * supervisor's receivers. */
		for (int i = 0; i < k && nkids > 0; i++) {
			kill(kids[--nkids], SIGKILL);
			waitpid(kids[nkids], NULL, 0);
		}
		printf("hogthr: %d children, stopped by %s\n", nkids, strerror(e));
		ms(atol(argv[2]));
		for (int i = 0; i < k && i < 64; i++)
			if (pthread_create(&t[i], &at, conn_thread, NULL) == 0)
				n++;
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		printf("hogthr: %d connect threads\n", n);
		unhog();
		(void)sleeper;
		return 0;
	}
	if (argc >= 5 && strcmp(argv[1], "pulse") == 0) {
		struct timespec t0, t;
		long total = atol(argv[4]), rounds = 0;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			hog();
			ms(atol(argv[2]));
			unhog();
			ms(atol(argv[3]));
			rounds++;
			clock_gettime(CLOCK_MONOTONIC, &t);
		} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 <
			 total);
		printf("pulse: %ld rounds\n", rounds);
		return 0;
	}
	if (argc >= 4 && strcmp(argv[1], "call") == 0) {
		int u = udp_connect(argv[2], atoi(argv[3]));
		int t = tcp_connect(argv[2], atoi(argv[3]));

		printf("call: udp %s tcp %s\n", u ? strerror(u) : "ok", t ? strerror(t) : "ok");
		return u || t ? 4 : 0;
	}
	if (argc >= 3 && strcmp(argv[1], "userns") == 0) {
		int n = 0, e = 0, enospc = 0, extra = 0;
		const char *kind = argc >= 4 ? argv[3] : "user", *nsname = "user";
		struct rlimit rl;

		if (strcmp(kind, "pid") == 0) {
			extra = CLONE_NEWPID;
			nsname = "pid_for_children";
		} else if (strcmp(kind, "ipc") == 0) {
			extra = CLONE_NEWIPC;
			nsname = "ipc";
		} else if (strcmp(kind, "mnt") == 0) {
			extra = CLONE_NEWNS;
			nsname = "mnt";
		}
		getrlimit(RLIMIT_NOFILE, &rl);
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		for (;;) {
			int p[2];
			char c, path[64];
			pid_t pid;
			int fd;

			if (pipe2(p, O_CLOEXEC) != 0) {
				e = errno;
				break;
			}
			pid = fork();
			if (pid == 0) {
				char r = unshare(CLONE_NEWUSER | extra) == 0 ? 0 : (char)errno;
				pid_t init = 0;

				/* A pid namespace's file opens only while it has an
				 * init: one that waits, killed by us once it is open
				 * (init ignores a parent-death signal). */
				if (r == 0 && extra == CLONE_NEWPID) {
					init = fork();
					if (init == 0) {
						pause();
						_exit(0);
					}
					if (init < 0)
						r = (char)errno;
				}
				if (write(p[1], &r, 1) != 1 ||
				    write(p[1], &init, sizeof(init)) != sizeof(init))
					_exit(1);
				pause();
				_exit(0);
			}
			close(p[1]);
			if (pid < 0) {
				e = errno;
				close(p[0]);
				break;
			}
			pid_t init = 0;

			if (read(p[0], &c, 1) != 1 ||
			    read(p[0], &init, sizeof(init)) != sizeof(init))
				c = EIO;
			close(p[0]);
			fd = -1;
			if (c == 0) {
				snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, nsname);
				fd = open(path, O_RDONLY | O_CLOEXEC);
			}
			if (init > 0)
				kill(init, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			if (c != 0) {
				/* A namespace just freed still counts until an RCU
				 * grace period has passed: ask again a while. */
				e = c;
				if (e == ENOSPC && ++enospc < 40) {
					ms(50);
					continue;
				}
				break;
			}
			if (fd < 0) {
				e = errno;
				break;
			}
			n++;
		}
		printf("userns: %d %s namespaces held, stopped by %s\n", n, kind, strerror(e));
		ms(atol(argv[2]));
		return 0;
	}
	if (argc >= 4 && strcmp(argv[1], "pipes") == 0) {
		int n = 0, want = atoi(argv[2]), e = 0, p[2];
		struct rlimit rl;

		getrlimit(RLIMIT_NOFILE, &rl);
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		while (n < want) {
			if (pipe2(p, O_CLOEXEC) != 0) {
				e = errno;
				break;
			}
			n++;
		}
		printf("pipes: %d held, %s; last pipe's size %d\n", n, e ? strerror(e) : "ok",
		       fcntl(p[0], F_GETPIPE_SZ));
		ms(atol(argv[3]));
		return 0;
	}
	if (argc >= 4 && strcmp(argv[1], "shmhost") == 0) {
		int id = shmget((key_t)strtol(argv[2], NULL, 0), 64, IPC_CREAT | IPC_EXCL | 0600);
		char *m = id < 0 ? NULL : shmat(id, NULL, 0);

		if (!m || m == (void *)-1) {
			printf("shmhost: %s\n", strerror(errno));
			return 1;
		}
		memset(m, 0, 64);
		ms(atol(argv[3]));
		printf("shmhost: segment holds \"%.63s\"\n", m);
		shmctl(id, IPC_RMID, NULL);
		return 0;
	}
	if (argc >= 4 && strcmp(argv[1], "shmput") == 0) {
		int id = shmget((key_t)strtol(argv[2], NULL, 0), 0, 0);
		char *m = id < 0 ? NULL : shmat(id, NULL, 0);

		if (!m || m == (void *)-1) {
			printf("shmput: %s\n", strerror(errno));
			return 1;
		}
		snprintf(m, 64, "%s", argv[3]);
		printf("shmput: written\n");
		return 0;
	}
	fprintf(stderr, "usage: see the comment at the top\n");
	return 2;
}
