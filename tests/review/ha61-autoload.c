/* ha61-autoload: hostile review h-attack61 (see ha61-autoload.sh and
 * ha61-autoload.md). Makes, once each, the calls of the enumeration whose
 * kernel path reaches request_module() with no capability in the initial
 * user namespace and no trapped call, and prints each call's answer:
 *
 *   dlci    SIOCADDDLCI/SIOCDELDLCI on a UDP socket: 5.10's sock_ioctl
 *           asks for "dlci" before dlci_ioctl checks CAP_NET_ADMIN (the
 *           ioctl is gone since 5.19: on 6.18 the answer is ENOTTY/EINVAL,
 *           and what matters here is that nothing is recorded).
 *   x509    add_key("asymmetric") of a certificate whose signature OID the
 *           agent chose (argv[1]: md4WithRSA, argv[2]: sha3-256WithRSA,
 *           argv[3]: the unmodified sha256WithRSA control):
 *           x509_get_sig_params allocates that hash, crypto-NAME where it
 *           is not loaded; a serial or EKEYREJECTED means the parse ran.
 *   bpffs   (held) in a user+mount namespace of its own, fsopen("bpf") and
 *           FSCONFIG_CMD_CREATE: populate_bpffs would ask for
 *           "bpf_preload" at every mount (Debian: CONFIG_BPF_PRELOAD
 *           unset), but bpf_fill_super wants capable(CAP_SYS_ADMIN) first
 *           outside the initial user namespace: EPERM.
 *   xt      in a user+net namespace of its own, getsockopt on a UDP socket
 *           with a table name the agent chose: IPT_SO_GET_INFO (64, the
 *           known limit's iptable_NAME: ENOENT after the request) and
 *           EBT_SO_GET_INFO (128, ebtable_NAME: ENOPROTOOPT where the
 *           legacy ebtables is not built or loaded, as on this host).
 *
 * A trapped call would be EPERM or EACCES and recorded in the report. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <linux/netfilter_bridge/ebtables.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void show(const char *what, long rc)
{
	if (rc < 0)
		printf("ha61 %s: %s\n", what, strerrorname_np(errno));
	else
		printf("ha61 %s: ok (%ld)\n", what, rc);
	fflush(stdout);
}

static int put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n < 0 ? -1 : 0;
}

/* A user namespace of our own, plus the namespaces in flags. The maps are
 * tried and their failure ignored: a root agent without CAP_SETFCAP cannot
 * map uid 0 (5.12+), but its capabilities over the new namespaces do not
 * depend on a map. */
static int own_namespaces(int flags)
{
	char map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (unshare(CLONE_NEWUSER | flags) != 0)
		return -1;
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
	(void)put("/proc/self/uid_map", map);
	(void)put("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
	(void)put("/proc/self/gid_map", map);
	return 0;
}

static void dlci(void)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	char arg[32] = "ha61dlci"; /* struct dlci_add: devname[16], dlci */

	show("SIOCADDDLCI (dlci)", ioctl(s, 0x8980, arg));
	show("SIOCDELDLCI (dlci)", ioctl(s, 0x8981, arg));
	close(s);
}

static void x509(const char *label, const char *path)
{
	static char der[8192];
	char what[96];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, der, sizeof(der));

	if (fd >= 0)
		close(fd);
	snprintf(what, sizeof(what), "add_key asymmetric %s", label);
	if (n <= 0) {
		show(what, -1);
		return;
	}
	/* KEY_SPEC_PROCESS_KEYRING: -2. */
	show(what, syscall(SYS_add_key, "asymmetric", "ha61", der, (size_t)n, -2));
}

static void in_child(void (*fn)(void))
{
	pid_t pid = fork();

	if (pid == 0) {
		fn();
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

static void bpffs(void)
{
	int fs;

	if (own_namespaces(CLONE_NEWNS) != 0) {
		show("bpffs: own user+mount namespace", -1);
		return;
	}
	fs = syscall(SYS_fsopen, "bpf", 0);
	show("fsopen bpf", fs);
	if (fs >= 0)
		show("fsconfig CMD_CREATE bpf (bpf_preload)",
		     syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0));
}

static void xt(void)
{
	struct ebt_replace r;
	socklen_t len = sizeof(r);
	char info[84] = "ha61secret"; /* struct ipt_getinfo */
	socklen_t ilen = sizeof(info);
	int s;

	if (own_namespaces(CLONE_NEWNET) != 0) {
		show("xt: own user+net namespace", -1);
		return;
	}
	s = socket(AF_INET, SOCK_DGRAM, 0);
	show("IPT_SO_GET_INFO ha61secret (iptable_NAME, known limit)",
	     getsockopt(s, IPPROTO_IP, 64, info, &ilen));
	memset(&r, 0, sizeof(r));
	strcpy(r.name, "ha61secret");
	show("EBT_SO_GET_INFO ha61secret (ebtable_NAME)",
	     getsockopt(s, IPPROTO_IP, EBT_SO_GET_INFO, &r, &len));
}

int main(int argc, char **argv)
{
	dlci();
	if (argc > 1)
		x509("md4WithRSA (crypto-md4)", argv[1]);
	if (argc > 2)
		x509("sha3-256WithRSA (crypto-sha3-256)", argv[2]);
	if (argc > 3)
		x509("sha256WithRSA (control)", argv[3]);
	in_child(bpffs);
	in_child(xt);
	return 0;
}
