/* ha16-falsered: hostile review h-attack16 (against main 9886fc1). Calls a
 * legitimate program makes towards a declared link-local peer that the
 * device check (supervisor/call.c, sv_call_device_fits and
 * sv_call_device_changed) turns red.
 *
 *   refused  a TCP connect to the declared [fe80::1%IFNAME]:PORT that the
 *            peer refuses (RST: nobody listens). tcp_v6_connect binds the
 *            socket to the scope before it sends the SYN and the failed
 *            connect keeps that binding; the kernel answers ECONNREFUSED and
 *            nothing else happens. The supervisor sees a device that
 *            changed on a connect that did not take.
 *   disc     a UDP socket connected to the declared [fe80::1%IFNAME]:PORT
 *            (bound to IFNAME by the kernel), one send(), then
 *            connect(AF_UNSPEC) to disconnect it (__udp_disconnect clears
 *            the device too). The supervisor judges the disconnect by the
 *            device the link-local connect left.
 *   tfo      a TCP fast-open send, sendto([fe80::1%IFNAME]:PORT, MSG_FASTOPEN),
 *            to a declared link-local server that accepts: tcp_v6_connect
 *            binds the socket to the scope, as a connect() to it would,
 *            but the supervisor accepts a scope binding only for connect.
 *
 *   ha16-falsered MODE PORT IFNAME
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in6 ll = {.sin6_family = AF_INET6};
	struct sockaddr unspec = {.sa_family = AF_UNSPEC};
	int s;
	long rc;

	if (argc != 4) {
		fprintf(stderr, "usage: ha16-falsered MODE PORT IFNAME\n");
		return 2;
	}
	inet_pton(AF_INET6, "fe80::1", &ll.sin6_addr);
	ll.sin6_port = htons((unsigned short)atoi(argv[2]));
	ll.sin6_scope_id = if_nametoindex(argv[3]);
	if (strcmp(argv[1], "refused") == 0) {
		s = socket(AF_INET6, SOCK_STREAM, 0);
		rc = connect(s, (struct sockaddr *)&ll, sizeof(ll));
		printf("agent: refused: connect([fe80::1%%%s]:%s) = %ld (%s)\n", argv[3], argv[2],
		       rc, rc < 0 ? strerror(errno) : "ok");
		return 0;
	}
	if (strcmp(argv[1], "tfo") == 0) {
		s = socket(AF_INET6, SOCK_STREAM, 0);
		rc = sendto(s, "link-local fast open", 20, MSG_FASTOPEN, (struct sockaddr *)&ll,
			    sizeof(ll));
		printf("agent: tfo: sendto([fe80::1%%%s]:%s, MSG_FASTOPEN) = %ld (%s)\n", argv[3],
		       argv[2], rc, rc < 0 ? strerror(errno) : "ok");
		shutdown(s, SHUT_WR);
		usleep(200 * 1000);
		return 0;
	}
	s = socket(AF_INET6, SOCK_DGRAM, 0);
	rc = connect(s, (struct sockaddr *)&ll, sizeof(ll));
	printf("agent: disc: connect([fe80::1%%%s]:%s) = %ld (%s)\n", argv[3], argv[2], rc,
	       rc < 0 ? strerror(errno) : "ok");
	rc = send(s, "link-local hello", 16, 0);
	printf("agent: disc: send = %ld (%s)\n", rc, rc < 0 ? strerror(errno) : "ok");
	rc = connect(s, &unspec, sizeof(unspec));
	printf("agent: disc: connect(AF_UNSPEC) = %ld (%s)\n", rc, rc < 0 ? strerror(errno) : "ok");
	return 0;
}
