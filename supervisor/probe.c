#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "act.h"
#include "contain.h"
#include "errnames.h"
#include "fault.h"
#include "listener.h"
#include "spawn.h"
#include "target.h"

#define PROBE_TIMEOUT_MS 5000

/* Known bytes the canary passes to a trapped connect: the probe must read
 * exactly these out of the canary's memory. */
static const struct sockaddr_in canary_addr = {
    .sin_family = AF_INET,
    .sin_port = 0x0900, /* port 9 (discard), never contacted */
    .sin_addr = {.s_addr = 0x0100007f},
    .sin_zero = {'s', 'v', 'p', 'r', 'o', 'b', 'e', '!'},
};

static void canary(void *arg)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	(void)arg;
	/* This connect is trapped; the supervisor answers it without performing
	 * it, then kills us. */
	connect(s, (const struct sockaddr *)&canary_addr, sizeof(canary_addr));
	pause();
	_exit(0);
}

static int errno_of(int rc)
{
	return rc < 0 ? -rc : 0;
}

static void probe_with_notification(int listener, struct sv_probe_result *r)
{
	struct seccomp_notif_sizes sizes = {0};
	union {
		struct seccomp_notif n;
		unsigned char raw[512];
	} req;
	struct seccomp_notif_resp resp = {0};
	struct sockaddr_in got;
	struct pollfd pfd = {.fd = listener, .events = POLLIN};
	int rc, pidfd, dup;
	struct stat st;

	memset(&req, 0, sizeof(req));
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0 ||
	    sizes.seccomp_notif > sizeof(req)) {
		r->listener = sizes.seccomp_notif > sizeof(req) ? EOVERFLOW : errno;
		return;
	}
	rc = poll(&pfd, 1, PROBE_TIMEOUT_MS);
	if (rc <= 0) {
		r->listener = rc == 0 ? ETIMEDOUT : errno;
		return;
	}
	rc = sv_fault("recv");
	if (rc == 0 && ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
		rc = -errno;
	r->listener = errno_of(rc);
	if (rc)
		return;

#ifdef SV_MUTANT_SELF_PROBE
	/* MUTANT self-probe: reads and duplicates from ourselves, which the
	 * kernel allows whatever Yama or capabilities say. */
	req.n.pid = (__u32)getpid();
	req.n.data.args[1] = (uintptr_t)&canary_addr;
	req.n.data.args[0] = (__u64)socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
#endif
	/* Both read routes are tried: either one is enough for the run. */
	memset(&got, 0, sizeof(got));
	rc = sv_target_read_vm((pid_t)req.n.pid, req.n.data.args[1], &got, sizeof(got));
	if (rc == 0 && memcmp(&got, &canary_addr, sizeof(got)) != 0)
		rc = -EIO;
	r->process_vm_readv = errno_of(rc);
	memset(&got, 0, sizeof(got));
	rc = sv_target_read_procmem((pid_t)req.n.pid, req.n.data.args[1], &got, sizeof(got));
	if (rc == 0 && memcmp(&got, &canary_addr, sizeof(got)) != 0)
		rc = -EIO;
	r->proc_mem = errno_of(rc);

	pidfd = sv_act_pidfd_open((pid_t)req.n.pid);
	r->pidfd_open = errno_of(pidfd < 0 ? pidfd : 0);
	if (pidfd >= 0) {
		dup = sv_act_getfd(pidfd, (int)req.n.data.args[0]);
		if (dup >= 0 && (fstat(dup, &st) != 0 || !S_ISSOCK(st.st_mode))) {
			close(dup);
			dup = -EBADF;
		}
		if (dup >= 0)
			dup = sv_act_close_dup(dup);
		r->pidfd_getfd = errno_of(dup < 0 ? dup : 0);
		close(pidfd);
	}
	r->id_valid = errno_of(sv_listener_id_valid(listener, req.n.id));
	resp.id = req.n.id;
	resp.error = -ECONNREFUSED;
	r->send = errno_of(sv_listener_send(listener, &resp));
}

int sv_probe_run(struct sv_probe_result *r)
{
	struct sv_child ch;
	int rc, status;

	*r = (struct sv_probe_result){.listener = -1,
				      .process_vm_readv = -1,
				      .proc_mem = -1,
				      .pidfd_open = -1,
				      .pidfd_getfd = -1,
				      .id_valid = -1,
				      .send = -1,
				      .containment = -1,
				      .private_table = -1,
				      .caller_creds = -1};
	sv_fault_set_probe_phase(1);
	/* The canary is contained exactly as the agent will be (same mode,
	 * same namespaces): setting them up is the containment's proof. */
	rc = sv_spawn(&ch, canary, NULL, -1, 0);
	if (rc < 0) {
		r->listener = -rc;
		goto out;
	}
	r->containment = -ch.contain_err;
	r->handover = sv_spawn_handover(&r->unshare_files);
	if (ch.contain_err)
		;
	else if (ch.unshare_err) {
		/* The listener was installed; the table it is in could not be
		 * made the child's own, so nothing can be handed over. */
		r->listener = 0;
		r->private_table = -ch.unshare_err;
	} else if (ch.listener < 0) {
		/* A child of the pidfd_getfd hand-over had its own table from
		 * the clone; its listener could not be installed or taken. */
		r->private_table = ch.by_getfd ? 0 : -1;
		r->listener = -ch.install_err;
	} else {
		r->private_table = 0;
		probe_with_notification(ch.listener, r);
	}
	/* Naming the canary's process (the reaper in a pid-namespace run,
	 * outside it as the agent is) proves what a performed send may say of
	 * its caller. It decides nothing about the run. */
	if (ch.pid > 0)
		r->caller_creds = sv_act_creds_probe(ch.pid);
	if (ch.pid > 0) {
		/* pid-namespace: killing the reaper kills the canary with it. */
		kill(ch.pid, SIGKILL);
		while (waitpid(ch.pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	if (ch.status_fd >= 0)
		close(ch.status_fd);
	if (ch.listener >= 0)
		close(ch.listener);
out:
	sv_fault_set_probe_phase(0);
	/* The run falls back to /proc/PID/mem only when process_vm_readv is
	 * ENOSYS, so that is the only case where proc_mem can stand in for it. */
	r->read = r->process_vm_readv == ENOSYS ? r->proc_mem : r->process_vm_readv;
#ifdef SV_MUTANT_ENOSYS_PROBE
	/* MUTANT enosys-probe: only a missing pidfd_getfd fails the probe. */
	r->ok = r->pidfd_getfd != ENOSYS;
	return r->ok ? 0 : -EPERM;
#endif
	r->ok = r->containment == 0 && r->private_table == 0 && r->listener == 0 && r->read == 0 &&
		r->pidfd_open == 0 && r->pidfd_getfd == 0 && r->id_valid == 0 && r->send == 0;
	return r->ok ? 0 : -EPERM;
}

static void line(const char *name, int err, const char *hint)
{
	const char *n = err > 0 ? sv_errno_name(err) : NULL;

	if (err == 0)
		printf("%s: ok\n", name);
	else if (err < 0)
		printf("%s: not tried\n", name);
	else
		printf("%s: %s%s%s\n", name, n ? n : "error", hint ? " - " : "", hint ? hint : "");
}

const char *sv_probe_containment_hint(int err)
{
	return err > 0 && sv_contain_refused_as_ours(-err)
		   ? "the supervisor was started in a user namespace its own uid owns (a "
		     "rootless container's, unshare -U): any process of the uid may refuse "
		     "namespaces there (its user.max_*_namespaces, a mount over / or /proc), so "
		     "this refusal is not taken for the host's and the run is not made weaker; "
		     "allow the namespaces in that user namespace, or start the supervisor in one "
		     "another uid owns"
	       : err == EPERM
		   ? "a root agent needs its own pid and mount namespace (read-only /proc/sys and "
		     "/sys, the host's files read-only, a /dev of its own): run the supervisor "
		     "with CAP_SYS_ADMIN and CAP_MKNOD, or as a non-root user; in a "
		     "container that masks /proc, a fresh proc mount is refused too"
	       : err == EINVAL
		   ? "this kernel has no pid namespaces (CONFIG_NAMESPACES, CONFIG_PID_NS), or "
		     "SysV IPC without IPC namespaces (CONFIG_IPC_NS)"
	       : err == ENOTRECOVERABLE
		   ? "a root agent's mount namespace still had a writable or device-allowing host "
		     "mount after it was made read-only and nodev (named above)"
	       : err == ENOSYS || err == EOPNOTSUPP
		   ? "a non-root agent needs a Landlock domain (Linux >= 5.13, "
		     "CONFIG_SECURITY_LANDLOCK, "
		     "landlock in the lsm= list) to be kept from other processes of its uid; or "
		     "run "
		     "the supervisor as root (its own pid namespace)"
	       : err == EXDEV
		   ? "the agent's Landlock domain was built but a cgroup file its uid may write "
		     "still opened for writing inside it: this host's mounts hide part of the "
		     "path Landlock walks (a supervisor in a chroot); run it outside the chroot, "
		     "or in a cgroup its uid cannot write"
	       : err == EPROTO
		   ? "the agent's Landlock domain was asked to be scoped for signals (ABI 6, Linux "
		     ">= 6.12) and was made, but a signal to the supervisor still went through "
		     "inside it: the kernel does not keep what it reports"
	       : err == ENOSPC
		   ? "a namespace limit of this uid is used up for now (user.max_user_namespaces, "
		     "and the pid, mount and IPC ones, count every process of the uid, another "
		     "run's agent among them): not run in a weaker containment another process "
		     "chose; try again, or give each job its own uid"
	       : err == EBUSY
		   ? "an id map of the supervisor's user namespace was written by another "
		     "process of its uid while it was being set up (another run's agent?): not "
		     "run in a weaker containment another process chose; try again"
	       : err == EAGAIN || err == ENOMEM
		   ? "no process or memory for the agent's namespaces just now (RLIMIT_NPROC of "
		     "this uid counts every process of it, another run's agent among them): not "
		     "run in a weaker containment another process chose; try again"
	       : err > 0 ? "the agent's pid and mount namespace could not be set up"
			 : NULL;
}

void sv_probe_print(const struct sv_probe_result *r)
{
	line("listener", r->listener,
	     r->handover && r->listener > 0
		 ? "taken from the child with pidfd_getfd, as unshare(CLONE_FILES) was refused: "
		   "the same ptrace access the run needs for every socket "
		   "(kernel.yama.ptrace_scope, "
		   "CAP_SYS_PTRACE; Linux >= 5.6)"
	     : r->listener == EINVAL || r->listener == ENOSYS || r->listener == EOPNOTSUPP
		 ? "needs CONFIG_SECCOMP_FILTER and Linux >= 5.0 (seccomp user notification)"
	     : r->listener == EAGAIN
		 ? "no process could be made for the probe's canary (RLIMIT_NPROC of this uid "
		   "counts every process of it, another run's agent among them)"
	     : r->listener == EBUSY
		 ? "this process is already under a seccomp filter with a listener (a supervisor "
		   "inside another, or a container runtime's SCMP_ACT_NOTIFY profile): the kernel "
		   "allows one listener per filter chain; run the supervisor outside the other one"
		 : NULL);
	if (r->handover)
		printf("handover: pidfd_getfd (unshare(CLONE_FILES) refused: %s)\n",
		       sv_errno_name(r->unshare_files) ? sv_errno_name(r->unshare_files) : "error");
	line("private_table", r->private_table,
	     r->private_table == EPERM
		 ? "unshare(CLONE_FILES) refused: a seccomp profile that refuses unshare (Docker's "
		   "default does without CAP_SYS_ADMIN); run under a profile that allows it"
		 : NULL);
	line("process_vm_readv", r->process_vm_readv,
	     r->process_vm_readv == ENOSYS ? "CONFIG_CROSS_MEMORY_ATTACH=n; /proc/PID/mem is used"
	     : r->process_vm_readv == EPERM
		 ? "ptrace access denied (kernel.yama.ptrace_scope, CAP_SYS_PTRACE, dumpable)"
		 : NULL);
	line("proc_mem", r->proc_mem,
	     r->proc_mem == EACCES || r->proc_mem == EPERM
		 ? "ptrace access denied (kernel.yama.ptrace_scope, CAP_SYS_PTRACE, dumpable)"
		 : NULL);
	line("pidfd_open", r->pidfd_open,
	     r->pidfd_open == ENOSYS ? "this kernel has no pidfd_open (Linux >= 5.3 has it)"
				     : NULL);
	line("pidfd_getfd", r->pidfd_getfd,
	     r->pidfd_getfd == ENOSYS ? "this kernel has no pidfd_getfd (Linux >= 5.6 has it)"
	     : r->pidfd_getfd == EPERM
		 ? "ptrace access denied (kernel.yama.ptrace_scope, CAP_SYS_PTRACE, dumpable)"
		 : NULL);
	line("id_valid", r->id_valid, NULL);
	line("send", r->send, NULL);
	line("containment", r->containment, sv_probe_containment_hint(r->containment));
	printf("probe: %s\n", r->ok ? "ok" : "failed");
}
