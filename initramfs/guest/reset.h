/*
 * egress-reset's shared pieces (docs/guest.md, "The reset and its proof"):
 * a growable text buffer, sorted line sets and their differences, the
 * escaping that keeps every record on one line, and the network snapshot.
 * Functions return 0 or -errno unless said otherwise.
 */
#ifndef EGRESS_GUEST_RESET_H
#define EGRESS_GUEST_RESET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Text owned by the buffer; p is NUL-terminated whenever len > 0. */
struct rs_buf {
	char *p;
	size_t len;
	size_t cap;
};

/* The sink's own tmpfs (initramfs/guest/init SINK_DIR): emptied with /tmp. */
#define RS_SINK_DIR "/run/egress-sink"
/* init's work directory (initramfs/guest/init W), in init's /run, which
 * the run never sees: emptied with /tmp. */
#define RS_WORK_DIR "/run/egress-work"

/* The sections of the baseline, in the order they are taken and checked. */
enum rs_sect {
	RS_CGROUPS,
	RS_MOUNTS,
	RS_TMP,
	RS_DEV,
	RS_ROOTFS,
	RS_NET,
	RS_XFRM,
	RS_MODULES,
	RS_SYSCTL,
	RS_TAINT,
	RS_IPC,
	RS_BPF,
	RS_KNOBS,
	RS_INIT,
	RS_CLOCK,
	RS_KEYS,
	RS_NSECT
};
extern const char *const rs_sect_names[RS_NSECT];

/* The boot's sections, as read back from the baseline file. */
struct rs_baseline {
	const char *sect[RS_NSECT];
	size_t len[RS_NSECT];
};

/* Appends; exits the program when memory runs out (a guest of 1 GiB). */
void rs_buf_add(struct rs_buf *b, const char *s, size_t n);
void rs_buf_printf(struct rs_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends S with '\\', newlines and other control bytes as \\, \n, \xHH. */
void rs_buf_escape(struct rs_buf *b, const char *s, size_t n);
void rs_buf_free(struct rs_buf *b);

/* Sorts the buffer's lines in byte order (a set compares equal whatever
 * order the kernel listed it in). */
void rs_lines_sort(struct rs_buf *b);

/* True when line L (without its newline, length n) is one of SET's lines. */
bool rs_lines_has(const char *set, size_t setlen, const char *l, size_t n);

/*
 * Appends to OUT at most MAX lines of A that are not lines of B, joined by
 * ';' (nothing when there are none); returns how many such lines there are.
 */
size_t rs_lines_only_in(struct rs_buf *out, const char *a, size_t alen, const char *b, size_t blen,
			size_t max);

/* Field 2 of a /proc/self/mounts line L (the mount point, octal escapes
 * undone) into OUT; false when the line has none. */
bool rs_mount_point(const char *l, size_t n, char *out, size_t outlen);

/* The whole file into B (appended); -errno when it cannot be read. */
int rs_read_file(const char *path, struct rs_buf *b);

/*
 * Removes NAME under the directory AT, whatever it is, without following symlinks or
 * crossing into another filesystem (a mount point is left and reported by
 * the caller's read-back).
 */
int rs_remove_tree(int at, const char *name);

/*
 * Appends section S of the guest's state now to OUT. BOOT is the baseline
 * when there is one (NULL while it is taken: /tmp is then listed without
 * init's own directories, and the writable sysctls are found by a walk, not
 * read from the boot's list); CGROUP is the cell's cgroup ("" without
 * cgroup2).
 */
int rs_snap(int s, const char *cgroup, const struct rs_baseline *boot, struct rs_buf *out);

/*
 * Every process but init, this one and the kernel's threads (PF_KTHREAD in
 * /proc/PID/stat's flags) as "pid state comm;" lines in OUT, and the first
 * MAX of their pids in PIDS; returns how many there are.
 */
size_t rs_user_procs(struct rs_buf *out, pid_t *pids, size_t max);

/* Loaded modules' names, newest first as /proc/modules lists them. */
int rs_module_names(struct rs_buf *out);

/*
 * Links, addresses and routes (every table, IPv4 and IPv6) as rtnetlink
 * dumps them, one line each, sorted; counters, lifetimes and cache data
 * (which change by themselves) left out.
 */
int rs_net_snapshot(struct rs_buf *out);

/*
 * Deletes every link whose "index name" is not among BASE's links and every
 * address that is not one of BASE's lines; names each in DONE.
 */
int rs_net_repair(const char *base, size_t baselen, struct rs_buf *done);

/* ---- egress-reset check's proof (reset.c) ---- */

/* The boot's sections, read back from the baseline descriptor. */
const struct rs_baseline *rs_boot(void);

/* One line of the proof: "VERDICT reset:NAME DETAIL (uptime U, N ms)", N
 * the cost since the previous line; a "fail" fails the reset. */
void rs_result(const char *verdict, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* True when NOW is section S as at boot, byte for byte. */
bool rs_same(int s, const struct rs_buf *now);

/* "+ONLY-NOW -ONLY-AT-BOOT", three lines of each at most, into OUT. */
void rs_diff_text(int s, const struct rs_buf *now, struct rs_buf *out);

/* Section S now into NOW (emptied first); an unreadable state is a fail
 * line, and its -errno returned. */
int rs_check_snap(int s, struct rs_buf *now);

/* A pass line with PASS_DETAIL when NOW is as at boot, else a fail naming
 * the difference; DONE (what was put back) is appended to either. */
void rs_prove(int s, struct rs_buf *now, const char *pass_detail, const char *done);

/* Writes the value ESC (rs_buf_escape's form, N bytes) raw to PATH. */
int rs_write_escaped(const char *path, const char *esc, size_t n);

/* ---- kernel state outside files and tables (reset_kern.c) ---- */

/*
 * Snapshots: every BPF program and link by id and type (bpf); xfrm policies
 * and states, read only while an xfrm configuration module is loaded (xfrm);
 * the writable knobs of the cgroup2 root and of its children (knobs); pid 1's
 * rlimits, nice, scheduling, affinity, oom_score_adj, cgroup, ioprio and
 * timer slack (init); CLOCK_REALTIME's offset from CLOCK_BOOTTIME and the
 * clock's adjtimex frequency, tick and status (clock); the key counts per
 * uid of /proc/key-users (keys).
 */
int rs_snap_bpf(struct rs_buf *out);
int rs_snap_xfrm(struct rs_buf *out);
int rs_snap_knobs(struct rs_buf *out);
int rs_snap_init(struct rs_buf *out);
int rs_snap_clock(struct rs_buf *out);
int rs_snap_keys(struct rs_buf *out);

/* The checks of those sections, each one or more proof lines: what can be
 * put back safely is (named in the line), anything else is a fail. */
void rs_check_bpf(void);
void rs_check_xfrm(void);
void rs_check_knobs(void);
void rs_check_init(void);
void rs_check_clock(void);
void rs_check_keys(void);

#endif
