#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
static socklen_t nm(struct sockaddr_un *a, const char *p)
{
	memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	memcpy(a->sun_path + 1, p, strlen(p));
	return offsetof(struct sockaddr_un, sun_path) + 1 + strlen(p);
}
static const char *probe(int type, const char *n)
{
	struct sockaddr_un a;
	socklen_t l = nm(&a, n);
	int s = socket(AF_UNIX, type | SOCK_NONBLOCK, 0);
	if (type != SOCK_DGRAM) {
		sa_family_t f = AF_UNIX;
		if (bind(s, (void *)&f, sizeof f))
			perror("autobind");
		if (listen(s, 1))
			perror("listen");
	}
	int rc = connect(s, (void *)&a, l);
	int e = errno;
	close(s);
	static char b[64];
	snprintf(b, sizeof b, "%s", rc == 0 ? "ok" : strerrorname_np(e));
	return b;
}
int main(void)
{
	int types[] = {SOCK_STREAM, SOCK_SEQPACKET, SOCK_DGRAM};
	const char *tn[] = {"stream", "seqpacket", "dgram"};
	for (int i = 0; i < 3; i++) {
		int t = types[i];
		struct sockaddr_un a;
		socklen_t l;
		printf("%s: unbound -> %s\n", tn[i], probe(t, "h31lp-none"));
		int b = socket(AF_UNIX, t, 0);
		l = nm(&a, "h31lp-bound");
		bind(b, (void *)&a, l);
		printf("%s: bound, not listening -> %s\n", tn[i], probe(t, "h31lp-bound"));
		if (t != SOCK_DGRAM) {
			int L = socket(AF_UNIX, t, 0);
			l = nm(&a, "h31lp-listen");
			bind(L, (void *)&a, l);
			listen(L, 4);
			printf("%s: listening -> %s", tn[i], probe(t, "h31lp-listen"));
			struct pollfd p = {L, POLLIN, 0};
			printf("  (listener readable: %d)\n", poll(&p, 1, 50));
			int L2 = socket(AF_UNIX, t, 0);
			l = nm(&a, "h31lp-full");
			bind(L2, (void *)&a, l);
			listen(L2, 0);
			int c = socket(AF_UNIX, t | SOCK_NONBLOCK, 0);
			connect(c, (void *)&a, l);
			int c2 = socket(AF_UNIX, t | SOCK_NONBLOCK, 0);
			int r2 = connect(c2, (void *)&a, l);
			printf("%s: listening, backlog full (2nd plain connect %s) -> %s\n", tn[i],
			       r2 ? strerrorname_np(errno) : "ok", probe(t, "h31lp-full"));
			int L3 = socket(AF_UNIX, t, 0);
			l = nm(&a, "h31lp-shut");
			bind(L3, (void *)&a, l);
			listen(L3, 4);
			shutdown(L3, SHUT_RDWR);
			printf("%s: listening, shut down -> %s\n", tn[i], probe(t, "h31lp-shut"));
		} else {
			int o = socket(AF_UNIX, t, 0);
			int b2 = socket(AF_UNIX, t, 0);
			struct sockaddr_un a2;
			socklen_t l2 = nm(&a2, "h31lp-conn");
			bind(b2, (void *)&a2, l2);
			sa_family_t f = AF_UNIX;
			bind(o, (void *)&f, sizeof f);
			struct sockaddr_un ao;
			socklen_t lo = sizeof ao;
			getsockname(o, (void *)&ao, &lo);
			connect(b2, (void *)&ao, lo);
			printf("dgram: bound, connected elsewhere -> %s\n", probe(t, "h31lp-conn"));
		}
	}
	return 0;
}
