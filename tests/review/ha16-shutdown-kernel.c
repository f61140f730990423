/* ha16-shutdown-kernel: hostile review h-attack16, the kernel alone (no
 * supervisor). A TCP socket connecting non-blocking to ::ffff:198.51.100.8
 * (SYN_SENT: nobody answers on the path the routes give) is shut down
 * (inet_shutdown runs tcp_disconnect on SYN_SENT: the port goes back, the
 * socket is unconnected), a failed bind(fe80::dead%a1) then writes a1 into
 * its device, and sendto(MSG_FASTOPEN) to the same address connects anew by
 * a1. With DEFER set in the environment the connect is a deferred
 * TCP_FASTOPEN_CONNECT to ::ffff:198.51.100.7 instead (ha16-race.c's
 * tfoshut, to the declared server, which answers): the shutdown leaves it
 * its port. Run in ha16a (ha16-shutdown-kernel.sh). */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <stdlib.h>
#include <sys/ioctl.h>
int main(void)
{
	struct sockaddr_in6 dst = {.sin6_family = AF_INET6, .sin6_port = htons(9999)},
			    ll = {.sin6_family = AF_INET6};
	int one = 1, s = socket(AF_INET6, SOCK_STREAM, 0);
	long rc;
	setvbuf(stdout, NULL, _IOLBF, 0);
	inet_pton(AF_INET6, getenv("DEFER") ? "::ffff:198.51.100.7" : "::ffff:198.51.100.8",
		  &dst.sin6_addr);
	inet_pton(AF_INET6, "fe80::dead", &ll.sin6_addr);
	ll.sin6_scope_id = if_nametoindex("a1");
	if (getenv("DEFER"))
		setsockopt(s, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one, sizeof(one));
	else {
		int fl = 1;
		ioctl(s, FIONBIO, &fl);
	}
	rc = connect(s, (void *)&dst, sizeof(dst));
	printf("connect %ld %s\n", rc, strerror(errno));
	rc = shutdown(s, SHUT_RDWR);
	printf("shutdown %ld %s\n", rc, strerror(errno));
	rc = bind(s, (void *)&ll, sizeof(ll));
	printf("bind %ld %s\n", rc, strerror(errno));
	{
		int fl = 0;
		ioctl(s, FIONBIO, &fl);
	}
	rc = sendto(s, "kernel-only tfoshut", 19, MSG_FASTOPEN | MSG_NOSIGNAL, (void *)&dst,
		    sizeof(dst));
	printf("sendto %ld %s\n", rc, strerror(errno));
	sleep(1);
	return 0;
}
