/*
 * egress-reset's kernel state outside files and the route tables (reset.h;
 * review h-isolate): what a root cell, a foreign supervisor's own set-up or
 * a user=root agent leaves in the kernel for the next cell of the boot.
 * BPF programs attached to a cgroup, xfrm policies, the cgroup knobs of the
 * cell's cgroup, pid 1's limits and the clock all outlive the processes that
 * set them, and each changed a later cell of a batch where a boot of its own
 * had none (tests/review/hiso-outcome.sh).
 */
#include "reset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/bpf.h>
#include <linux/ipsec.h>
#include <linux/netlink.h>
#include <linux/xfrm.h>

#define CGROUP_ROOT "/sys/fs/cgroup"

static void wait_ms(long ms)
{
	nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000}, NULL);
}

/* True when a line of the boot's section S begins with PREFIX. */
static bool boot_has_prefix(int s, const char *prefix)
{
	const struct rs_baseline *b = rs_boot();
	size_t n = strlen(prefix);

	for (size_t off = 0; off < b->len[s];) {
		const char *l = b->sect[s] + off;
		const char *nl = memchr(l, '\n', b->len[s] - off);
		size_t end = nl ? (size_t)(nl - l) : b->len[s] - off;

		if (end >= n && memcmp(l, prefix, n) == 0)
			return true;
		off += end + 1;
	}
	return false;
}

/* ---- bpf ---- */

static long sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(SYS_bpf, cmd, a, sizeof(*a));
}

/* Every id of the kind GET_NEXT_ID walks (programs or links): "KIND ID
 * type=T" lines, the type read through a descriptor by id. */
static int bpf_ids(struct rs_buf *out, int next_cmd, int fd_cmd, const char *kind)
{
	union bpf_attr a;
	unsigned id = 0;

	for (;;) {
		memset(&a, 0, sizeof(a));
		a.start_id = id;
		if (sys_bpf(next_cmd, &a) < 0)
			/* ENOENT: the last; EINVAL: no links before 5.8;
			 * ENOSYS: no bpf(2) */
			return errno == ENOENT || errno == EINVAL || errno == ENOSYS ? 0 : -errno;
		id = a.next_id;
		memset(&a, 0, sizeof(a));
		if (next_cmd == BPF_PROG_GET_NEXT_ID)
			a.prog_id = id;
		else
			a.link_id = id;
		int fd = (int)sys_bpf(fd_cmd, &a);
		struct bpf_prog_info pi;
		struct bpf_link_info li;
		unsigned type = 0;

		if (fd >= 0) {
			memset(&a, 0, sizeof(a));
			memset(&pi, 0, sizeof(pi));
			memset(&li, 0, sizeof(li));
			a.info.bpf_fd = (unsigned)fd;
			a.info.info_len =
			    next_cmd == BPF_PROG_GET_NEXT_ID ? sizeof(pi) : sizeof(li);
			a.info.info = next_cmd == BPF_PROG_GET_NEXT_ID ? (unsigned long)&pi
								       : (unsigned long)&li;
			if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a) == 0)
				type = next_cmd == BPF_PROG_GET_NEXT_ID ? pi.type : li.type;
			close(fd);
		}
		rs_buf_printf(out, "%s %u type=%u\n", kind, id, type);
	}
}

int rs_snap_bpf(struct rs_buf *out)
{
	int err = bpf_ids(out, BPF_PROG_GET_NEXT_ID, BPF_PROG_GET_FD_BY_ID, "prog");

	if (!err)
		err = bpf_ids(out, BPF_LINK_GET_NEXT_ID, BPF_LINK_GET_FD_BY_ID, "link");
	return err;
}

/* Detaches from the cgroup DIR every program the boot did not have, for
 * every attach type (BPF_PROG_QUERY); names each in DONE. */
static void bpf_detach_cgroup(const char *dir, struct rs_buf *done)
{
	int cg = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	for (unsigned t = 0; cg >= 0 && t < MAX_BPF_ATTACH_TYPE; t++) {
		unsigned ids[64];
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.query.target_fd = (unsigned)cg;
		a.query.attach_type = t;
		a.query.prog_ids = (unsigned long)ids;
		a.query.prog_cnt = 64;
		if (sys_bpf(BPF_PROG_QUERY, &a) < 0)
			continue; /* not a cgroup attach type */
		for (unsigned i = 0; i < a.query.prog_cnt && i < 64; i++) {
			char key[32];
			union bpf_attr d;

			snprintf(key, sizeof(key), "prog %u ", ids[i]);
			if (boot_has_prefix(RS_BPF, key))
				continue;
			memset(&d, 0, sizeof(d));
			d.prog_id = ids[i];
			int fd = (int)sys_bpf(BPF_PROG_GET_FD_BY_ID, &d);

			memset(&d, 0, sizeof(d));
			d.target_fd = (unsigned)cg;
			d.attach_bpf_fd = (unsigned)fd;
			d.attach_type = t;
			long r = fd < 0 ? -1 : sys_bpf(BPF_PROG_DETACH, &d);

			rs_buf_printf(done, " prog %u from %s (attach type %u)%s", ids[i], dir, t,
				      r < 0 ? " (refused)" : "");
			if (fd >= 0)
				close(fd);
		}
	}
	if (cg >= 0)
		close(cg);
}

/* The cgroup2 root and its children (the boot's: extras are gone by now). */
static void each_cgroup(void (*fn)(const char *, struct rs_buf *), struct rs_buf *done)
{
	DIR *d = opendir(CGROUP_ROOT);
	struct dirent *e;

	if (!d)
		return;
	fn(CGROUP_ROOT, done);
	while ((e = readdir(d))) {
		char path[512];

		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", CGROUP_ROOT, e->d_name);
		fn(path, done);
	}
	closedir(d);
}

/* Detaches every link the boot did not have (a link pinned in a bpffs the
 * mounts check detached, an XDP or tcx link). */
static void bpf_detach_links(const struct rs_buf *now, struct rs_buf *done)
{
	for (size_t off = 0; off < now->len;) {
		const char *l = now->p + off;
		const char *nl = memchr(l, '\n', now->len - off);
		size_t n = nl ? (size_t)(nl - l) : now->len - off;
		unsigned id;
		char key[32];

		off += n + 1;
		if (sscanf(l, "link %u ", &id) != 1)
			continue;
		snprintf(key, sizeof(key), "link %u ", id);
		if (boot_has_prefix(RS_BPF, key))
			continue;
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.link_id = id;
		int fd = (int)sys_bpf(BPF_LINK_GET_FD_BY_ID, &a);

		memset(&a, 0, sizeof(a));
		a.link_detach.link_fd = (unsigned)fd;
		long r = fd < 0 ? -1 : sys_bpf(BPF_LINK_DETACH, &a);

		rs_buf_printf(done, " link %u%s", id, r < 0 ? " (refused)" : "");
		if (fd >= 0)
			close(fd);
	}
}

/*
 * No BPF program or link but the boot's: a program attached to a cgroup
 * (BPF_PROG_ATTACH, which outlives its process: a connect4 program of a
 * transparent proxy sends the next cell's connects elsewhere) is detached
 * from the cgroup2 root and its children, a link is detached; anything that
 * still holds a program then (XDP attached by netlink, a tc filter, a map of
 * a program) is a fail. A program goes after an RCU grace period or a
 * cgroup's release work: up to 0.5 s.
 */
void rs_check_bpf(void)
{
	struct rs_buf now = {0}, done = {0};

	if (rs_check_snap(RS_BPF, &now))
		return;
	if (!rs_same(RS_BPF, &now)) {
		bpf_detach_links(&now, &done);
		each_cgroup(bpf_detach_cgroup, &done);
		for (int i = 0; i < 25; i++) {
			if (rs_check_snap(RS_BPF, &now))
				return;
			if (rs_same(RS_BPF, &now))
				break;
			wait_ms(20);
		}
	}
	if (done.len) {
		struct rs_buf d = {0};

		rs_buf_printf(&d, "; detached:%s", done.p);
		rs_buf_free(&done);
		done = d;
	}
	rs_prove(RS_BPF, &now, "no BPF program or link but the boot's", done.len ? done.p : "");
	rs_buf_free(&now);
	rs_buf_free(&done);
}

/* ---- xfrm ---- */

static int xfrm_talk(int fd, int type, const void *body, size_t n, struct rs_buf *out)
{
	struct {
		struct nlmsghdr h;
		char body[64];
	} req;
	static char msgs[32768] __attribute__((aligned(NLMSG_ALIGNTO)));
	bool dump = out != NULL;

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_type = (unsigned short)type;
	req.h.nlmsg_flags = NLM_F_REQUEST | (dump ? NLM_F_DUMP : NLM_F_ACK);
	req.h.nlmsg_len = NLMSG_LENGTH(n);
	memcpy(req.body, body, n);
	if (send(fd, &req, req.h.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		ssize_t got = recv(fd, msgs, sizeof(msgs), 0);

		if (got < 0)
			return -errno;
		for (struct nlmsghdr *h = (struct nlmsghdr *)msgs; NLMSG_OK(h, (size_t)got);
		     h = NLMSG_NEXT(h, got)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
			char a[INET6_ADDRSTRLEN] = "?";

			if (h->nlmsg_type == XFRM_MSG_NEWPOLICY) {
				const struct xfrm_userpolicy_info *p = NLMSG_DATA(h);

				inet_ntop(p->sel.family, &p->sel.daddr, a, sizeof(a));
				rs_buf_printf(out, "policy dir=%u action=%u dst=%s/%u proto=%u\n",
					      p->dir, p->action, a, p->sel.prefixlen_d,
					      p->sel.proto);
			} else if (h->nlmsg_type == XFRM_MSG_NEWSA) {
				const struct xfrm_usersa_info *s = NLMSG_DATA(h);

				inet_ntop(s->family, &s->id.daddr, a, sizeof(a));
				rs_buf_printf(out, "state dst=%s spi=%x proto=%u\n", a,
					      ntohl(s->id.spi), s->id.proto);
			}
		}
	}
}

/*
 * Policies and states live in the built-in xfrm core, but are read and
 * made only through xfrm_user or af_key, modules on Debian: read while one
 * is loaded (a cell that loaded one to configure xfrm; the modules check
 * removes it after this one), when its netlink family is there without an
 * autoload. A cell that configured xfrm and removed the module itself is
 * not seen (docs/guest.md, "What it does not prove").
 */
int rs_snap_xfrm(struct rs_buf *out)
{
	if (access("/sys/module/xfrm_user", F_OK) != 0 && access("/sys/module/af_key", F_OK) != 0)
		return 0;
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_XFRM);

	if (fd < 0) {
		rs_buf_printf(out, "xfrm netlink unavailable: %s\n", strerror(errno));
		return 0;
	}
	int err = xfrm_talk(fd, XFRM_MSG_GETPOLICY, NULL, 0, out);

	if (!err)
		err = xfrm_talk(fd, XFRM_MSG_GETSA, NULL, 0, out);
	close(fd);
	rs_lines_sort(out);
	return err;
}

/* No xfrm policy or state (the boot has none): what a cell made is
 * flushed, every policy and state, then read back. */
void rs_check_xfrm(void)
{
	struct rs_buf now = {0};
	const char *done = "";

	if (rs_check_snap(RS_XFRM, &now))
		return;
	if (!rs_same(RS_XFRM, &now) && rs_boot()->len[RS_XFRM] == 0) {
		int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_XFRM);
		struct xfrm_usersa_flush all = {.proto = IPSEC_PROTO_ANY};

		if (fd >= 0) {
			xfrm_talk(fd, XFRM_MSG_FLUSHPOLICY, NULL, 0, NULL);
			xfrm_talk(fd, XFRM_MSG_FLUSHSA, &all, sizeof(all), NULL);
			close(fd);
			done = "; flushed every policy and state";
		}
		if (rs_check_snap(RS_XFRM, &now))
			return;
	}
	rs_prove(RS_XFRM, &now, "no xfrm policy or state (as at boot)", done);
	rs_buf_free(&now);
}

/* ---- cgroup knobs ---- */

/* Files that are not settings: lists, events, one-shot writes, and the
 * pressure and peak files whose reads change by themselves. */
static bool knob_skip(const char *name)
{
	static const char *const skip[] = {"cgroup.procs",      "cgroup.threads", "cgroup.kill",
					   "cgroup.events",     "memory.reclaim", "cgroup.stat",
					   "cgroup.controllers"};
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (strcmp(name, skip[i]) == 0)
			return true;
	if (n > 5 && strcmp(name + n - 5, ".peak") == 0)
		return true;
	return n > 9 && strcmp(name + n - 9, ".pressure") == 0 && strcmp(name, "cgroup.pressure");
}

static void knobs_of(const char *dir, struct rs_buf *out)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	static char v[8192];

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[512];
		struct stat st;

		if (e->d_type != DT_REG || knob_skip(e->d_name) ||
		    fstatat(dirfd(d), e->d_name, &st, 0) != 0 || !(st.st_mode & S_IWUSR))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, v, sizeof(v));

		rs_buf_printf(out, "%s\t", path);
		if (n < 0)
			rs_buf_printf(out, "!%d", errno);
		else
			rs_buf_escape(out, v, (size_t)n);
		rs_buf_add(out, "\n", 1);
		if (fd >= 0)
			close(fd);
	}
	closedir(d);
}

int rs_snap_knobs(struct rs_buf *out)
{
	each_cgroup(knobs_of, out);
	rs_lines_sort(out);
	return 0;
}

/* The boot's value of PATH in section S ("path\tvalue" lines), or NULL. */
static const char *boot_value(int s, const char *path, size_t *n)
{
	const struct rs_baseline *b = rs_boot();
	size_t pl = strlen(path);

	for (size_t off = 0; off < b->len[s];) {
		const char *l = b->sect[s] + off;
		const char *nl = memchr(l, '\n', b->len[s] - off);
		size_t end = nl ? (size_t)(nl - l) : b->len[s] - off;

		off += end + 1;
		if (end > pl && memcmp(l, path, pl) == 0 && l[pl] == '\t') {
			*n = end - pl - 1;
			return l + pl + 1;
		}
	}
	return NULL;
}

/* cgroup.subtree_control back to the boot's: "-C" for each controller the
 * boot did not enable, "+C" for each it did, one write each. */
static void subtree_restore(const char *path, const char *now, size_t nn, const char *boot,
			    size_t bn)
{
	char tok[64];

	for (int pass = 0; pass < 2; pass++) {
		const char *from = pass ? boot : now, *other = pass ? now : boot;
		size_t fn = pass ? bn : nn, on = pass ? nn : bn;

		for (size_t i = 0; i < fn;) {
			size_t k = strcspn(from + i, " \\");

			if (k > fn - i)
				k = fn - i;
			if (k && k < sizeof(tok) - 2) {
				snprintf(tok, sizeof(tok), "%c%.*s", pass ? '+' : '-', (int)k,
					 from + i);
				bool in_other = false;

				for (size_t j = 0; j + k <= on; j++)
					if (memcmp(other + j, from + i, k) == 0 &&
					    (j == 0 || other[j - 1] == ' ') &&
					    (j + k == on || other[j + k] == ' ' ||
					     other[j + k] == '\\'))
						in_other = true;
				if (!in_other)
					rs_write_escaped(path, tok, strlen(tok));
			}
			i += k + 1;
			if (i < fn && from[i - 1] == '\\')
				i++; /* the escaped newline's 'n' */
		}
	}
}

/*
 * The knobs of the cgroup2 root and its children as at boot: the next
 * cell's supervisor starts in egress-cell, so a pids.max, memory.max,
 * cgroup.freeze or a controller a cell enabled would hold it (hiso-outcome
 * pids: pids.max 2 made the next cell infra-error). Each value written back
 * (cgroup.subtree_control by +/- of the controllers, children first), then
 * read back; one that does not take its boot value is a fail.
 */
void rs_check_knobs(void)
{
	struct rs_buf now = {0}, done = {0};

	if (rs_check_snap(RS_KNOBS, &now))
		return;
	for (int round = 0; round < 2 && !rs_same(RS_KNOBS, &now); round++) {
		/* Deepest first: a controller is disabled in a child before its
		 * parent (the reverse sort puts the children first). */
		for (size_t end = now.len; end > 0;) {
			size_t start = end - 1;

			while (start > 0 && now.p[start - 1] != '\n')
				start--;
			const char *l = now.p + start;
			size_t n = end - 1 - start, pl = strcspn(l, "\t\n"), bn = 0;
			char path[512];

			end = start;
			if (pl >= n ||
			    rs_lines_has(rs_boot()->sect[RS_KNOBS], rs_boot()->len[RS_KNOBS], l, n))
				continue;
			snprintf(path, sizeof(path), "%.*s", (int)pl, l);
			const char *bv = boot_value(RS_KNOBS, path, &bn);

			if (!bv || *bv == '!')
				continue; /* a file the boot had not: goes with its controller */
			if (strstr(path, "/cgroup.subtree_control"))
				subtree_restore(path, l + pl + 1, n - pl - 1, bv, bn);
			else
				rs_write_escaped(path, bv, bn);
			rs_buf_printf(&done, " %s", path + strlen(CGROUP_ROOT) + 1);
		}
		if (rs_check_snap(RS_KNOBS, &now))
			return;
	}
	if (done.len) {
		struct rs_buf d = {0};

		rs_buf_printf(&d, "; restored:%s", done.p);
		rs_buf_free(&done);
		done = d;
	}
	rs_prove(RS_KNOBS, &now,
		 "the writable knobs of the cgroup2 root and its children as at boot",
		 done.len ? done.p : "");
	rs_buf_free(&now);
	rs_buf_free(&done);
}

/* ---- init's own attributes ---- */

/* pid 1's attributes another root process can change (prlimit,
 * setpriority, sched_setscheduler and sched_setaffinity on pid 1, its /proc
 * files, a write of 1 to a cgroup.procs): every process of every later cell
 * starts from them. One line each, in a form the check parses back. */
int rs_snap_init(struct rs_buf *out)
{
	struct rs_buf f = {0};
	cpu_set_t cpus;
	struct sched_param sp = {0};

	for (int r = 0; r < RLIM_NLIMITS; r++) {
		struct rlimit l;

		if (prlimit(1, r, NULL, &l) == 0)
			rs_buf_printf(out, "rlimit %d %llu %llu\n", r,
				      (unsigned long long)l.rlim_cur,
				      (unsigned long long)l.rlim_max);
	}
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, 1);

	rs_buf_printf(out, "nice %d\n", errno ? 99 : nice);
	/* musl's sched_getscheduler is a stub (ENOSYS): the system calls. */
	long pol = syscall(SYS_sched_getscheduler, 1);

	syscall(SYS_sched_getparam, 1, &sp);
	rs_buf_printf(out, "sched %ld %d\n", pol, sp.sched_priority);
	CPU_ZERO(&cpus);
	if (sched_getaffinity(1, sizeof(cpus), &cpus) == 0) {
		rs_buf_add(out, "affinity ", 9);
		for (size_t i = 0; i < 8; i++)
			rs_buf_printf(out, "%02x", ((unsigned char *)&cpus)[i]);
		rs_buf_add(out, "\n", 1);
	}
	rs_buf_printf(out, "ioprio %ld\n", syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, 1));
	static const char *const files[] = {"oom_score_adj", "timerslack_ns", "cgroup"};

	for (size_t i = 0; i < 3; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/1/%s", files[i]);
		rs_buf_free(&f);
		if (rs_read_file(path, &f) == 0) {
			rs_buf_printf(out, "%s ", files[i]);
			rs_buf_escape(out, f.p ? f.p : "", f.len);
			rs_buf_add(out, "\n", 1);
		}
	}
	rs_buf_free(&f);
	return 0;
}

/* Puts back the boot's line L (length n) of pid 1's attributes. */
static void init_restore(const char *l, size_t n)
{
	char line[512];
	int r, a;
	unsigned long long cur, max;
	long pol;

	snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), l);
	if (sscanf(line, "rlimit %d %llu %llu", &r, &cur, &max) == 3) {
		struct rlimit lim = {(rlim_t)cur, (rlim_t)max};

		prlimit(1, r, &lim, NULL);
	} else if (sscanf(line, "nice %d", &a) == 1) {
		setpriority(PRIO_PROCESS, 1, a);
	} else if (sscanf(line, "sched %ld %d", &pol, &a) == 2) {
		struct sched_param sp = {.sched_priority = a};

		syscall(SYS_sched_setscheduler, 1, pol, &sp);
	} else if (strncmp(line, "affinity ", 9) == 0) {
		cpu_set_t cpus;
		unsigned char *b = (unsigned char *)&cpus;

		CPU_ZERO(&cpus);
		for (size_t i = 0; i < 8 && line[9 + 2 * i] && line[10 + 2 * i]; i++)
			b[i] = (unsigned char)strtoul(
			    (char[]){line[9 + 2 * i], line[10 + 2 * i], 0}, NULL, 16);
		sched_setaffinity(1, sizeof(cpus), &cpus);
	} else if (sscanf(line, "ioprio %d", &a) == 1) {
		syscall(SYS_ioprio_set, 1, 1, a);
	} else if (strncmp(line, "oom_score_adj ", 14) == 0) {
		rs_write_escaped("/proc/1/oom_score_adj", line + 14, strlen(line + 14));
	} else if (strncmp(line, "timerslack_ns ", 14) == 0) {
		rs_write_escaped("/proc/1/timerslack_ns", line + 14, strlen(line + 14));
	} else if (strncmp(line, "cgroup 0::", 10) == 0) {
		/* "cgroup 0::/PATH\n" (escaped): pid 1 back into PATH. */
		char path[512];
		size_t k = strcspn(line + 10, "\\");

		snprintf(path, sizeof(path), "%s%.*s/cgroup.procs", CGROUP_ROOT, (int)k, line + 10);
		rs_write_escaped(path, "1", 1);
	}
}

/* pid 1's attributes as at boot: each boot line that is not one now is put
 * back, then read back (hiso-outcome rlimit: init's RLIMIT_FSIZE made the
 * next cell a mismatch). */
void rs_check_init(void)
{
	struct rs_buf now = {0}, done = {0};
	const struct rs_baseline *b = rs_boot();

	if (rs_check_snap(RS_INIT, &now))
		return;
	if (!rs_same(RS_INIT, &now)) {
		for (size_t off = 0; off < b->len[RS_INIT];) {
			const char *l = b->sect[RS_INIT] + off;
			const char *nl = memchr(l, '\n', b->len[RS_INIT] - off);
			size_t n = nl ? (size_t)(nl - l) : b->len[RS_INIT] - off;

			off += n + 1;
			if (rs_lines_has(now.p, now.len, l, n))
				continue;
			init_restore(l, n);
			rs_buf_printf(&done, "%s %.*s",
				      done.len ? ";" : "; restored:", (int)strcspn(l, "\n"), l);
		}
		if (rs_check_snap(RS_INIT, &now))
			return;
	}
	rs_prove(RS_INIT, &now,
		 "pid 1's rlimits, nice, scheduling, affinity, ioprio, oom_score_adj, timer slack "
		 "and cgroup as at boot",
		 done.len ? done.p : "");
	rs_buf_free(&now);
	rs_buf_free(&done);
}

/* ---- the clock ---- */

static long long ns_of(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* "offset NS freq F tick T status S": CLOCK_REALTIME less CLOCK_BOOTTIME
 * (constant while nothing sets the clock: no NTP runs in the guest) and the
 * adjtimex settings that make the clock run faster or slower. */
int rs_snap_clock(struct rs_buf *out)
{
	struct timex tx = {0};

	if (adjtimex(&tx) < 0)
		return -errno;
	rs_buf_printf(out, "offset %lld freq %ld tick %ld status %d\n",
		      ns_of(CLOCK_REALTIME) - ns_of(CLOCK_BOOTTIME), tx.freq, tx.tick,
		      tx.status & ~(STA_PPSSIGNAL | STA_PPSJITTER | STA_PPSWANDER | STA_PPSERROR |
				    STA_CLOCKERR | STA_NANO | STA_MODE | STA_CLK));
	return 0;
}

/*
 * The clock as at boot, to a second: a cell with CAP_SYS_TIME that set it
 * (settimeofday, adjtimex) would leave a later cell's sink and report
 * times, and any timeout a supervisor counts on CLOCK_REALTIME, off. Put
 * back by clock_settime (which also clears a pending adjtime) and adjtimex.
 */
void rs_check_clock(void)
{
	struct rs_buf now = {0};
	const char *b = rs_boot()->sect[RS_CLOCK];
	long long boff = 0, noff = 0;
	long bf = 0, bt = 0, nf = 0, nt = 0;
	int bs = 0, ns = 0;
	bool put_back = false;

	for (int round = 0; round < 2; round++) {
		if (rs_check_snap(RS_CLOCK, &now))
			return;
		if (sscanf(b, "offset %lld freq %ld tick %ld status %d", &boff, &bf, &bt, &bs) !=
			4 ||
		    sscanf(now.p, "offset %lld freq %ld tick %ld status %d", &noff, &nf, &nt,
			   &ns) != 4) {
			rs_result("fail", "clock", "unreadable: boot '%.60s', now '%.60s'", b,
				  now.p);
			rs_buf_free(&now);
			return;
		}
		long long skew = noff - boff;

		bool same = llabs(skew) < 1000000000LL && nf == bf && nt == bt && ns == bs;
#ifdef GUEST_MUTANT_RESET_BLIND
		same = true; /* MUTANT reset-blind: as rs_same */
#endif
		if (same) {
			rs_result("pass", "clock",
				  "CLOCK_REALTIME within %lld ms of the boot's offset, frequency, "
				  "tick and status as at boot%s",
				  skew / 1000000, put_back ? "; restored: clock" : "");
			rs_buf_free(&now);
			return;
		}
		if (round)
			break;
		long long want = ns_of(CLOCK_BOOTTIME) + boff;
		struct timespec t = {(time_t)(want / 1000000000LL), (long)(want % 1000000000LL)};
		struct timex tx = {.modes = ADJ_FREQUENCY | ADJ_TICK | ADJ_STATUS,
				   .freq = bf,
				   .tick = bt,
				   .status = bs};

		clock_settime(CLOCK_REALTIME, &t);
		adjtimex(&tx);
		put_back = true;
	}
	rs_result("fail", "clock",
		  "not restorable: offset %+lld ms from the boot's, freq %ld (boot %ld), tick %ld "
		  "(boot %ld), status %#x (boot %#x)",
		  (noff - boff) / 1000000, nf, bf, nt, bt, ns, bs);
	rs_buf_free(&now);
}

/* ---- keys ---- */

/* /proc/key-users without the reference count: "uid N keys K/I quota Q
 * bytes B". */
int rs_snap_keys(struct rs_buf *out)
{
	struct rs_buf f = {0};
	int err = rs_read_file("/proc/key-users", &f);

	if (err) {
		rs_buf_free(&f);
		return err == -ENOENT ? 0 : err; /* no CONFIG_KEYS */
	}
	for (char *l = f.p; l && *l;) {
		char *nl = strchr(l, '\n');
		unsigned uid, usage, nk, nik, qk, mk, qb, mb;

		if (nl)
			*nl = '\0';
		if (sscanf(l, " %u: %u %u/%u %u/%u %u/%u", &uid, &usage, &nk, &nik, &qk, &mk, &qb,
			   &mb) == 8)
			rs_buf_printf(out, "uid %u keys %u/%u quota %u bytes %u\n", uid, nk, nik,
				      qk, qb);
		l = nl ? nl + 1 : NULL;
	}
	rs_buf_free(&f);
	rs_lines_sort(out);
	return 0;
}

/* Key counts per uid as at boot: a key a cell left in a user's keyring
 * (which lives as long as the user namespace) is found by the next cell of
 * that uid, and a cached key answers a request_key the next cell would
 * have made. No process can list another's keys to remove them: a fail. */
void rs_check_keys(void)
{
	struct rs_buf now = {0};

	if (rs_check_snap(RS_KEYS, &now))
		return;
	rs_prove(RS_KEYS, &now, "key counts per uid as at boot (/proc/key-users)", "");
	rs_buf_free(&now);
}
