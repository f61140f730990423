/* modules-probe: does protocol autoloading work in this guest? Started as a
 * cell's service (root, outside the supervisor), it switches to uid/gid 1000
 * first, so each socket() below is an unprivileged request_module() exactly
 * as on a Debian host, then reports one line per protocol on stdout:
 *
 *   probe uid=1000 sctp socket=ok module=loaded
 *   probe uid=1000 dccp socket=ESOCKTNOSUPPORT module=absent
 *
 * and the kernel.modprobe it saw. It then stays up (a service that exits
 * before the supervisor starts is a failed precondition). Test-only: the
 * proof of docs/guest.md "Modules", run by initramfs/tests/modules-boot.sh. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <grp.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef AF_TIPC
#define AF_TIPC 30
#endif
#ifndef AF_RDS
#define AF_RDS 21
#endif
#ifndef SOCK_DCCP
#define SOCK_DCCP 6
#endif

struct proto {
	const char *name;   /* as in the report line */
	const char *module; /* the module name /proc/modules lists */
	int family, type, protocol;
};

/* Each of these is a module (=m) in Debian's amd64 configs up to 6.12. Debian
 * strips the net-pf aliases of dccp, rds and tipc (no autoload on a Debian
 * host either); DCCP was removed from the kernel in 6.16. */
static const struct proto protos[] = {
    {"sctp", "sctp", AF_INET, SOCK_STREAM, 132 /* IPPROTO_SCTP */},
    {"dccp", "dccp", AF_INET, SOCK_DCCP, 33 /* IPPROTO_DCCP */},
    {"tipc", "tipc", AF_TIPC, SOCK_RDM, 0},
    {"rds", "rds", AF_RDS, SOCK_SEQPACKET, 0},
    {"l2tp_ip", "l2tp_ip", AF_INET, SOCK_DGRAM, 115 /* IPPROTO_L2TP */},
};

static const char *errno_name(int e)
{
	switch (e) {
	case EPROTONOSUPPORT:
		return "EPROTONOSUPPORT";
	case ESOCKTNOSUPPORT:
		return "ESOCKTNOSUPPORT";
	case EAFNOSUPPORT:
		return "EAFNOSUPPORT";
	case EPERM:
		return "EPERM";
	case EACCES:
		return "EACCES";
	case EINVAL:
		return "EINVAL";
	case ENOENT:
		return "ENOENT";
	default:
		return strerror(e);
	}
}

/* module_loaded NAME: 1 when /proc/modules lists NAME, 0 when not, -errno. */
static int module_loaded(const char *name)
{
	char line[512];
	size_t n = strlen(name);
	int found = 0;
	FILE *f = fopen("/proc/modules", "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, name, n) == 0 && line[n] == ' ')
			found = 1;
	}
	fclose(f);
	return found;
}

int main(void)
{
	char modprobe[256] = "";
	FILE *f = fopen("/proc/sys/kernel/modprobe", "re");

	if (f) {
		if (!fgets(modprobe, sizeof(modprobe), f))
			modprobe[0] = '\0';
		modprobe[strcspn(modprobe, "\n")] = '\0';
		fclose(f);
	}
	/* Group first: after setuid the process may no longer change it. */
	if (setgroups(0, NULL) != 0 || setgid(1000) != 0 || setuid(1000) != 0) {
		printf("probe error setuid 1000: %s\n", strerror(errno));
		return 1;
	}
	printf("probe uid=%d kernel.modprobe=%s\n", (int)getuid(),
	       modprobe[0] ? modprobe : "(unreadable)");
	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++) {
		const struct proto *p = &protos[i];
		int fd = socket(p->family, p->type, p->protocol);
		int err = fd < 0 ? errno : 0;
		int loaded = module_loaded(p->module);

		if (fd >= 0)
			close(fd);
		printf("probe uid=%d %s socket=%s module=%s\n", (int)getuid(), p->name,
		       err ? errno_name(err) : "ok",
		       loaded > 0    ? "loaded"
		       : loaded == 0 ? "absent"
				     : "unreadable");
	}
	fflush(stdout);
	for (;;)
		pause();
}
