/*
 * reset-plant: leaves state behind for the batch reset to find (docs/guest.md
 * "The reset and its proof"). Test-only: the scenarios in scenarios/tests/
 * run it as a service (root, in init's own namespaces, started before the
 * supervisor), between other cells of one batch (make batch-reset-test).
 *
 *   reset-plant repairable   what the reset must put back and then pass:
 *                            a sysctl, an address on lo, a mount on a new
 *                            point, a device node, a file in /tmp, names
 *                            in the root filesystem (/sbin/egress-planted,
 *                            /egress-planted-dir/file), an empty cgroup, the cell cgroup's
 * cgroup.kill given to uid 1000 (as cgroup=delegated does); not a module: sctp, once autoloaded,
 * stays in use after its socket is closed, EAGAIN, so a cell that loads it ends its batch
 *   reset-plant leftovers    what the reset must refuse, one per check: a
 *                            process that left its cgroup (in a cgroup of its
 *                            own, holding an sctp socket, so the module stays
 *                            in use), a mount over one of the boot's mount
 *                            points, immutable files in /tmp and /dev, the
 *                            root filesystem's /init changed (its ctime) and
 *                            a default ACL on /sbin, lo's MTU, ptrace_scope=3
 *                            and lo's stable_secret (neither can be put back),
 *                            a System V shared memory segment
 *
 * Kernel state outside the files and tables above (review h-isolate), which
 * a root cell, a foreign supervisor's own set-up or a user=root agent can
 * leave, planted by the same two modes (repairable: fib rules of both
 * families, two routes, a permanent neighbour entry on lo, a cgroup BPF program on the
 * cell's cgroup, init's rlimit and nice, a cgroup knob, the clock, an xfrm
 * policy; leftovers: a generic XDP program on lo, the boot's IPv6 main rule
 * deleted, a key in root's user keyring), and one at a time by
 *   reset-plant outcome-KIND what makes a later cell (declared-only's
 *                            connects to 198.51.100.7:443 and
 *                            [2001:db8::7]:443) differ: KIND rule (a prohibit
 *                            rule before the local table), bpf (a cgroup
 *                            connect4 program on egress-cell that sends
 *                            127.0.0.1:9 to 203.0.113.7:9999: the victim is
 *                            hiso-victim-loopback),
 *                            pids (pids.max 2 on egress-cell), rlimit
 *                            (init's RLIMIT_FSIZE 3000), neigh (a permanent
 *                            neighbour entry on lo with another host's
 *                            address), xfrm (an IPv6 block
 *                            policy), xfrmgone (the same, then xfrm_user
 *                            removed by the plant itself)
 *
 * Each plant is logged ("plant" with its target and errno). Then it listens
 * on 127.0.0.1 (init's readiness test) and waits to be killed.
 */
#include "agentlib.h"

#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <linux/bpf.h>
#include <linux/fs.h>
#include <linux/if_link.h>
#include <linux/keyctl.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/xfrm.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>

static void plant(const char *what, int rc)
{
	agent_log("plant", what, rc, rc < 0 ? errno : 0, NULL);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	int err = errno;

	close(fd);
	errno = err;
	return n < 0 ? -1 : 0;
}

/* A file that not even root can remove until the flag is cleared. */
static int immutable_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
	int flags = FS_IMMUTABLE_FL;

	if (fd < 0)
		return -1;
	int rc = ioctl(fd, FS_IOC_SETFLAGS, &flags);
	int err = errno;

	close(fd);
	errno = err;
	return rc;
}

/* busybox ARGS... (ip); its exit status, or -1. */
/* A default ACL on directory PATH (system.posix_acl_default, the kernel's
 * version-2 format: user::rwx, group::r-x, other::r-x), as setfacl -d sets
 * one; the guest has no setfacl. */
static int acl_default(const char *path)
{
	struct {
		uint32_t version;
		struct {
			uint16_t tag, perm;
			uint32_t id;
		} e[3];
	} acl = {2, {{0x01, 7, 0xffffffffu}, {0x04, 5, 0xffffffffu}, {0x20, 5, 0xffffffffu}}};

	return setxattr(path, "system.posix_acl_default", &acl, sizeof(acl), 0);
}

static int busybox(const char *const *argv)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		execv("/bin/busybox", (char *const *)argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	errno = EINVAL;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int sctp_socket(void)
{
	return socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP);
}

/* ---- kernel state outside files (review h-isolate) ---- */

/* A two-instruction program (r0 = RET; exit) of TYPE, loaded; its fd. */
static int bpf_ret_prog(unsigned type, unsigned expected, int ret)
{
	struct bpf_insn insns[2] = {
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = ret},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.expected_attach_type = expected;
	a.insns = (unsigned long)insns;
	a.insn_cnt = 2;
	a.license = (unsigned long)"GPL";
	return (int)syscall(SYS_bpf, BPF_PROG_LOAD, &a, sizeof(a));
}

/*
 * A cgroup connect4 program that sends a connect to 127.0.0.1:9 to
 * 203.0.113.7:9999 instead (what a transparent proxy's program does with
 * ports it takes), and allows every connect.
 */
static int bpf_redirect_prog(void)
{
	struct bpf_insn insns[] = {
	    /* r2 = ctx->user_ip4; if r2 != 127.0.0.1 goto allow */
	    {.code = BPF_LDX | BPF_MEM | BPF_W, .dst_reg = 2, .src_reg = 1, .off = 4},
	    {.code = BPF_JMP | BPF_JNE | BPF_K,
	     .dst_reg = 2,
	     .off = 4,
	     .imm = (int)htonl(0x7f000001)},
	    {.code = BPF_ALU | BPF_MOV | BPF_K, .dst_reg = 3, .imm = (int)htonl(0xcb007107)},
	    {.code = BPF_STX | BPF_MEM | BPF_W, .dst_reg = 1, .src_reg = 3, .off = 4},
	    {.code = BPF_ALU | BPF_MOV | BPF_K, .dst_reg = 3, .imm = htons(9999)},
	    {.code = BPF_STX | BPF_MEM | BPF_W, .dst_reg = 1, .src_reg = 3, .off = 24},
	    /* allow: r0 = 1 */
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 1},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_CGROUP_SOCK_ADDR;
	a.expected_attach_type = BPF_CGROUP_INET4_CONNECT;
	a.insns = (unsigned long)insns;
	a.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	a.license = (unsigned long)"GPL";
	return (int)syscall(SYS_bpf, BPF_PROG_LOAD, &a, sizeof(a));
}

/* A cgroup connect4 program on the cell's cgroup, left attached (no link:
 * BPF_PROG_ATTACH outlives the process): one that allows every connect
 * (RET 1), or the redirecting one (RET -1). */
static int bpf_cgroup_connect(int ret)
{
	int prog =
	    ret < 0 ? bpf_redirect_prog()
		    : bpf_ret_prog(BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET4_CONNECT, ret);
	int cg = open("/sys/fs/cgroup/egress-cell", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	union bpf_attr a;

	if (prog < 0 || cg < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.target_fd = (unsigned)cg;
	a.attach_bpf_fd = (unsigned)prog;
	a.attach_type = BPF_CGROUP_INET4_CONNECT;
	return (int)syscall(SYS_bpf, BPF_PROG_ATTACH, &a, sizeof(a));
}

/* Sends one rtnetlink or xfrm request and reads its ack; 0 or -1 (errno). */
static int nl_request(int proto, struct nlmsghdr *h)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
	char buf[4096];

	if (fd < 0)
		return -1;
	h->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	ssize_t n = send(fd, h, h->nlmsg_len, 0);

	if (n >= 0)
		n = recv(fd, buf, sizeof(buf), 0);
	close(fd);
	if (n < 0)
		return -1;
	struct nlmsghdr *r = (struct nlmsghdr *)buf;

	if (r->nlmsg_type == NLMSG_ERROR && ((struct nlmsgerr *)NLMSG_DATA(r))->error) {
		errno = -((struct nlmsgerr *)NLMSG_DATA(r))->error;
		return -1;
	}
	return 0;
}

/* A generic (skb-mode) XDP program on lo that passes everything: attached
 * by netlink, not by a link, so nothing but a netlink request removes it. */
static int xdp_on_lo(void)
{
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
		char attrs[64];
	} req;
	int prog = bpf_ret_prog(BPF_PROG_TYPE_XDP, 0, 2 /* XDP_PASS */);

	if (prog < 0)
		return -1;
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_type = RTM_SETLINK;
	req.i.ifi_family = AF_UNSPEC;
	req.i.ifi_index = 1;
	struct rtattr *xdp = (struct rtattr *)req.attrs;
	struct rtattr *fd = (struct rtattr *)(req.attrs + RTA_LENGTH(0));
	struct rtattr *fl = (struct rtattr *)(req.attrs + RTA_LENGTH(0) + RTA_SPACE(4));

	fd->rta_type = IFLA_XDP_FD;
	fd->rta_len = RTA_LENGTH(4);
	memcpy(RTA_DATA(fd), &prog, 4);
	fl->rta_type = IFLA_XDP_FLAGS;
	fl->rta_len = RTA_LENGTH(4);
	*(unsigned *)RTA_DATA(fl) = XDP_FLAGS_SKB_MODE;
	xdp->rta_type = IFLA_XDP | NLA_F_NESTED;
	xdp->rta_len = RTA_LENGTH(0) + RTA_SPACE(4) + RTA_SPACE(4);
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(req.i)) + RTA_ALIGN(xdp->rta_len);
	return nl_request(NETLINK_ROUTE, &req.h);
}

/*
 * A permanent IPv4 neighbour entry on lo with the link-layer address
 * 02:00:00:00:00:LAST (busybox's ip only lists neighbours). lo is a NOARP
 * link: its one entry (key 0.0.0.0) serves every IPv4 destination, and a
 * frame to another address than lo's own is for another host, dropped.
 */
static int neigh_on_lo(const char *dst, int last)
{
	struct {
		struct nlmsghdr h;
		struct ndmsg n;
		char attrs[32];
	} req;
	struct rtattr *a = (struct rtattr *)req.attrs;
	struct rtattr *ll = (struct rtattr *)(req.attrs + RTA_SPACE(4));
	unsigned char mac[6] = {last ? 2 : 0, 0, 0, 0, 0, (unsigned char)last};

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_type = RTM_NEWNEIGH;
	req.h.nlmsg_flags = NLM_F_CREATE | NLM_F_REPLACE;
	req.n.ndm_family = AF_INET;
	req.n.ndm_ifindex = 1;
	req.n.ndm_state = NUD_PERMANENT;
	a->rta_type = NDA_DST;
	a->rta_len = RTA_LENGTH(4);
	inet_pton(AF_INET, dst, RTA_DATA(a));
	ll->rta_type = NDA_LLADDR;
	ll->rta_len = RTA_LENGTH(6);
	memcpy(RTA_DATA(ll), mac, 6);
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(req.n)) + RTA_SPACE(4) + RTA_SPACE(6);
	return nl_request(NETLINK_ROUTE, &req.h);
}

/* An xfrm policy blocking output to the address DST of FAMILY (xfrm_user,
 * a module on Debian; the policy lives in the built-in xfrm core; IPv4 on
 * lo is exempt by lo's disable_xfrm, IPv6 on lo is not). */
static int xfrm_block(int family, const char *dst)
{
	struct {
		struct nlmsghdr h;
		struct xfrm_userpolicy_info p;
	} req;

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_type = XFRM_MSG_NEWPOLICY;
	req.h.nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(req.p));
	inet_pton(family, dst, &req.p.sel.daddr);
	req.p.sel.family = (unsigned short)family;
	req.p.sel.prefixlen_d = family == AF_INET ? 32 : 128;
	req.p.lft.soft_byte_limit = req.p.lft.hard_byte_limit = XFRM_INF;
	req.p.lft.soft_packet_limit = req.p.lft.hard_packet_limit = XFRM_INF;
	req.p.dir = XFRM_POLICY_OUT;
	req.p.action = XFRM_POLICY_BLOCK;
	return nl_request(NETLINK_XFRM, &req.h);
}

/* init's RLIMIT_NOFILE soft limit set to SOFT: every later cell's
 * processes start from init's limits. */
static int init_nofile(rlim_t soft)
{
	struct rlimit r;

	if (prlimit(1, RLIMIT_NOFILE, NULL, &r) < 0)
		return -1;
	r.rlim_cur = soft;
	return prlimit(1, RLIMIT_NOFILE, &r, NULL);
}

/* Kernel state outside files that the reset must put back. */
static void repairable_kernel(void)
{
	static const char *const rule4[] = {"ip", "rule",        "add",  "pref",     "100",
					    "to", "192.0.2.201", "type", "prohibit", NULL};
	static const char *const rule6[] = {"ip",   "-6",       "rule", "add",
					    "pref", "100",      "to",   "2001:db8::201",
					    "type", "prohibit", NULL};
	static const char *const unreach[] = {
	    "ip", "route", "add", "unreachable", "198.51.100.204/32", NULL};
	static const char *const dflt[] = {"ip", "route",  "add", "default", "dev",
					   "lo", "metric", "504", NULL};
	struct timeval tv;

	plant("rule 192.0.2.201 prohibit", busybox(rule4));
	plant("rule 2001:db8::201 prohibit", busybox(rule6));
	/* All zero, as the kernel's own entry: this cell's own loopback
	 * traffic still flows. */
	plant("neigh 192.0.2.203 dev lo permanent 00:00:00:00:00:00",
	      neigh_on_lo("192.0.2.203", 0));
	/* dont-route's two (route = in a scenario), which no longer need a
	 * boot of their own. */
	plant("route unreachable 198.51.100.204/32", busybox(unreach));
	plant("route default dev lo metric 504", busybox(dflt));
	plant("bpf cgroup connect4 on egress-cell", bpf_cgroup_connect(1));
	plant("init RLIMIT_NOFILE 1000", init_nofile(1000));
	plant("init nice 5", setpriority(PRIO_PROCESS, 1, 5));
	plant("/sys/fs/cgroup/egress-cell/cgroup.max.descendants",
	      write_file("/sys/fs/cgroup/egress-cell/cgroup.max.descendants", "50\n"));
	gettimeofday(&tv, NULL);
	tv.tv_sec -= 86400;
	plant("clock -1 day", settimeofday(&tv, NULL));
	plant("xfrm policy out 2001:db8::202 block", xfrm_block(AF_INET6, "2001:db8::202"));
}

/* Kernel state outside files that the reset must refuse. */
static void leftovers_kernel(void)
{
	static const char *const del6[] = {"ip",    "-6",     "rule", "del", "pref",
					   "32766", "lookup", "main", NULL};

	plant("xdp on lo", xdp_on_lo());
	plant("rule -6 32766 main deleted", busybox(del6));
	plant("key in root's user keyring", (int)syscall(SYS_add_key, "user", "egress-planted",
							 "planted", 7, KEY_SPEC_USER_KEYRING));
}

/* One thing that makes a later cell (tests/review/hiso-scenarios'
 * hiso-victim-declared, declared-only's copy) differ from its own boot. */
static int outcome(const char *kind)
{
	static const char *const dellocal[] = {"ip", "rule",   "del",   "pref",
					       "0",  "lookup", "local", NULL};
	static const char *const prohibit[] = {"ip", "rule",         "add",  "pref",     "0",
					       "to", "198.51.100.7", "type", "prohibit", NULL};
	static const char *const local1[] = {"ip", "rule",   "add",   "pref",
					     "1",  "lookup", "local", NULL};

	if (strcmp(kind, "outcome-rule") == 0) {
		plant("rule pref 0 lookup local deleted", busybox(dellocal));
		plant("rule pref 0 to 198.51.100.7 prohibit", busybox(prohibit));
		plant("rule pref 1 lookup local", busybox(local1));
	} else if (strcmp(kind, "outcome-bpf") == 0) {
		plant("bpf cgroup connect4 127.0.0.1:9 -> 203.0.113.7:9999, on egress-cell",
		      bpf_cgroup_connect(-1));
	} else if (strcmp(kind, "outcome-pids") == 0) {
		plant("/sys/fs/cgroup/cgroup.subtree_control +pids",
		      write_file("/sys/fs/cgroup/cgroup.subtree_control", "+pids\n"));
		plant("/sys/fs/cgroup/egress-cell/pids.max 2",
		      write_file("/sys/fs/cgroup/egress-cell/pids.max", "2\n"));
	} else if (strcmp(kind, "outcome-rlimit") == 0) {
		struct rlimit r = {3000, 3000};

		plant("init RLIMIT_FSIZE 3000", prlimit(1, RLIMIT_FSIZE, &r, NULL));
	} else if (strcmp(kind, "outcome-neigh") == 0) {
		plant("neigh 198.51.100.7 dev lo permanent 02:00:00:00:00:01",
		      neigh_on_lo("198.51.100.7", 1));
	} else if (strcmp(kind, "outcome-xfrm") == 0) {
		plant("xfrm policy out 2001:db8::7 block", xfrm_block(AF_INET6, "2001:db8::7"));
	} else if (strcmp(kind, "outcome-xfrmgone") == 0) {
		/* The same, then the module the reset would read it through
		 * removed by the cell itself (its socket closed first). */
		plant("xfrm policy out 2001:db8::7 block", xfrm_block(AF_INET6, "2001:db8::7"));
		plant("delete_module xfrm_user",
		      (int)syscall(SYS_delete_module, "xfrm_user", O_NONBLOCK));
	} else {
		return -1;
	}
	return 0;
}

static void repairable(void)
{
	static const char *const addr[] = {"ip",  "addr", "add", "192.0.2.200/32",
					   "dev", "lo",   NULL};

	plant("/proc/sys/net/ipv4/ip_default_ttl",
	      write_file("/proc/sys/net/ipv4/ip_default_ttl", "77\n"));
	plant("lo 192.0.2.200/32", busybox(addr));
	mkdir("/tmp/egress-planted-mnt", 0755);
	plant("/tmp/egress-planted-mnt",
	      mount("egress-planted", "/tmp/egress-planted-mnt", "tmpfs", 0, "size=64k"));
	plant("/dev/egress-planted", mknod("/dev/egress-planted", S_IFCHR | 0666, makedev(1, 3)));
	plant("/tmp/egress-planted", write_file("/tmp/egress-planted", "planted\n"));
	/* As key-upcall's and module-name's services do (a stand-in helper
	 * in /sbin, its destination in /etc): names the boot did not have. */
	plant("/sbin/egress-planted", write_file("/sbin/egress-planted", "planted\n"));
	plant("/egress-planted-dir", mkdir("/egress-planted-dir", 0755));
	plant("/egress-planted-dir/file", write_file("/egress-planted-dir/file", "planted\n"));
	plant("/sys/fs/cgroup/egress-planted-empty",
	      mkdir("/sys/fs/cgroup/egress-planted-empty", 0755));
	plant("/sys/fs/cgroup/egress-cell/cgroup.kill",
	      chown("/sys/fs/cgroup/egress-cell/cgroup.kill", 1000, 1000));
	repairable_kernel();
}

static volatile sig_atomic_t continued;

static void on_cont(int sig)
{
	(void)sig;
	continued = 1;
}

/* A child in a cgroup of its own, out of init's helper cgroup, in a session
 * of its own, holding an sctp socket. It leaves only when init's survivors
 * walk has ended (its SIGCONT: the walk stops every process first), so it
 * is what the reset, not the walk, must find: a process that escaped
 * before the walk is found and killed by it (stop 43), and the reset's
 * own refusal went unshown (review h-docaudit). */
static void escaped_child(void)
{
	struct sigaction sa;

	if (mkdir("/sys/fs/cgroup/egress-planted", 0755) < 0 && errno != EEXIST)
		plant("/sys/fs/cgroup/egress-planted", -1);
	pid_t pid = fork();

	if (pid != 0) {
		plant("escaped child", pid < 0 ? -1 : (int)pid);
		return;
	}
	setsid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_cont;
	sigaction(SIGCONT, &sa, NULL);
	int fd = sctp_socket();

	plant("sctp held", fd);
	while (!continued)
		pause();
	plant("/sys/fs/cgroup/egress-planted/cgroup.procs",
	      write_file("/sys/fs/cgroup/egress-planted/cgroup.procs", "0\n"));
	for (;;)
		pause();
}

static void leftovers(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	escaped_child();
	/* Stacked on the sink's directory, a mount point of the boot's: this
	 * cell has no sink, and init's own work directory, elsewhere in /run,
	 * stays its own (a mount over /run itself would take the cell's record
	 * with it). */
	plant("/run/egress-sink",
	      mount("egress-planted", "/run/egress-sink", "tmpfs", 0, "size=64k"));
	plant("/tmp/egress-planted-immutable", immutable_file("/tmp/egress-planted-immutable"));
	plant("/dev/egress-planted-immutable", immutable_file("/dev/egress-planted-immutable"));
	/* A name of the boot's changed (its ctime moves; nothing sets it
	 * back): chmod to its own mode. */
	plant("/init ctime", chmod("/init", 0755));
	/* A directory's default ACL reaches every file later made in it. */
	plant("/sbin system.posix_acl_default", acl_default("/sbin"));
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	ifr.ifr_mtu = 1280;
	plant("lo mtu 1280", s < 0 ? -1 : ioctl(s, SIOCSIFMTU, &ifr));
	if (s >= 0)
		close(s);
	plant("/proc/sys/kernel/yama/ptrace_scope",
	      write_file("/proc/sys/kernel/yama/ptrace_scope", "3\n"));
	plant("/proc/sys/net/ipv6/conf/lo/stable_secret",
	      write_file("/proc/sys/net/ipv6/conf/lo/stable_secret", "2001:db8::1\n"));
	plant("shm", shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600));
	leftovers_kernel();
}

int main(int argc, char **argv)
{
	agent_init("reset-plant");
	if (argc != 2)
		return agent_usage("repairable|leftovers|outcome-KIND");
	if (strcmp(argv[1], "repairable") == 0)
		repairable();
	else if (strcmp(argv[1], "leftovers") == 0)
		leftovers();
	else if (outcome(argv[1]) < 0)
		return agent_usage("repairable|leftovers|outcome-KIND");
	/* Ready: init waits for a listening socket of ours. */
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};

	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 1) < 0)
		plant("listen", -1);
	for (;;)
		pause();
}
