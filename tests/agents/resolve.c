/*
 * resolve NAME: getaddrinfo(NAME) with no service and no family, as a
 * program that resolves before it connects does, and logs each address
 * ("resolved"). With this libc (musl) a name of two or more addresses
 * with an IPv6 one among them is sorted (RFC 6724) by connecting a UDP
 * socket to each on port 65535; nothing is sent (review h-attack45).
 * Exit 0 when NAME has two or more addresses, 1 otherwise.
 */
#include "agentlib.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <string.h>
#include <sys/socket.h>

int main(int argc, char **argv)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL, *ai;
	char text[INET6_ADDRSTRLEN];
	int n = 0, rc;

	agent_init("resolve");
	if (argc != 2)
		return agent_usage("NAME");
	rc = getaddrinfo(argv[1], NULL, &hints, &res);
	if (rc != 0) {
		agent_log("getaddrinfo", argv[1], -1, 0, NULL);
		return 1;
	}
	for (ai = res; ai; ai = ai->ai_next, n++) {
		const void *a = ai->ai_family == AF_INET6
				    ? (const void *)&((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr
				    : (const void *)&((struct sockaddr_in *)ai->ai_addr)->sin_addr;

		inet_ntop(ai->ai_family, a, text, sizeof(text));
		agent_log("resolved", text, 0, 0, NULL);
	}
	freeaddrinfo(res);
	return n >= 2 ? 0 : 1;
}
