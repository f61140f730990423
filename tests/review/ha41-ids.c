/* ha41-ids.c: hostile review h-attack41, the premise of finding 1's fix.
 * A child installs a listener filter on getppid and makes six calls; the
 * parent receives and continues each, but before the third it signals the
 * child (SA_RESTART handler) while that call waits unreceived: the kernel
 * withdraws it and the restarted call is notified under the next id. The
 * received ids are consecutive but for one gap, the withdrawn call (the
 * receive that meets its token answers ENOENT). Host 6.18: ids N, N+1, N+3,
 * N+4, N+5, N+6.
 *   gcc -O1 -o /tmp/ha41-ids tests/review/ha41-ids.c && /tmp/ha41-ids */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void h(int s)
{
	(void)s;
}

int main(void)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_getppid, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	struct sock_fprog p = {4, f};
	int sv[2];
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	pid_t c = fork();
	if (c == 0) {
		struct sigaction sa = {.sa_handler = h, .sa_flags = SA_RESTART};
		sigaction(SIGUSR1, &sa, NULL);
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		int l = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				SECCOMP_FILTER_FLAG_NEW_LISTENER, &p);
		/* pass the listener to the parent */
		char b = 0;
		struct iovec io = {&b, 1};
		char cm[CMSG_SPACE(sizeof(int))];
		struct msghdr m = {.msg_iov = &io,
				   .msg_iovlen = 1,
				   .msg_control = cm,
				   .msg_controllen = sizeof(cm)};
		struct cmsghdr *ch = CMSG_FIRSTHDR(&m);
		ch->cmsg_level = SOL_SOCKET;
		ch->cmsg_type = SCM_RIGHTS;
		ch->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(ch), &l, sizeof(int));
		sendmsg(sv[0], &m, 0);
		close(l);
		for (int i = 0; i < 6; i++)
			syscall(__NR_getppid);
		_exit(0);
	}
	char b;
	struct iovec io = {&b, 1};
	char cm[CMSG_SPACE(sizeof(int))];
	struct msghdr m = {
	    .msg_iov = &io, .msg_iovlen = 1, .msg_control = cm, .msg_controllen = sizeof(cm)};
	recvmsg(sv[1], &m, 0);
	int l;
	memcpy(&l, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(int));
	for (int i = 0; i < 6; i++) {
		struct seccomp_notif n;
		struct seccomp_notif_resp r;
		if (i == 2) {
			usleep(100000);
			kill(c, SIGUSR1);
			usleep(100000);
		} /* third call withdrawn unreceived, restarted */
		memset(&n, 0, sizeof(n));
		if (ioctl(l, SECCOMP_IOCTL_NOTIF_RECV, &n) != 0) {
			perror("recv");
			i--;
			continue;
		}
		printf("received id %llu\n", (unsigned long long)n.id);
		memset(&r, 0, sizeof(r));
		r.id = n.id;
		r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		ioctl(l, SECCOMP_IOCTL_NOTIF_SEND, &r);
	}
	waitpid(c, NULL, 0);
	return 0;
}
