/*
 * ha9-forms.c (review h-attack9): names whose family or form the kernel
 * reads otherwise than they look, and a socket whose family changes after
 * it was judged. One datagram per mode, each logged with its result.
 *
 *   ha9-forms MODE DECLPORT   (the undeclared sinks are on port 9999)
 *
 *   unspec    UDPv4 sendto, sin_family AF_UNSPEC, 127.0.0.2:9999 (udp_sendmsg
 *             reads an AF_UNSPEC name as AF_INET)
 *   zero      UDPv4 sendto 0.0.0.0:9999 (the kernel routes it to 127.0.0.1)
 *   any6      UDPv6 sendto [::]:9999 (the kernel sends to ::1)
 *   mapped    UDPv6 sendto [::ffff:127.0.0.2]:9999
 *   addrform  UDPv6 connect [::ffff:127.0.0.1]:DECLPORT, IPV6_ADDRFORM to
 *             AF_INET, then write(), sendto(NULL), sendto(AF_INET
 *             127.0.0.2:9999) and sendto(AF_INET6 [::ffff:127.0.0.2]:9999)
 *   unspec6   UDPv6 connect [::ffff:127.0.0.1]:DECLPORT, then sendto with an
 *             AF_UNSPEC name (udpv6_sendmsg: no name, the connected peer)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef IPV6_ADDRFORM
#define IPV6_ADDRFORM 1
#endif

static void say(const char *what, long rc)
{
	printf("  %-44s -> %ld%s%s\n", what, rc, rc < 0 ? " " : "", rc < 0 ? strerror(errno) : "");
	fflush(stdout);
}

static struct sockaddr_in v4(const char *ip, int port)
{
	struct sockaddr_in s = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};

	inet_pton(AF_INET, ip, &s.sin_addr);
	return s;
}

static struct sockaddr_in6 v6(const char *ip, int port)
{
	struct sockaddr_in6 s = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};

	inet_pton(AF_INET6, ip, &s.sin6_addr);
	return s;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	int decl = argc > 2 ? atoi(argv[2]) : 4471;
	int s4 = socket(AF_INET, SOCK_DGRAM, 0), s6 = socket(AF_INET6, SOCK_DGRAM, 0);

	if (strcmp(m, "unspec") == 0) {
		struct sockaddr_in a = v4("127.0.0.2", 9999);

		a.sin_family = AF_UNSPEC;
		say("sendto AF_UNSPEC{127.0.0.2:9999}",
		    sendto(s4, "unspec", 6, 0, (struct sockaddr *)&a, sizeof(a)));
	} else if (strcmp(m, "zero") == 0) {
		struct sockaddr_in a = v4("0.0.0.0", 9999);

		say("sendto 0.0.0.0:9999",
		    sendto(s4, "zero", 4, 0, (struct sockaddr *)&a, sizeof(a)));
	} else if (strcmp(m, "any6") == 0) {
		struct sockaddr_in6 a = v6("::", 9999);

		say("sendto [::]:9999", sendto(s6, "any6", 4, 0, (struct sockaddr *)&a, sizeof(a)));
	} else if (strcmp(m, "mapped") == 0) {
		struct sockaddr_in6 a = v6("::ffff:127.0.0.2", 9999);

		say("sendto [::ffff:127.0.0.2]:9999",
		    sendto(s6, "mapped", 6, 0, (struct sockaddr *)&a, sizeof(a)));
	} else if (strcmp(m, "addrform") == 0) {
		struct sockaddr_in6 p = v6("::ffff:127.0.0.1", decl);
		struct sockaddr_in6 u6 = v6("::ffff:127.0.0.2", 9999);
		struct sockaddr_in u4 = v4("127.0.0.2", 9999);
		int fam = AF_INET, dom = 0;
		socklen_t dl = sizeof(dom);

		say("connect [::ffff:127.0.0.1]:DECL",
		    connect(s6, (struct sockaddr *)&p, sizeof(p)));
		say("setsockopt IPV6_ADDRFORM AF_INET",
		    setsockopt(s6, IPPROTO_IPV6, IPV6_ADDRFORM, &fam, sizeof(fam)));
		getsockopt(s6, SOL_SOCKET, SO_DOMAIN, &dom, &dl);
		printf("  SO_DOMAIN now %d\n", dom);
		say("write", write(s6, "addrform-write", 14));
		say("sendto NULL", sendto(s6, "addrform-null", 13, 0, NULL, 0));
		say("sendto AF_INET 127.0.0.2:9999",
		    sendto(s6, "addrform-v4", 11, 0, (struct sockaddr *)&u4, sizeof(u4)));
		say("sendto AF_INET6 [::ffff:127.0.0.2]:9999",
		    sendto(s6, "addrform-v6", 11, 0, (struct sockaddr *)&u6, sizeof(u6)));
	} else if (strcmp(m, "unspec6") == 0) {
		struct sockaddr_in6 p = v6("::ffff:127.0.0.1", decl);
		struct sockaddr_in6 u = v6("::ffff:127.0.0.2", 9999);

		u.sin6_family = AF_UNSPEC;
		say("connect [::ffff:127.0.0.1]:DECL",
		    connect(s6, (struct sockaddr *)&p, sizeof(p)));
		say("sendto AF_UNSPEC{::ffff:127.0.0.2:9999}",
		    sendto(s6, "unspec6", 7, 0, (struct sockaddr *)&u, sizeof(u)));
	} else {
		fprintf(stderr,
			"usage: ha9-forms unspec|zero|any6|mapped|addrform|unspec6 [DECLPORT]\n");
		return 2;
	}
	return 0;
}
