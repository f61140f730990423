/*
 * ha9-mmsg.c (review h-attack9): a sendmmsg whose first message, to the
 * declared 127.0.0.1:DECLPORT, fails only when sent (its payload at
 * address 16, below vm.mmap_min_addr), and whose second is to the
 * undeclared 127.0.0.2:9999. The kernel answers EFAULT for the first and
 * sends nothing. MODE later puts the bad payload in the second message and
 * the undeclared name in the third (control: the supervisor sends the
 * first and answers 1, bucket denied).
 *
 *     ha9-mmsg first|later DECLPORT
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char payload[] = "ha9";
	struct sockaddr_in decl = {.sin_family = AF_INET}, und = {.sin_family = AF_INET};
	struct iovec good = {.iov_base = payload, .iov_len = 3};
	struct iovec bad = {.iov_base = (void *)16, .iov_len = 3};
	struct mmsghdr m[3];
	int first = argc == 3 && strcmp(argv[1], "first") == 0, n = first ? 2 : 3;
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	long r;

	if (argc != 3 || (!first && strcmp(argv[1], "later") != 0)) {
		fprintf(stderr, "usage: ha9-mmsg first|later DECLPORT\n");
		return 2;
	}
	decl.sin_port = htons((uint16_t)atoi(argv[2]));
	inet_pton(AF_INET, "127.0.0.1", &decl.sin_addr);
	und.sin_port = htons(9999);
	inet_pton(AF_INET, "127.0.0.2", &und.sin_addr);
	memset(m, 0, sizeof(m));
	for (int i = 0; i < n; i++) {
		m[i].msg_hdr.msg_name = &decl;
		m[i].msg_hdr.msg_namelen = sizeof(decl);
		m[i].msg_hdr.msg_iov = &good;
		m[i].msg_hdr.msg_iovlen = 1;
	}
	m[n - 2].msg_hdr.msg_iov = &bad;
	m[n - 1].msg_hdr.msg_name = &und;
	r = syscall(SYS_sendmmsg, s, m, n, 0);
	printf("  sendmmsg(%s) -> %ld%s%s\n", argv[1], r, r < 0 ? " " : "",
	       r < 0 ? strerror(errno) : "");
	return 0;
}
