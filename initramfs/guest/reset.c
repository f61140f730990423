/*
 * egress-reset: the reset between the cells of a batch boot and its proof
 * (issue 14; docs/guest.md "The reset and its proof"). One process does
 * what reset.sh did with dozens of busybox processes (each tens of
 * milliseconds under TCG).
 *
 *   egress-reset baseline [--cell-cgroup DIR] > FILE
 *       the boot's state, once, before the first cell
 *   egress-reset check --baseline-fd N --log FILE [--cell-cgroup DIR]
 *                      [--prev-uid UID]
 *       puts the guest back to the baseline read from descriptor N and
 *       proves it, one line per check in FILE:
 *           pass|fail|info reset:NAME DETAIL (uptime U, N ms)
 *       exit 0 when every check passed, 1 when any failed, 2 when it could
 *       not run at all (usage, an unreadable baseline)
 *
 * The baseline is a file init opens on a descriptor and unlinks before any
 * cell runs, as the report channel (docs/guest.md): no name reaches it, and
 * init closes the descriptor for everything a cell starts, so no agent, root
 * or not, can rewrite what the boot looked like.
 */
#include "reset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* --cell-cgroup: "" when the kernel has no cgroup2 */
static const char *cell_cg = "";

/* ---- baseline ---- */

static int cmd_baseline(void)
{
	struct rs_buf out = {0};

	for (int s = 0; s < RS_NSECT; s++) {
		struct rs_buf b = {0};
		int err = rs_snap(s, cell_cg, NULL, &b);

		if (err) {
			fprintf(stderr, "egress-reset: baseline %s: %s\n", rs_sect_names[s],
				strerror(-err));
			return 2;
		}
		rs_buf_printf(&out, "@@%s %zu\n", rs_sect_names[s], b.len);
		if (b.len)
			rs_buf_add(&out, b.p, b.len);
		rs_buf_free(&b);
	}
	for (size_t off = 0; off < out.len;) {
		ssize_t n = write(1, out.p + off, out.len - off);

		if (n < 0) {
			perror("egress-reset: baseline: write");
			return 2;
		}
		off += (size_t)n;
	}
	return 0;
}

/* The sections of the baseline file: "@@NAME BYTES\n" then BYTES of lines. */
static struct rs_buf base_file;
static struct rs_baseline boot;

const struct rs_baseline *rs_boot(void)
{
	return &boot;
}

static int read_baseline(int fd)
{
	char tmp[65536];
	ssize_t n;
	off_t off = 0;

	/* pread: the descriptor is init's, its offset left where it was. */
	while ((n = pread(fd, tmp, sizeof(tmp), off)) > 0) {
		rs_buf_add(&base_file, tmp, (size_t)n);
		off += n;
	}
	if (n < 0)
		return -errno;
	size_t i = 0;

	for (int s = 0; s < RS_NSECT; s++) {
		char name[32];
		size_t len;
		int used = 0;

		if (i >= base_file.len ||
		    sscanf(base_file.p + i, "@@%31s %zu\n%n", name, &len, &used) != 2 || !used ||
		    strcmp(name, rs_sect_names[s]) != 0 || i + (size_t)used + len > base_file.len)
			return -EBADMSG;
		boot.sect[s] = base_file.p + i + used;
		boot.len[s] = len;
		i += (size_t)used + len;
	}
	return i == base_file.len ? 0 : -EBADMSG;
}

/* ---- the proof ---- */

static FILE *proof;
static bool failed;
static struct timespec t_check;

static double uptime(void)
{
	struct timespec t;

	clock_gettime(CLOCK_BOOTTIME, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void begin(void)
{
	clock_gettime(CLOCK_MONOTONIC, &t_check);
}

/* One line of the proof, with the uptime at its end and the check's cost. */
void rs_result(const char *verdict, const char *name, const char *fmt, ...)
{
	struct timespec t;
	va_list ap;

	clock_gettime(CLOCK_MONOTONIC, &t);
	long ms = (t.tv_sec - t_check.tv_sec) * 1000 + (t.tv_nsec - t_check.tv_nsec) / 1000000;

	fprintf(proof, "%s reset:%s ", verdict, name);
	va_start(ap, fmt);
	vfprintf(proof, fmt, ap);
	va_end(ap);
	fprintf(proof, " (uptime %.2f, %ld ms)\n", uptime(), ms);
	if (strcmp(verdict, "fail") == 0)
		failed = true;
	begin();
}

bool rs_same(int s, const struct rs_buf *now)
{
#ifdef GUEST_MUTANT_RESET_BLIND
	/* MUTANT reset-blind: every comparison with the boot passes (the
	 * hand-made checker of docs/guest.md; make batch-reset-mutant-test). */
	(void)s;
	(void)now;
	return true;
#endif
	return now->len == boot.len[s] &&
	       (now->len == 0 || memcmp(now->p, boot.sect[s], now->len) == 0);
}

/* "+ONLY-NOW -ONLY-AT-BOOT", three lines of each at most. */
void rs_diff_text(int s, const struct rs_buf *now, struct rs_buf *out)
{
	rs_buf_add(out, "+", 1);
	size_t a =
	    rs_lines_only_in(out, now->p ? now->p : "", now->len, boot.sect[s], boot.len[s], 3);

	rs_buf_printf(out, "%s -", a > 3 ? ";..." : "");
	size_t b =
	    rs_lines_only_in(out, boot.sect[s], boot.len[s], now->p ? now->p : "", now->len, 3);

	if (b > 3)
		rs_buf_add(out, ";...", 4);
}

/* Snapshot S into NOW (emptied first); an unreadable state is a fail. */
int rs_check_snap(int s, struct rs_buf *now)
{
	rs_buf_free(now);
	int err = rs_snap(s, cell_cg, &boot, now);

	if (err)
		rs_result("fail", rs_sect_names[s], "cannot be read: %s", strerror(-err));
	return err;
}

/* Compares section S with the boot's; a difference is a fail naming it. */
void rs_prove(int s, struct rs_buf *now, const char *pass_detail, const char *done)
{
	if (rs_same(s, now)) {
		rs_result("pass", rs_sect_names[s], "%s%s", pass_detail, done);
		return;
	}
	struct rs_buf d = {0};

	rs_diff_text(s, now, &d);
	rs_result("fail", rs_sect_names[s], "differs from boot: %s%s", d.p, done);
	rs_buf_free(&d);
}

#define MAX_LEFT 64
static pid_t left_pids[MAX_LEFT];
static size_t nleft;

/*
 * No process of the previous cell: init's helpers of a cell ran in a
 * cgroup init killed after it, and init is blocked waiting for this
 * program, so it reaps any zombie re-parented to it at once. Processes
 * killed at the end of the cell may still be dying: up to 1 s.
 */
static void check_processes(void)
{
	struct rs_buf list = {0};

	int tries = 0;

	for (;; tries++) {
		rs_buf_free(&list);
		nleft = rs_user_procs(&list, left_pids, MAX_LEFT);
		if (!nleft || tries == 50)
			break;
		nanosleep(&(struct timespec){0, 20000000}, NULL);
	}
	if (nleft)
		rs_result("fail", "processes", "left from the previous cell: %s", list.p);
	else
		rs_result("pass", "processes",
			  "none but init and kernel threads (%d waits of 20 ms)", tries);
	rs_buf_free(&list);
}

/* The cell's cgroup empty, and no cgroup but the boot's (extras removed,
 * deepest first). */
static void check_cgroups(void)
{
	struct rs_buf now = {0}, done = {0};

	if (!*cell_cg) {
		rs_result("pass", "cgroup", "no cgroup2 on this kernel: nothing to compare");
		return;
	}
	char path[4096];

	snprintf(path, sizeof(path), "%s/cgroup.procs", cell_cg);
	int err = rs_read_file(path, &now);

	if (err || now.len) {
		for (size_t i = 0; i < now.len; i++)
			if (now.p[i] == '\n')
				now.p[i] = ' ';
		rs_result("fail", "cgroup", "%s not empty: %s", path, err ? strerror(-err) : now.p);
	}
	if (rs_check_snap(RS_CGROUPS, &now))
		return;
	if (!rs_same(RS_CGROUPS, &now)) {
		/* Reverse byte order puts a child before its parent. */
		for (size_t end = now.len; end > 0;) {
			size_t start = end - 1;

			while (start > 0 && now.p[start - 1] != '\n')
				start--;
			size_t n = end - 1 - start;

			if (!rs_lines_has(boot.sect[RS_CGROUPS], boot.len[RS_CGROUPS],
					  now.p + start, n)) {
				now.p[end - 1] = '\0';
				int r = rmdir(now.p + start);

				rs_buf_printf(&done, "%s %s%s",
					      done.len ? "" : "; removed:", now.p + start,
					      r ? " (refused)" : "");
			}
			end = start;
		}
		if (rs_check_snap(RS_CGROUPS, &now))
			return;
	}
	char pass[4200];

	snprintf(pass, sizeof(pass), "%s empty, no other cgroup", cell_cg);
	rs_prove(RS_CGROUPS, &now, pass, done.len ? done.p : "");
	rs_buf_free(&now);
	rs_buf_free(&done);
}

/* The cell's cgroup and its interface files owned by root again: a cell
 * with cgroup=delegated gave them to its uid, and the next cell's agent of
 * that uid must not find them writable. Given back where not, then read
 * back. */
static void check_cgroup_owner(void)
{
	if (!*cell_cg)
		return;
	DIR *d = opendir(cell_cg);
	int given = 0, wrong = 0, n = 0;
	struct stat st;

	if (!d || fstat(dirfd(d), &st) != 0) {
		rs_result("fail", "cgroup-owner", "%s: %s", cell_cg, strerror(errno));
		if (d)
			closedir(d);
		return;
	}
	for (struct dirent *e = readdir(d); e; e = readdir(d)) {
		if (strcmp(e->d_name, "..") == 0)
			continue;
		n++;
		/* An entry whose owner cannot be read is not proven root's. */
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			wrong++;
			continue;
		}
		if (st.st_uid == 0 && st.st_gid == 0)
			continue;
		given++;
		if (fchownat(dirfd(d), e->d_name, 0, 0, AT_SYMLINK_NOFOLLOW) != 0 ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != 0 ||
		    st.st_gid != 0)
			wrong++;
	}
	closedir(d);
	if (wrong)
		rs_result("fail", "cgroup-owner",
			  "%s: %d of %d entries not owned by 0:0 (or unreadable) after chown",
			  cell_cg, wrong, n);
	else
		rs_result("pass", "cgroup-owner",
			  "%s and its %d entries owned by 0:0 (%d given back)", cell_cg, n - 1,
			  given);
}

/* True when PATH is the mount point of one of the boot's mounts. */
static bool boot_mount_point(const char *path)
{
	const char *b = boot.sect[RS_MOUNTS];
	size_t blen = boot.len[RS_MOUNTS];
	char mp[4096];

	for (size_t off = 0; off < blen;) {
		const char *nl = memchr(b + off, '\n', blen - off);
		size_t end = nl ? (size_t)(nl - b) : blen;

		if (rs_mount_point(b + off, end - off, mp, sizeof(mp)) && strcmp(mp, path) == 0)
			return true;
		off = end + 1;
	}
	return false;
}

/*
 * /proc/self/mounts as at boot. A mount on a point the boot had no mount on
 * is detached (newest first); any other difference (a mount stacked on one
 * of the boot's points, changed options) is not undone: a fail.
 */
static void check_mounts(void)
{
	struct rs_buf now = {0}, done = {0};

	if (rs_check_snap(RS_MOUNTS, &now))
		return;
	if (!rs_same(RS_MOUNTS, &now)) {
		for (size_t end = now.len; end > 0;) {
			size_t start = end - 1;
			char mp[4096];

			while (start > 0 && now.p[start - 1] != '\n')
				start--;
			if (rs_mount_point(now.p + start, end - 1 - start, mp, sizeof(mp)) &&
			    !boot_mount_point(mp)) {
				int r = umount2(mp, MNT_DETACH);

				rs_buf_printf(&done, "%s %s%s", done.len ? "" : "; detached:", mp,
					      r ? " (refused)" : "");
			}
			end = start;
		}
		if (rs_check_snap(RS_MOUNTS, &now))
			return;
	}
	rs_prove(RS_MOUNTS, &now, "as at boot", done.len ? done.p : "");
	rs_buf_free(&now);
	rs_buf_free(&done);
}

/* DIR's every name removed (without following symlinks or crossing
 * mounts), twice: a name a directory's listing skipped while it was
 * emptied. */
static void empty_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	for (int pass = 0; fd >= 0 && pass < 2; pass++) {
		DIR *d = fdopendir(dup(fd));
		struct dirent *e;

		if (!d)
			break;
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
				rs_remove_tree(dirfd(d), e->d_name);
		closedir(d);
	}
	if (fd >= 0)
		close(fd);
}

/* /tmp emptied (every place a cell writes: $SV, the services' files), the
 * sink's own tmpfs (RS_SINK_DIR: its log, ready file and stderr) and init's
 * work directory (RS_WORK_DIR, $W), and read back: only the three
 * themselves, as at boot. */
static void check_tmp(void)
{
	struct rs_buf now = {0};

	empty_dir("/tmp");
	empty_dir(RS_SINK_DIR);
	empty_dir(RS_WORK_DIR);
	if (rs_check_snap(RS_TMP, &now))
		return;
	rs_prove(RS_TMP, &now, "emptied and read back empty", "");
	rs_buf_free(&now);
}

/* True when a line of the boot's section S begins with the name PATH. */
static bool name_in_base(int s, const char *path, size_t n)
{
	const char *b = boot.sect[s];
	size_t blen = boot.len[s];

	for (size_t off = 0; off < blen;) {
		const char *nl = memchr(b + off, '\n', blen - off);
		size_t end = nl ? (size_t)(nl - b) : blen;

		if (end - off > n && memcmp(b + off, path, n) == 0 && b[off + n] == ' ')
			return true;
		off = end + 1;
	}
	return false;
}

/* Removes the names of NOW not in the boot's section S, deepest
 * first; names each in DONE. */
static void remove_extras(int s, struct rs_buf *now, struct rs_buf *done)
{
	for (size_t end = now->len; end > 0;) {
		size_t start = end - 1;

		while (start > 0 && now->p[start - 1] != '\n')
			start--;
		if (!rs_lines_has(boot.sect[s], boot.len[s], now->p + start, end - 1 - start)) {
			/* The path is the line up to its first space (names
			 * with spaces are escaped as they are: left alone). */
			size_t n = strcspn(now->p + start, " \n");
			char path[4096];

			snprintf(path, sizeof(path), "%.*s", (int)n, now->p + start);
			if (!name_in_base(s, path, n)) {
				int r = rs_remove_tree(AT_FDCWD, path);

				rs_buf_printf(done, "%s %s%s", done->len ? "" : "; removed:", path,
					      r && r != -ENOENT ? " (refused)" : "");
			}
		}
		end = start;
	}
}

/*
 * After a cell with a process of uid 0 (its agent, or a service: no other
 * uid can write the root-owned 0755 root filesystem or /dev): /dev's names
 * as at boot, and every name of the root filesystem (the initramfs: /init,
 * the supervisor, the agents, the cells, the modules) with size, mode,
 * owner and ctime as at boot (a directory's flags and extended attributes
 * in place of its ctime, which a name made and removed in it moves); in
 * both, names the boot did not have are removed (a stand-in helper a
 * service installed in /sbin), and a changed name is a fail.
 */
static void check_files(long prev_uid)
{
	struct rs_buf now = {0}, done = {0};

	if (prev_uid != 0) {
		rs_result(
		    "pass", "rootfs",
		    "not compared: the previous cell ran as uid %ld, which cannot write / or /dev",
		    prev_uid);
		return;
	}
	if (rs_check_snap(RS_DEV, &now))
		return;
	if (!rs_same(RS_DEV, &now)) {
		remove_extras(RS_DEV, &now, &done);
		if (rs_check_snap(RS_DEV, &now))
			return;
	}
	rs_prove(RS_DEV, &now, "every name, mode, owner and device number as at boot",
		 done.len ? done.p : "");
	rs_buf_free(&done);
	if (rs_check_snap(RS_ROOTFS, &now))
		return;
	if (!rs_same(RS_ROOTFS, &now)) {
		remove_extras(RS_ROOTFS, &now, &done);
		if (rs_check_snap(RS_ROOTFS, &now))
			return;
	}
	rs_prove(RS_ROOTFS, &now,
		 "every name, size, mode, owner and ctime (a directory's flags and extended "
		 "attributes) as at boot",
		 done.len ? done.p : "");
	rs_buf_free(&now);
	rs_buf_free(&done);
}

static void check_network(void)
{
	struct rs_buf now = {0}, done = {0};

	if (rs_check_snap(RS_NET, &now))
		return;
	if (!rs_same(RS_NET, &now)) {
		int err = rs_net_repair(boot.sect[RS_NET], boot.len[RS_NET], &done);

		if (err)
			rs_buf_printf(&done, " (rtnetlink: %s)", strerror(-err));
		if (rs_check_snap(RS_NET, &now))
			return;
	}
	if (done.len) {
		struct rs_buf d = {0};

		rs_buf_printf(&d, "; deleted:%s", done.p);
		rs_buf_free(&done);
		done = d;
	}
	rs_prove(RS_NET, &now,
		 "links, addresses, routes (every table), rules, neighbours and qdiscs, v4 and v6, "
		 "as at boot",
		 done.len ? done.p : "");
	rs_buf_free(&now);
	rs_buf_free(&done);
}

/*
 * Modules a cell autoloaded (an unprivileged socket() of a protocol built
 * as a module) removed, newest first, in rounds for those others used; one
 * that stays makes the next cell's kernel differ from a fresh boot's. A
 * socket's last reference to its module goes after an RCU grace period, so
 * a round that left one waits 50 ms before the next (five rounds at most).
 */
static void check_modules(void)
{
	struct rs_buf now = {0}, done = {0}, refused = {0};

	if (access("/proc/modules", R_OK) != 0) {
		rs_result("pass", "modules", "no module support");
		return;
	}
	if (rs_check_snap(RS_MODULES, &now))
		return;
	for (int round = 0; round < 5 && !rs_same(RS_MODULES, &now); round++) {
		struct rs_buf order = {0};

		if (round)
			nanosleep(&(struct timespec){0, 50000000}, NULL);
		rs_buf_free(&refused);
		rs_module_names(&order);
		for (size_t off = 0; off < order.len;) {
			char *nl = memchr(order.p + off, '\n', order.len - off);
			size_t end = nl ? (size_t)(nl - order.p) : order.len;
			const char *m = order.p + off;

			order.p[end] = '\0';
			off = end + 1;
			if (rs_lines_has(boot.sect[RS_MODULES], boot.len[RS_MODULES], m, strlen(m)))
				continue;
			if (syscall(SYS_delete_module, m, O_NONBLOCK) == 0)
				rs_buf_printf(&done, "%s %s", done.len ? "" : "; removed:", m);
			else
				rs_buf_printf(&refused, "; %s refused: %s", m, strerror(errno));
		}
		rs_buf_free(&order);
		if (rs_check_snap(RS_MODULES, &now))
			return;
	}
	if (refused.len && !rs_same(RS_MODULES, &now))
		rs_buf_add(&done, refused.p, refused.len);
	rs_prove(RS_MODULES, &now, "as at boot", done.len ? done.p : "");
	rs_buf_free(&now);
	rs_buf_free(&done);
	rs_buf_free(&refused);
}

/*
 * Every writable sysctl (any a cell set with sysctl= and any a root agent
 * changed) written back to its boot value and read back.
 */
static void check_sysctl(void)
{
	struct rs_buf now = {0}, done = {0};
	const char *b = boot.sect[RS_SYSCTL];
	size_t blen = boot.len[RS_SYSCTL];

	if (rs_check_snap(RS_SYSCTL, &now))
		return;
	if (!rs_same(RS_SYSCTL, &now)) {
		for (size_t off = 0; off < now.len;) {
			const char *l = now.p + off;
			const char *nl = memchr(l, '\n', now.len - off);
			size_t n = nl ? (size_t)(nl - l) : now.len - off;
			size_t plen = strcspn(l, "\t\n");

			off += n + 1;
			if (rs_lines_has(b, blen, l, n))
				continue;
			/* The boot's line for the same path. */
			for (size_t bo = 0; bo < blen;) {
				const char *bl = b + bo;
				const char *bnl = memchr(bl, '\n', blen - bo);
				size_t bn = bnl ? (size_t)(bnl - bl) : blen - bo;

				bo += bn + 1;
				if (bn <= plen || memcmp(bl, l, plen) != 0 || bl[plen] != '\t')
					continue;
				char path[4096];

				snprintf(path, sizeof(path), "%.*s", (int)plen, l);
				if (bl[plen + 1] != '!')
					rs_write_escaped(path, bl + plen + 1, bn - plen - 1);
				rs_buf_printf(&done, " %s", path + strlen("/proc/sys/"));
				break;
			}
		}
		if (rs_check_snap(RS_SYSCTL, &now))
			return;
	}
	if (rs_same(RS_SYSCTL, &now)) {
		rs_result("pass", "sysctl",
			  "every writable value as at boot, read back; restored:%s",
			  done.len ? done.p : " none");
	} else {
		struct rs_buf d = {0};

		rs_diff_text(RS_SYSCTL, &now, &d);
		rs_result("fail", "sysctl", "not restorable to the boot value: %s", d.p);
		rs_buf_free(&d);
	}
	rs_buf_free(&now);
	rs_buf_free(&done);
}

static void check_taint(void)
{
	struct rs_buf now = {0};

	rs_snap(RS_TAINT, cell_cg, &boot, &now);
	if (!rs_same(RS_TAINT, &now))
		rs_result("info", "taint", "kernel.tainted %.*s at boot, %.*s now",
			  (int)strcspn(boot.sect[RS_TAINT], "\n"), boot.sect[RS_TAINT],
			  (int)strcspn(now.p, "\n"), now.p);
	rs_buf_free(&now);
}

/*
 * No seccomp filter in init (masks are applied only below envexec). No
 * Seccomp: line at all is a kernel built without CONFIG_SECCOMP: no filter
 * can exist (/proc/sys/kernel/seccomp is absent too).
 */
static void check_init(void)
{
	struct rs_buf st = {0};
	char sc[32] = "?", nnp[32] = "?";

	rs_read_file("/proc/1/status", &st);
	for (char *l = st.p; l && *l;) {
		char *nl = strchr(l, '\n');

		if (nl)
			*nl = '\0';
		sscanf(l, "Seccomp: %31s", sc);
		sscanf(l, "NoNewPrivs: %31s", nnp);
		l = nl ? nl + 1 : NULL;
	}
	rs_buf_free(&st);
	if (strcmp(sc, "?") == 0 && access("/proc/sys/kernel/seccomp", F_OK) != 0)
		rs_result("pass", "init-seccomp",
			  "pid 1 Seccomp: none (a kernel without CONFIG_SECCOMP), NoNewPrivs: %s",
			  nnp);
	else if (strcmp(sc, "0") == 0)
		rs_result("pass", "init-seccomp", "pid 1 Seccomp: %s, NoNewPrivs: %s", sc, nnp);
	else
		rs_result("fail", "init-seccomp", "pid 1 has a filter: Seccomp: %s, NoNewPrivs: %s",
			  sc, nnp);
}

static void check_ipc(void)
{
	struct rs_buf now = {0};

	if (rs_check_snap(RS_IPC, &now))
		return;
	rs_prove(RS_IPC, &now, "System V shm, msg and sem as at boot", "");
	rs_buf_free(&now);
}

static int usage(const char *why)
{
	fprintf(stderr,
		"egress-reset: %s\nusage: egress-reset baseline [--cell-cgroup DIR] > FILE\n"
		"       egress-reset check --baseline-fd N --log FILE [--cell-cgroup DIR] "
		"[--prev-uid UID]\n",
		why);
	return 2;
}

static int cmd_check(int basefd, const char *log, long prev_uid)
{
	int err = read_baseline(basefd);

	proof = fopen(log, "we");
	if (!proof) {
		fprintf(stderr, "egress-reset: --log %s: %s\n", log, strerror(errno));
		return 2;
	}
	begin();
	if (err) {
		rs_result("fail", "baseline", "descriptor %d unreadable or malformed: %s", basefd,
			  strerror(-err));
		fclose(proof);
		return 1;
	}
	/* Processes first: what a leftover holds (a mount, a module, a file)
	 * would make every later check fail for its sake. */
	check_processes();
	check_cgroups();
	check_cgroup_owner();
	check_mounts();
	check_tmp();
	check_files(prev_uid);
	check_network();
	/* Before the modules check, which removes the module xfrm is read
	 * through. */
	rs_check_xfrm();
	check_modules();
	check_sysctl();
	check_taint();
	check_init();
	check_ipc();
	rs_check_bpf();
	rs_check_knobs();
	rs_check_init();
	rs_check_clock();
	rs_check_keys();
	/* The batch ends: leftovers go now, so that the batch's end is
	 * written by init alone. */
	for (size_t i = 0; i < nleft && i < MAX_LEFT; i++)
		kill(left_pids[i], SIGKILL);
	if (fclose(proof) != 0)
		return 2;
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	long basefd = -1, prev_uid = 0;
	const char *log = NULL;

	if (argc < 2)
		return usage("no command");
	cell_cg = "";
	for (int i = 2; i < argc; i++) {
		char *end = NULL;

		if (i + 1 >= argc)
			return usage("an option without its value");
		if (strcmp(argv[i], "--cell-cgroup") == 0)
			cell_cg = argv[++i];
		else if (strcmp(argv[i], "--log") == 0)
			log = argv[++i];
		else if (strcmp(argv[i], "--baseline-fd") == 0)
			basefd = strtol(argv[++i], &end, 10);
		else if (strcmp(argv[i], "--prev-uid") == 0)
			prev_uid = strtol(argv[++i], &end, 10);
		else
			return usage("unknown option");
		if (end && (*end || end == argv[i]))
			return usage("a number is wanted");
	}
	if (strcmp(argv[1], "baseline") == 0)
		return cmd_baseline();
	if (strcmp(argv[1], "check") == 0) {
		if (basefd < 0 || !log)
			return usage("check needs --baseline-fd and --log");
		return cmd_check((int)basefd, log, prev_uid);
	}
	return usage("unknown command");
}
