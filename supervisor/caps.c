#include "caps.h"

#include "fault.h"

#include <errno.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Capabilities that would let the agent step around mediation or outlive
 * the run (docs/design.md, "Threat model: the agent process"): raw and
 * packet sockets, routing and netfilter, BPF hooks, ptrace or memory access
 * to the supervisor itself, mounts and namespaces (SYS_ADMIN: also what
 * keeps the read-only /proc/sys and /sys in place), kexec and reboot
 * (SYS_BOOT: kexec_load starts another kernel outside every filter), and
 * choosing pids (CHECKPOINT_RESTORE: clone3 set_tid and ns_last_pid, with
 * which a tree of decreasing pids defeated a kill in pid order; also
 * map_files and PR_SET_MM), and DAC_READ_SEARCH (open_by_handle_at: a root
 * agent reopened an unlinked --report-fd file on ext4 by its inode and
 * rewrote the supervisor's records; hostile re-run h-rerun2), and MKNOD
 * (a device node the agent makes itself on a writable path: nodev there
 * already refuses to open it; this keeps the node from existing),
 * SYS_CHROOT (under a supervisor started in a chroot whose root is a mount,
 * chroot into a subdirectory and ".." climbed out of it to the mounts
 * outside, which the supervisor never saw: review h-attack19; a chrooted
 * process cannot make a user namespace to get it back), LINUX_IMMUTABLE
 * (an append-only log the caller gave on stdout was made writable and
 * rewritten; h-attack19), SETFCAP (file capabilities on a file a process
 * outside then runs; h-attack19) and FSETID (a setuid program already in a
 * declared path kept its bit when the agent rewrote it; h-attack20), and
 * the capabilities whose reach is the whole host and not the run (review
 * h-attack39's ha39-caps.sh: each worked in a root run): SYS_TIME (the
 * host's clock, and through it every later cell of a guest's batch),
 * SYSLOG (the host's kernel log read, cleared or silenced), SYS_NICE
 * (SCHED_FIFO on every CPU, its supervisor starved), SYS_RESOURCE
 * (oom_score_adj -1000: the OOM killer takes the supervisor instead; limits
 * and reserves passed), IPC_LOCK (memory locked past RLIMIT_MEMLOCK),
 * WAKE_ALARM and BLOCK_SUSPEND (the host's power state), SYS_TTY_CONFIG
 * (the keymap of every virtual console: a later keypress types the agent's
 * command; review h-attack41) and LEASE (a read lease on a host file its
 * read-only view shows stalls every writer of it; h-attack41).
 * Kept on
 * purpose: SETUID/SETGID (a root agent may change ids; cross-process
 * access is then stopped by the pid namespace and the filter, not by its
 * uid), KILL (in the pid namespace it reaches only the agent's own tree),
 * DAC_OVERRIDE and the other file capabilities (a root agent sees the
 * host's files read-only and nodev but for the paths its caller declared
 * writable: rootfs.h). */
static const int risky_caps[] = {
#ifndef SV_MUTANT_HANDLE_OPEN
    /* MUTANT handle-open: kept, as before h-rerun2. */
    2 /* DAC_READ_SEARCH */,
#endif
    12 /* NET_ADMIN */,
    13 /* NET_RAW */,
    16 /* SYS_MODULE */,
    17 /* SYS_RAWIO */,
    19 /* SYS_PTRACE */,
    21 /* SYS_ADMIN */,
    22 /* SYS_BOOT */,
#ifndef SV_MUTANT_MKNOD_KEPT
    /* MUTANT mknod-kept: kept, as before the root agent's files were
     * confined. */
    27 /* MKNOD */,
#endif
#ifndef SV_MUTANT_ROOT_CHROOT_KEPT
    /* MUTANT root-chroot-kept: kept, as before review h-attack19. */
    18 /* SYS_CHROOT */,
#endif
#ifndef SV_MUTANT_ROOT_FILE_CAPS_KEPT
    /* MUTANT root-file-caps-kept: all three kept, as before reviews
     * h-attack19 and h-attack20. */
    4 /* FSETID */,
    9 /* LINUX_IMMUTABLE */,
    31 /* SETFCAP */,
#endif
    38 /* PERFMON */,
    39 /* BPF */,
#ifndef SV_MUTANT_HOST_CAPS_KEPT
    /* MUTANT host-caps-kept: kept, as before review h-attack39. */
    25 /* SYS_TIME */,
    34 /* SYSLOG */,
    23 /* SYS_NICE */,
    24 /* SYS_RESOURCE */,
    14 /* IPC_LOCK */,
    35 /* WAKE_ALARM */,
    36 /* BLOCK_SUSPEND */,
    26 /* SYS_TTY_CONFIG */,
    28 /* LEASE */,
#endif
#ifndef SV_MUTANT_CHECKPOINT_RESTORE_KEPT
#ifndef SV_MUTANT_OLD_DESCENDANT_KILL
    /* MUTANT checkpoint-restore-kept, old-descendant-kill: kept. */
    40 /* CHECKPOINT_RESTORE */,
#endif
#endif
};

void sv_caps_drop_for_agent(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];

	for (size_t i = 0; i < sizeof(risky_caps) / sizeof(risky_caps[0]); i++)
		prctl(PR_CAPBSET_DROP, risky_caps[i], 0, 0, 0);
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (syscall(SYS_capget, &h, d) != 0)
		return;
	for (size_t i = 0; i < sizeof(risky_caps) / sizeof(risky_caps[0]); i++) {
		unsigned idx = (unsigned)risky_caps[i] / 32, bit = 1u << (risky_caps[i] % 32);

		d[idx].effective &= ~bit;
		d[idx].permitted &= ~bit;
		d[idx].inheritable &= ~bit;
	}
	syscall(SYS_capset, &h, d);
}

int sv_caps_lower_thread(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) != 0)
		return -errno;
	for (size_t i = 0; i < sizeof(risky_caps) / sizeof(risky_caps[0]); i++) {
		unsigned idx = (unsigned)risky_caps[i] / 32, bit = 1u << (risky_caps[i] % 32);

		/* Reading and duplicating from the agent is ours to do. */
		if (risky_caps[i] == CAP_SYS_PTRACE)
			continue;
		d[idx].effective &= ~bit;
	}
	return syscall(SYS_capset, &h, d) == 0 ? 0 : -errno;
}

int sv_caps_raise_for_lookup(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) != 0)
		return -errno;
	/* 12 NET_ADMIN (SIOCGSKNS), 21 SYS_ADMIN (setns): both in word 0. */
	d[0].effective |= d[0].permitted & (1u << 12 | 1u << 21);
	return syscall(SYS_capset, &h, d) == 0 ? 0 : -errno;
}

int sv_caps_raise_for_creds(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];

	int f = sv_fault("caps_raise");

	if (f < 0)
		return f;
	if (syscall(SYS_capget, &h, d) != 0)
		return -errno;
	if (!(d[0].permitted & 1u << 21))
		return -EPERM;
	d[0].effective |= 1u << 21;
	return syscall(SYS_capset, &h, d) == 0 ? 0 : -errno;
}
